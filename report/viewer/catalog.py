"""What the viewer knows about a lake, read once: every llm_call event, which studies replayed it,
the judgments and system reviews that name it, and the published cost recomputation (fct_llm_calls)."""

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse import EventLog


@dataclass
class Catalog:
    calls: dict[str, object] = field(default_factory=dict)  # llm_call event id -> event
    by_request: dict[str, list] = field(default_factory=lambda: defaultdict(list))  # request_key -> attempts
    replayed_in: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # call id -> studies
    judgments: list = field(default_factory=list)  # judgment_recorded events, log order
    judged_by: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # call id -> judgment nos
    systems: list = field(default_factory=list)  # system_review events, log order
    system_of: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))  # call -> (n, i)
    recomputed: dict[str, dict] = field(default_factory=dict)  # call id -> fct_llm_calls' cost columns
    study: str | None = None

    def answer(self, request_key: str) -> object | None:
        """The ok event that answered a request (the first, as every replay returns it)."""
        oks = [e for e in self.by_request.get(request_key, ()) if e.status == "ok"]
        return min(oks, key=lambda e: (e.occurred_at, e.event_id)) if oks else None

    def in_scope(self, call) -> bool:
        return self.study is None or call.study == self.study or self.study in self.replayed_in.get(call.event_id, ())


def _published_costs(db: Path | None) -> dict[str, dict]:
    if db is None or not Path(db).is_file():
        return {}
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return {}
    try:
        rows = con.execute("select llm_call_id, recomputed_cost_usd, recomputed_cost_status, "
                           "is_duplicate_success from fct_llm_calls").fetchall()
    except duckdb.Error:  # not built in this lake: the viewer shows the recorded cost only
        return {}
    finally:
        con.close()
    return {r[0]: {"recomputed_cost_usd": r[1], "recomputed_cost_status": r[2], "is_duplicate_success": r[3]}
            for r in rows}


def load_catalog(log: EventLog, db: Path | None = None, study: str | None = None) -> Catalog:
    cat = Catalog(study=study)
    for ev in log.iter_events("llm_call"):
        cat.calls.setdefault(ev.event_id, ev)  # a copy of one event (same id) is one call
    for ev in cat.calls.values():
        cat.by_request[ev.request_key].append(ev)
    for ev in log.iter_events("calls_replayed"):
        if ev.door != "llm" or ev.study is None:
            continue
        for call_id in json.loads(ev.answer_event_ids_json):
            cat.replayed_in[call_id].add(ev.study)
    for ev in log.iter_events("judgment_recorded"):
        ids = [i for i in json.loads(ev.llm_call_ids_json) if i in cat.calls]
        if study is not None and ev.study != study and not any(cat.in_scope(cat.calls[i]) for i in ids):
            continue
        n = len(cat.judgments)
        cat.judgments.append(ev)
        for i in ids:
            cat.judged_by[i].append(n)
    for ev in log.iter_events("system_review"):
        steps = json.loads(ev.calls_json)
        answers = [cat.answer(s.get("request_key", "")) for s in steps]
        if study is not None and ev.study != study and not any(a is not None and cat.in_scope(a) for a in answers):
            continue
        n = len(cat.systems)
        cat.systems.append(ev)
        for i, a in enumerate(answers):
            if a is not None:
                cat.system_of[a.event_id].append((n, i))
    cat.recomputed = _published_costs(db)
    return cat
