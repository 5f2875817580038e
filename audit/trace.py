"""One audited row: the row itself, the models it went through with the input rows of each step,
the events behind it and the model calls whose answers it used."""

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from peerlake.audit.keys import SCOPE_COLUMNS, KeySpec, find_row, key_spec
from peerlake.audit.lineage import Lineage, Model, lineage
from peerlake.audit.selection import Selection, select_events
from peerlake.warehouse import EventLog, duckdb_s3

PAPER_COLUMNS = ("paper_id", "subject_id")  # staging calls name the paper subject_id
# Models whose study_id is the study that PAID for a call, not one that uses it: a call replayed for
# another study is still behind that study's numbers, so these are scoped by paper instead.
PAYER_STUDY_MODELS = {"stg_events__llm_calls", "stg_events__retrieval_calls", "fct_llm_calls", "int_call_costs"}


@dataclass
class Step:
    model: Model
    where: str  # the filter, as SQL ("" = every row)
    n_rows: int | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)  # the first few
    error: str | None = None  # e.g. an ephemeral model with no relation


@dataclass
class Audit:
    mart: str
    key: str
    spec: KeySpec
    row: dict
    lineage: Lineage
    selection: Selection
    steps: list[Step]
    call_ids: list[str]  # the llm_call events whose answers the row used, nearest model first


def _literal(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int | float):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def _where(row: dict, columns: set[str], papers: set[str] | None) -> str:
    parts = [f'"{c}" = {_literal(row[c])}' for c in SCOPE_COLUMNS
             if c in columns and row.get(c) is not None]
    if row.get("paper_id") is None and papers is not None and "study_id" not in columns:
        col = next((c for c in PAPER_COLUMNS if c in columns), None)
        if col:
            parts.append(f'"{col}" in ({", ".join(_literal(p) for p in sorted(papers)) or "null"})')
    elif row.get("paper_id") is not None and "paper_id" not in columns and "subject_id" in columns:
        parts.append(f'"subject_id" = {_literal(row["paper_id"])}')
    return " and ".join(parts)


def _step(con: duckdb.DuckDBPyConnection, model: Model, row: dict, papers: set[str] | None,
          limit: int) -> tuple[Step, list[str] | None]:
    cols = [r[0] for r in con.execute("select column_name from information_schema.columns where table_name = ? "
                                      "order by ordinal_position", [model.name]).fetchall()]
    if not cols:
        return Step(model, "", error="no relation in the database (ephemeral, or not built)"), None
    scoped = set(cols) - ({"study_id"} if model.name in PAYER_STUDY_MODELS else set())
    where = _where(row, scoped, papers)
    sql = f'from "{model.name}"' + (f" where {where}" if where else "")
    try:
        n = con.execute(f"select count(*) {sql}").fetchone()[0]
        cur = con.execute(f"select * {sql} limit {int(limit)}")
        step = Step(model, where, n, [d[0] for d in cur.description], cur.fetchall())
        ids = None
        if "llm_call_id" in cols:
            having = " and " if where else " where "
            ids = [r[0] for r in con.execute(
                f"select distinct llm_call_id {sql}{having}llm_call_id is not null order by 1").fetchall()]
        return step, ids
    except duckdb.Error as exc:  # a view whose lake moved, say: the tree still shows the rest
        return Step(model, where, error=str(exc).splitlines()[0]), None


def audit_row(duckdb_path: Path, mart: str, key: str, log: EventLog, manifest: dict,
              limit: int = 5) -> Audit:
    """Find the row, walk its lineage and pick the events behind it."""
    chain = lineage(manifest, mart)
    spec = key_spec(mart, chain.models[0].unique_columns)
    con = duckdb_s3.connect(duckdb_path, read_only=True, lake=log.lake)  # staging steps read the segments
    try:
        row = find_row(con, spec, key)
        selection = select_events(log, row, chain.sources)
        steps, call_ids = [], None
        for model in chain.models:
            step, ids = _step(con, model, row, selection.papers, limit)
            steps.append(step)
            if call_ids is None and ids is not None:
                call_ids = ids  # the nearest model naming calls: the answers the row used
    finally:
        con.close()
    return Audit(mart, key, spec, row, chain, selection, steps, call_ids or [])
