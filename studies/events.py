"""What a study's run records: the `study_resolved` event (which papers and configurations it covered),
and the study's name on the requests it pays for."""

import json
from dataclasses import replace

from peerlake.reviewing.scoring import ReviewerConfig
from peerlake.reviewing.systems.base import SystemConfig
from peerlake.studies.spec import Study
from peerlake.warehouse import EventLog
from peerlake.warehouse.events import StudyResolved


def resolution_event(study_id: str, study_sha256: str, paper_ids, reviewers: list[dict],
                     external_systems=(), paper_source: str = "", asset: str = "ai_reviews",
                     judges: list[dict] = ()) -> StudyResolved:
    """The `study_resolved` event; `reviewers` are {reviewer_config, samples, ...} rows (what the marts
    read: int_study_reviewers); `judges` are {judge, judge_config, repeats, review_keys, ...} rows (the
    judgments asset's: which reviews each judge covered for the study)."""
    return StudyResolved(study_id=study_id, study_sha256=study_sha256,
                         paper_ids_json=json.dumps(sorted(paper_ids)), reviewers_json=json.dumps(reviewers),
                         external_systems_json=json.dumps(list(external_systems)),
                         paper_source=paper_source, asset=asset, judges_json=json.dumps(list(judges)))


def record_resolution(log: EventLog, study: Study, paper_ids: list[str],
                      configs: list[ReviewerConfig] | list[SystemConfig],
                      asset: str, code_versions: list[str] | None = None,
                      judges: list[dict] = ()) -> StudyResolved:
    """Append what the study covered in this run (the text goes to the blob store first)."""
    log.blobs.put_text(study.text)
    versions = code_versions or [c.code_version() for c in configs]
    reviewers = [{"reviewer_config": v, "provider": c.provider, "model": c.model, "samples": c.samples,
                  **({"system": c.system, "strip_hidden": bool(c.opts.get("strip_hidden", True))}
                     if isinstance(c, SystemConfig) else {"template": c.template, "strip_hidden": c.strip_hidden,
                                                          "figures": c.figures()})}
                 for c, v in zip(configs, versions, strict=True)]
    return log.append(resolution_event(study.name, study.sha256, paper_ids, reviewers, study.external_systems,
                                       study.paper_source(), asset, judges))


def with_study(requests: list, study: Study) -> list:
    """Label requests with the study that asks (recorded on a paid call; not part of its identity)."""
    return [replace(r, study=study.name) for r in requests]
