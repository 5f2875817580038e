"""What a study covers now: its selectors resolved against the log to paper ids (and the manuscripts a
reviewer can read), and the files its run ingests."""

import json
from dataclasses import dataclass
from pathlib import Path

from peerlake.studies.spec import DEMO, Study, StudyError
from peerlake.warehouse import EventLog, PaperIngested, settings


@dataclass(frozen=True)
class Resolution:
    paper_ids: list[str]  # every selected paper the lake knows (manuscript, human review, status, import)
    manuscripts: list[PaperIngested]  # newest version of those with a manuscript: what a reviewer reads
    missing: list[str]  # selected but unknown to the lake

    @property
    def reviewable(self) -> list[str]:
        return [m.paper_id for m in self.manuscripts]


def study_pdfs(study: Study) -> list[tuple[str, Path, bool]]:
    """(paper_id, PDF path, is_synthetic) the study's run ingests: the demo corpus and its folders."""
    out: list[tuple[str, Path, bool]] = []
    if study.corpus == DEMO:
        from peerlake.ingest.demo_corpus import demo_papers

        only = settings.demo_only()
        out += [(p.stem, p, True) for p in demo_papers() if only is None or p.stem in only]
    for folder in study.folders:
        path = Path(folder)
        if not path.is_dir():
            raise StudyError(f"study {study.name!r}: papers folder {folder} does not exist")
        out += [(p.stem, p, False) for p in sorted(path.glob("*.pdf"))]
    return out


def study_review_files(study: Study) -> list[Path]:
    """Human-review files the study's run imports (the demo corpus's OpenReview-shaped notes)."""
    if study.corpus != DEMO:
        return []
    from peerlake.ingest.demo_corpus import demo_reviews

    only = settings.demo_only()
    return [p for p in demo_reviews() if only is None or p.stem in only]


def resolve_papers(log: EventLog, study: Study) -> Resolution:
    """The paper ids the study covers now: the union of its selectors, restricted to papers the lake
    knows; those with a manuscript are the ones a reviewer can read."""
    from peerlake.ingest.manuscripts import latest_versions

    latest = latest_versions(log)
    statuses = list(log.iter_events("paper_status_recorded"))
    known = set(latest) | {e.paper_id for e in statuses}
    known |= {e.paper_id for e in log.iter_events("human_review_imported")}
    known |= {e.paper_id for e in log.iter_events("external_review_imported")}
    synthetic = {pid for pid, e in latest.items() if e.is_synthetic}
    chosen: set[str] = {pid for pid, _, _ in study_pdfs(study)}
    chosen |= set(study.ids)
    if study.sample:
        chosen |= set(_sample_ids(log, study))
    if study.venues:
        chosen |= {pid for pid, e in latest.items() if e.venue in study.venues}
        chosen |= {e.paper_id for e in statuses if e.venue in study.venues}
    if study.all_ingested:
        chosen |= known - synthetic
    # The experiments' variants of those papers (a contradiction inserted, hidden text injected), as
    # the `paper_variants` asset last recorded them for this version of the study.
    chosen |= set(variant_ids(log, study)) & set(latest)
    return Resolution(paper_ids=sorted(chosen & known),
                      manuscripts=[latest[p] for p in sorted(chosen & set(latest))],
                      missing=sorted(chosen - known))


VARIANTS_ASSET = "paper_variants"


def variant_ids(log: EventLog, study: Study) -> list[str]:
    """The built variants the `paper_variants` asset recorded for this version of the study (its newest
    `study_resolved` event of that asset), none when the study has no experiment that makes any."""
    if not study.makes_variants:
        return []
    mine = [e for e in log.iter_events("study_resolved")
            if e.asset == VARIANTS_ASSET and e.study_id == study.name and e.study_sha256 == study.sha256]
    newest = max(mine, key=lambda e: e.event_id, default=None)
    return list(json.loads(newest.paper_ids_json)) if newest is not None else []


def _sample_ids(log: EventLog, study: Study) -> list[str]:
    draws = list(log.iter_events("sample_drawn"))
    if study.sample == "latest":
        if not draws:
            raise StudyError(f"study {study.name!r}: papers.sample = 'latest' but no sample was drawn "
                             "(run `peerlake sample ...` first)")
        draw = max(draws, key=lambda e: e.event_id)
    else:
        found = [e for e in draws if e.sample_id == study.sample]
        if not found:
            raise StudyError(f"study {study.name!r}: no sample {study.sample!r} in this lake "
                             f"(known: {', '.join(sorted(e.sample_id for e in draws)) or 'none'})")
        draw = found[-1]
    return list(json.loads(draw.paper_ids_json))


# What a resolution reads from the log besides the experiments' variants (variant_ids, a study_resolved
# read of its own). The log only grows and `count` is exact, so while these counts stand still the
# same events are there and resolve_papers would return the same.
RESOLUTION_READS = ("paper_ingested", "paper_status_recorded", "human_review_imported", "external_review_imported",
                    "sample_drawn")


class Resolver:
    """resolve_papers, held for a run: the whole log is read once, and again only after the log gained an
    event a resolution reads (a run's ingest steps and the experiments' variants change what a study
    covers; its reviewers and judges do not). Same answers as calling resolve_papers each time."""

    def __init__(self):
        self._memo: dict[tuple, Resolution] = {}

    def __call__(self, log: EventLog, study: Study) -> Resolution:
        key = (study.name, study.sha256, tuple(log.count(t) for t in RESOLUTION_READS),
               tuple(variant_ids(log, study)), tuple(study_pdfs(study)))
        if key not in self._memo:
            self._memo = {key: resolve_papers(log, study)}  # only the newest state is asked for again
        r = self._memo[key]
        return Resolution(list(r.paper_ids), list(r.manuscripts), list(r.missing))  # a caller's edits stay its own
