"""Writing a study file as `peerlake study new` does: TOML in a stable key order, so equal studies hash
equal; a text that would not load is never returned."""

import json
from pathlib import Path

from peerlake.studies.parse import parse_study
from peerlake.studies.spec import DEFAULT
from peerlake.warehouse import EventLog


def study_text(name: str, *, description: str = "", corpus: str | None = None,
               folders: list[str] = (), sample: str | None = None, venues: list[str] = (),
               ids: list[str] = (), all_ingested: bool = False, samples: int | None = None,
               template: str = "reviewer_scoring", external_systems: list[str] = (),
               reviewers: bool = True, judges: list[str] = (), judging: dict | None = None,
               systems: list[str] = ()) -> str:
    """A study file as `peerlake study new` writes it (TOML, stable key order, so equal studies hash equal)."""
    lines = ["# A peerlake study (see `peerlake study --help`). Its SHA-256 is its version.",
             f"name = {json.dumps(name)}"]
    if description:
        lines.append(f"description = {json.dumps(description)}")
    if external_systems:
        lines.append(f"external_systems = {json.dumps(list(external_systems))}")
    lines += [f"judges = {json.dumps(list(judges))}", "", "[papers]"]
    if corpus:
        lines.append(f"corpus = {json.dumps(corpus)}")
    if folders:
        lines.append(f"folders = {json.dumps([str(Path(f).resolve()) for f in folders])}")
    if sample:
        lines.append(f"sample = {json.dumps(sample)}")
    if venues:
        lines.append(f"venues = {json.dumps(list(venues))}")
    if ids:
        lines.append(f"ids = {json.dumps(list(ids))}")
    if all_ingested:
        lines.append("all_ingested = true")
    if reviewers and systems:  # reviewer systems instead of the single-prompt reviewer
        for name_ in systems:
            lines += ["", "[[reviewers]]", f"system = {json.dumps(name_)}"]
            if samples is not None:
                lines.append(f"samples = {samples}")
            lines.append("# options = { }  # see `peerlake systems " + name_ + "`")
    elif reviewers:
        lines += ["", "[[reviewers]]", f"template = {json.dumps(template)}"]
        if samples is not None:
            lines.append(f"samples = {samples}")
    else:  # top-level keys must precede the tables
        lines.insert(2, "reviewers = []  # imported reviews only (external_systems)")
    if judging:
        lines += ["", "[judging]"] + [f"{k} = {json.dumps(v)}" for k, v in judging.items()]
    text = "\n".join(lines) + "\n"
    parse_study(name, text)  # never write a file that would not load
    return text


def default_study_text(log: EventLog, samples: int | None = None, template: str = "reviewer_scoring") -> str:
    """`peerlake review` without a study: the papers the user ingested -- the newest `peerlake sample`
    draw when there is one (the sample is what gets reviewed), else every non-synthetic paper.
    Never the demo corpus."""
    has_sample = log.count("sample_drawn") > 0
    return study_text(DEFAULT, description="The papers you ingested (written by `peerlake review`).",
                      sample="latest" if has_sample else None, all_ingested=not has_sample,
                      samples=samples, template=template, external_systems=["*"])
