"""Test lakes written event by event have no study; this records one that covers them whole."""

import hashlib
import json

from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog
from peerlake.warehouse.events import StudyResolved


def cover_everything(log: EventLog, study: str = "test", external_systems=("*",)) -> StudyResolved:
    """A study_resolved event naming every reviewed paper and every review configuration in the log
    (all samples), as `peerlake run` records after reviewing them. Call before sealing."""
    papers = {e.paper_id for e in log.iter_events("paper_ingested")}
    configs: dict[str, int] = {}
    for e in log.iter_events("llm_call"):
        if e.purpose in ("review", "score_probe", "score_probe_continuation"):
            papers.add(e.subject_id)
            configs[e.reviewer_config] = max(configs.get(e.reviewer_config, 0), e.sample_index + 1)
    papers |= {e.paper_id for e in log.iter_events("external_review_imported")}
    # the text (so its hash, the test lakes' study version) keeps the module's first name, tests.studies
    text = f"name = {json.dumps(study)}\n# written by tests.studies.cover_everything\n"
    event = resolution_event(study, hashlib.sha256(text.encode()).hexdigest(), [p for p in papers if p],
                             [{"reviewer_config": c, "samples": n} for c, n in sorted(configs.items())],
                             external_systems, paper_source="test")
    log.append(event)
    return event
