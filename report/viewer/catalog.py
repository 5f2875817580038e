"""What the viewer knows about a lake, read once from the published marts (read-only): every call
(fct_llm_calls), which studies replayed it (fct_call_replays), the judgments that name it
(fct_call_judgments) and the system runs whose steps it answered (fct_call_system_runs). Texts are not
in the marts: a call's request and response are read from the blob store by the keys the marts hold."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

# The published marts the viewer reads (a build publishes them; tests build them into their lakes).
VIEWER_MARTS = ("fct_llm_calls", "fct_call_replays", "fct_call_judgments", "fct_call_system_runs")


class NotPublished(LookupError):
    """No published marts the viewer can read: the message says which build makes them."""


@dataclass(frozen=True)
class Call:
    """One row of fct_llm_calls, named as the llm_call event names its fields."""

    event_id: str
    occurred_at: datetime
    request_key: str
    purpose: str
    step: str | None
    round: int | None
    subject_id: str | None
    sample_index: int | None
    reviewer_config: str
    provider: str
    model: str
    endpoint: str | None
    prompt_template: str | None
    prompt_hash: str | None
    params_json: str | None
    status: str
    attempt: int
    error_type: str | None
    error_message: str | None
    finish_reason: str | None
    input_tokens: int | None
    cached_input_tokens: int | None
    cache_write_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None
    cost_usd: float | None
    cost_status: str
    price_table_version: str | None
    recomputed_cost_usd: float | None
    recomputed_cost_status: str | None
    is_duplicate_success: bool
    latency_ms: float
    study: str | None
    dagster_run_id: str | None
    asset: str | None
    request_sha256: str | None
    response_sha256: str | None


# fct_llm_calls' column for each Call field (the same name unless said here)
_CALL_COLUMNS = {"event_id": "llm_call_id", "step": "system_step", "round": "system_round", "study": "study_id"}


@dataclass(frozen=True)
class Judgment:
    """One row of fct_call_judgments."""

    judgment_id: str
    recorded_at: datetime
    judge: str
    step: str
    judge_config: str
    subject_key: str
    paper_id: str | None
    repeat: int
    status: str
    null_reason: str | None
    units_json: str | None
    call_ids: tuple[str, ...]
    study: str | None
    # the judged review, when the subject is one: its source, system, sample, the event holding it, the
    # body blob of an imported one, and whether an imported one's offsets were annotated
    review_source: str | None
    review_system: str | None
    review_sample_index: int | None
    review_event_id: str | None
    review_body_sha256: str | None
    is_review_annotated: bool


@dataclass(frozen=True)
class SystemRun:
    """One row of fct_call_system_runs; steps as the mart lists them, in the order made."""

    system_review_id: str
    recorded_at: datetime
    system: str
    system_config: str
    paper_id: str
    sample_index: int
    provider: str
    model: str
    status: str
    null_reason: str | None
    score: float | None
    score_scale: str | None
    confidence: float | None
    options_json: str | None
    review_json: str | None
    study: str | None
    steps: tuple[dict, ...]


@dataclass
class Catalog:
    calls: dict[str, Call] = field(default_factory=dict)  # llm_call id -> call
    by_request: dict[str, list[Call]] = field(default_factory=lambda: defaultdict(list))  # attempts, in order
    answers: dict[str, Call] = field(default_factory=dict)  # request_key -> the first ok answer
    replayed_in: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # call id -> studies
    judgments: list[Judgment] = field(default_factory=list)  # by recorded_at
    judged_by: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # call id -> judgment nos
    systems: list[SystemRun] = field(default_factory=list)  # by recorded_at
    system_of: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))  # call -> (n, i)
    study: str | None = None

    def answer(self, request_key: str) -> Call | None:
        """The ok call that answered a request (the first, as every replay returns it)."""
        return self.answers.get(request_key)

    def in_scope(self, call: Call) -> bool:
        return self.study is None or call.study == self.study or self.study in self.replayed_in.get(call.event_id, ())


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _calls(con) -> list[Call]:
    cols = ", ".join(f'{_CALL_COLUMNS.get(f, f)} as "{f}"' for f in Call.__dataclass_fields__)
    return [Call(**r) for r in _rows(con, f"select {cols} from fct_llm_calls order by occurred_at, llm_call_id")]


def _judgments(con) -> list[Judgment]:
    rows = _rows(con, "select judgment_id, recorded_at, judge, step, judge_config, subject_key, paper_id, "
                      "repeat_index as repeat, status, null_reason, cast(units as varchar) as units_json, "
                      "llm_call_ids as call_ids, recorded_for_study as study, review_source, review_system, "
                      "review_sample_index, review_event_id, review_body_sha256, is_review_annotated "
                      "from fct_call_judgments order by recorded_at, judgment_id")
    return [Judgment(**{**r, "call_ids": tuple(r["call_ids"] or ())}) for r in rows]


def _systems(con) -> list[SystemRun]:
    rows = _rows(con, "select system_review_id, recorded_at, system_name as system, system_config, paper_id, "
                      "sample_index, provider, model, status, null_reason, score, score_scale, confidence, "
                      "cast(options as varchar) as options_json, cast(review as varchar) as review_json, "
                      "recorded_for_study as study, steps "
                      "from fct_call_system_runs order by recorded_at, system_review_id")
    return [SystemRun(**{**r, "steps": tuple(r["steps"] or ())}) for r in rows]


def _published(db: Path | None) -> duckdb.DuckDBPyConnection:
    if db is None or not Path(db).is_file():
        raise NotPublished(f"nothing is published yet (no {db}): run `peerlake build`, or `peerlake run STUDY`, "
                           "and the viewer shows the calls the published marts hold")
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error as exc:
        raise NotPublished(f"the published marts ({db}) cannot be opened: {exc}") from None
    present = {r[0] for r in con.execute("select table_name from information_schema.tables "
                                         "where table_schema = 'main'").fetchall()}
    if missing := [m for m in VIEWER_MARTS if m not in present]:
        con.close()
        raise NotPublished(f"the published marts ({db}) lack {', '.join(missing)}, which the call viewer reads "
                           "(published by an older build): run `peerlake build`")
    return con


def load_catalog(db: Path | None, study: str | None = None) -> Catalog:
    """The published calls, replays, judgments and system runs (NotPublished when there are none)."""
    con = _published(db)
    try:
        calls, judgments, systems = _calls(con), _judgments(con), _systems(con)
        replays = con.execute("select llm_call_id, study_id from fct_call_replays").fetchall()
    finally:
        con.close()
    cat = Catalog(study=study)
    for c in calls:  # in (occurred_at, id) order: the attempts at a request in the order made
        cat.calls[c.event_id] = c
        cat.by_request[c.request_key].append(c)
        if c.status == "ok" and not c.is_duplicate_success:
            cat.answers.setdefault(c.request_key, c)
    for call_id, replaying_study in replays:
        cat.replayed_in[call_id].add(replaying_study)
    for j in judgments:
        ids = [i for i in j.call_ids if i in cat.calls]
        if study is not None and j.study != study and not any(cat.in_scope(cat.calls[i]) for i in ids):
            continue
        n = len(cat.judgments)
        cat.judgments.append(j)
        for i in ids:
            cat.judged_by[i].append(n)
    for s in systems:
        answered = [st.get("llm_call_id") for st in s.steps]
        if study is not None and s.study != study and not any(
                a in cat.calls and cat.in_scope(cat.calls[a]) for a in answered):
            continue
        n = len(cat.systems)
        cat.systems.append(s)
        for i, a in enumerate(answered):
            if a in cat.calls:
                cat.system_of[a].append((n, i))
    return cat
