"""Which events a mart row was computed from, so that the same dbt models over those events alone
compute the same row (`peerlake audit check` proves it by doing so).

The row's key values scope the log: its study (→ the study's `study_resolved` events, and through
them its papers), its paper, reviewer configuration and sample when it has them. Every event type
the lineage reads is kept when it matches that scope; a type with nothing to scope by (price tables,
related work) is kept whole. Judgments bring the calls and searches they name. Template texts of the
kept calls come along, as evidence (no model reads them)."""

import json
from dataclasses import dataclass, field

from peerlake.warehouse import EventLog
from peerlake.warehouse.events import Event


@dataclass
class Selection:
    study: str | None
    papers: set[str] | None  # None: not scoped by paper
    configs: set[str] | None  # reviewer configurations (or imported systems); None: all
    events: list[Event] = field(default_factory=list)  # in log order
    unscoped: list[str] = field(default_factory=list)  # event types kept whole

    def of_type(self, event_type: str) -> list[Event]:
        return [e for e in self.events if e.event_type == event_type]

    def by_id(self) -> dict[str, Event]:
        return {e.event_id: e for e in self.events}


def _scope(log: EventLog, row: dict) -> Selection:
    study = row.get("study_id")
    papers: set[str] | None = None
    if row.get("paper_id") is not None:
        papers = {row["paper_id"]}
    elif study is not None:
        # every resolution of the study: the marts keep the newest, which is among them
        papers = set()
        for e in log.iter_events("study_resolved"):
            if e.study_id == study:
                papers |= set(json.loads(e.paper_ids_json))
    config = row.get("reviewer_config") or row.get("system")
    return Selection(study=study, papers=papers, configs={config} if config else None)


def _keep(sel: Selection, e: Event, row: dict, named: set[str]) -> bool | None:
    """True/False when the event type has something to scope by; None when it has not."""
    if e.event_id in named:
        return True
    scoped = False
    study = getattr(e, "study_id", getattr(e, "study", None)) if e.event_type in (
        "study_resolved", "calls_replayed", "run_estimated", "cost_cap_reached") else None
    if study is not None or e.event_type == "study_resolved":
        scoped = True
        if sel.study is not None and study != sel.study:
            return False
    paper = getattr(e, "paper_id", None) if hasattr(e, "paper_id") else getattr(e, "subject_id", None)
    if hasattr(e, "paper_id") or hasattr(e, "subject_id"):
        scoped = True
        if sel.papers is not None and paper not in sel.papers:
            return False
    config = getattr(e, "reviewer_config", None) or getattr(e, "system", None)
    if config is not None and sel.configs is not None:
        scoped = True
        if config not in sel.configs:
            return False
    if (e.event_type in ("llm_call", "llm_call_duplicated") and row.get("sample_index") is not None
            and e.sample_index != row["sample_index"]):
        return False
    return True if scoped else None


def select_events(log: EventLog, row: dict, sources: list[str]) -> Selection:
    """The events behind `row`, a row of a mart whose lineage reads the event types `sources`."""
    sel = _scope(log, row)
    # judgments first: they name the calls and searches their units came from
    named: set[str] = set()
    chosen: dict[str, list[Event]] = {}
    order = sorted(sources, key=lambda t: t != "judgment_recorded")
    for event_type in order:
        kept, whole = [], True
        for e in log.iter_events(event_type):
            verdict = _keep(sel, e, row, named)
            whole = whole and verdict is None
            if verdict is not False:
                kept.append(e)
        if whole and kept:
            sel.unscoped.append(event_type)
        if event_type == "judgment_recorded":
            for e in kept:
                named |= set(json.loads(e.llm_call_ids_json))
        chosen[event_type] = kept
    hashes = {e.prompt_hash for t in ("llm_call", "llm_call_duplicated") for e in chosen.get(t, []) if e.prompt_hash}
    # Evidence an auditor wants beside the calls even when the chain never reads it: the template
    # texts and the manuscripts the calls read (a review score's chain reads calls only).
    if "prompt_template_stored" not in chosen:
        chosen["prompt_template_stored"] = [e for e in log.iter_events("prompt_template_stored")
                                            if e.prompt_hash in hashes]
    if "paper_ingested" not in chosen:
        papers = {e.subject_id for t in ("llm_call", "llm_call_duplicated") for e in chosen.get(t, [])}
        chosen["paper_ingested"] = [e for e in log.iter_events("paper_ingested") if e.paper_id in papers]
    # each type in log order (sealed first, in seal order): a fresh lake sealed from them keeps the
    # same first answer per request_key, so its seal routes the same duplicates aside
    for event_type in chosen:
        sel.events.extend(chosen[event_type])
    return sel


def blob_names(events: list[Event]) -> dict[str, str]:
    """sha256 -> what it is ("llm_call.request_sha256 01J…"), for every blob an event names."""
    out: dict[str, str] = {}
    for e in events:
        for name, value in vars(e).items():
            if name.endswith("_sha256") and isinstance(value, str) and len(value) == 64:
                out.setdefault(value, f"{e.event_type}.{name} {e.event_id}")
        if e.event_type == "prompt_template_stored":
            out.setdefault(e.source_sha256, f"prompt_template_stored.source_sha256 {e.event_id}")
    return out
