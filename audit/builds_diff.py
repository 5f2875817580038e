"""What changed between two builds' marts, mart by mart and key by key (`peerlake diff --build`).

Pure over two sides, each a SELECT per mart on one DuckDB connection: a kept build's Parquet chunks
(`snapshot_side`, warehouse/builds.py) or the published file's tables (`published_side`). Per mart:

- rows are matched on the mart's key (`key_columns`: audit.keys' HASHED_KEYS, its readable primary key,
  else the first `_id` column); a key that is not unique on either side matches whole rows instead, so
  such a mart has only added and removed rows;
- **added** / **removed**: a key on one side only;
- **changed**: a key on both sides with some compared column differing (DOUBLE, FLOAT and DECIMAL
  beyond 1e-9 relative to the larger magnitude, since DuckDB's parallel sums add in no fixed order;
  anything else exactly; a null against a value, or NaN against a number, differs);
- **moved**: a changed row whose new estimate lies outside the old row's own interval. The intervals
  recognized (`intervals`): `<x>_ci_low`/`<x>_ci_high` around `<x>`, else `<x>_mean`, `<x>_shift` or
  `<x>_diff` (`s_ci_*` → `s_mean`, `drift_ci_*` → `drift_shift`, `naive_ci_*` → `naive_diff`);
  bare `ci_low`/`ci_high` around the first of `estimate`, `mean_diff`, `mean_gain`, `shift`,
  `rho_adj`; `wilson_lo`/`wilson_hi` around `accuracy` or `rate`;
- **not compared**: a column in one build only, or whose type changed (the row still matches on the rest);
  and the BOOKKEEPING columns, which say how a build ran (embeddings computed or read from the cache).

What explains it (`since`, `explain`): the calls the new build has and the old one has not (fct_llm_calls
by `llm_call_id`) and the replays it counts anew (fct_call_replays), per prompt template and prompt hash,
each hash flagged new when no call of the old build has it (a template edit shows as a new hash of its
template). A differing mart is explained by the groups of the prompt templates and hashes its differing
rows name (a mart keyed by them, such as cost_by_model, or naming their calls' `llm_call_id`), else by the
groups with new calls of the studies its differing rows belong to (its `study_id`; groups of replays
only when no new call reaches it: a replay serves an answer the old build had), else likewise over every
study (`lake_wide`: the mart names no study).
"""

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from peerlake.audit.keys import HASHED_KEYS, PRIMARY_KEYS
from peerlake.warehouse import builds
from peerlake.warehouse.builds import quote

RELATIVE_TOLERANCE = 1e-9
# Columns that say how a build ran, not what it found: never a difference (listed in `bookkeeping`). An
# embedding computed in one build is read from the cache in the next, with the same vectors.
BOOKKEEPING = ("n_embeddings_computed", "n_embeddings_cached")
MAX_CALLS = 100_000  # the differing rows' call ids kept to name their templates (a rebuild at 1 M calls adds 10 k)
TOLERANT_TYPES = re.compile(r"^(DOUBLE|FLOAT|REAL|DECIMAL.*)$")
BARE_ESTIMATES = ("estimate", "mean_diff", "mean_gain", "shift", "rho_adj")
WILSON_ESTIMATES = ("accuracy", "rate")
PREFIX_SUFFIXES = ("", "_mean", "_shift", "_diff")


def key_columns(mart: str, columns: Sequence[str]) -> list[str]:
    """The columns a mart's rows are matched (and its snapshot ordered) by."""
    present = set(columns)
    if mart in HASHED_KEYS and set(HASHED_KEYS[mart]) <= present:
        return list(HASHED_KEYS[mart])
    if PRIMARY_KEYS.get(mart) in present:
        return [PRIMARY_KEYS[mart]]
    return builds.default_key(mart, columns)


def intervals(columns: Sequence[str]) -> list[tuple[str, str, str]]:
    """(estimate, low, high) for each interval the columns hold whose estimate is found (module docstring)."""
    have, out = set(columns), []

    def first(*names: str) -> str | None:
        return next((n for n in names if n in have), None)

    for col in columns:
        if col == "ci_low" and "ci_high" in have:
            est = first(*BARE_ESTIMATES)
            high = "ci_high"
        elif col.endswith("_ci_low") and col[:-len("_ci_low")] + "_ci_high" in have:
            prefix = col[:-len("_ci_low")]
            est, high = first(*(prefix + s for s in PREFIX_SUFFIXES)), prefix + "_ci_high"
        elif col == "wilson_lo" and "wilson_hi" in have:
            est, high = first(*WILSON_ESTIMATES), "wilson_hi"
        else:
            continue
        if est:
            out.append((est, col, high))
    return out


@dataclass(frozen=True)
class MartSide:
    """One build's mart: a SELECT of its rows, its columns [(name, type)], its key."""

    sql: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]


@dataclass
class MartDiff:
    mart: str
    status: str  # compared | only_old | only_new
    key: list[str] = field(default_factory=list)
    key_note: str | None = None
    rows_old: int = 0
    rows_new: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0
    moved: int = 0
    not_compared: list[dict] = field(default_factory=list)  # {column, why}
    bookkeeping: list[str] = field(default_factory=list)  # BOOKKEEPING columns it has, not compared
    studies: list[str] = field(default_factory=list)  # the study_id of the differing rows, when it has one
    templates: list[dict] = field(default_factory=list)  # {prompt_template, prompt_hash} of the differing rows
    calls: list[str] = field(default_factory=list)  # their llm_call_id (the first MAX_CALLS), when it has one
    explained_by: list[dict] = field(default_factory=list)  # the `since` groups that reach it (explain())
    lake_wide: bool = False  # explained_by is every group: the mart names no study or template
    # added/removed: [key]; changed: [{key, changes: [{column, old, new}]}]; moved: [{key, moves: [{column,
    # old, new, old_low, old_high}]}]; the first `limit` of each by key
    examples: dict = field(default_factory=lambda: {"added": [], "removed": [], "changed": [], "moved": []})

    @property
    def differs(self) -> bool:
        return self.status != "compared" or bool(self.added or self.removed or self.changed or self.not_compared)

    def as_dict(self) -> dict:
        return asdict(self)


def snapshot_side(lake, record: dict) -> dict[str, MartSide]:
    """A kept build's marts (a record of warehouse.builds)."""
    return {name: MartSide(builds.mart_sql(lake, m), tuple((c, t) for c, t in m["columns"]), tuple(m["key"]))
            for name, m in record["marts"].items()}


def published_side(con, marts: Sequence[str] | None = None) -> dict[str, MartSide]:
    """The tables of the database `con` is opened on (the published file), those named in `marts` or
    every one not named int_/stg_."""
    cols: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in con.execute(
            "select table_name, column_name, data_type from duckdb_columns() c join duckdb_tables() t "
            "using (database_name, schema_name, table_name) where c.database_name = current_database() "
            "and c.schema_name = 'main' and not t.temporary order by table_name, column_index").fetchall():
        cols.setdefault(table, []).append((column, kind))
    names = [n for n in cols if (n in set(marts) if marts is not None else not n.startswith(("int_", "stg_")))]
    return {n: MartSide(f"select * from main.{quote(n)}", tuple(cols[n]),
                        tuple(key_columns(n, [c for c, _ in cols[n]]))) for n in names}


def _differs(kind: str, a: str, b: str) -> str:
    if TOLERANT_TYPES.match(kind):
        return (f"({a} is distinct from {b} and not coalesce(abs({a} - {b}) <= "
                f"{RELATIVE_TOLERANCE} * greatest(abs({a}), abs({b})), false))")
    return f"({a} is distinct from {b})"


CHANGE = 'struct("column" varchar, old varchar, new varchar)'
MOVE = 'struct("column" varchar, old double, new double, old_low double, old_high double)'


def _present(items: list[str], kind: str) -> str:
    """A list of the non-null values of `items` (SQL expressions of type `kind`)."""
    return f"list_filter([{', '.join(items)}], lambda x: x is not null)" if items else f"[]::{kind}[]"


def _count(con, sql: str, key: Sequence[str]) -> tuple[int, bool]:
    """The rows of a side, and whether `key` is unique in them."""
    cols = ", ".join(quote(k) for k in key)
    n, distinct = con.execute(f"select count(*), count(distinct row({cols})) from ({sql})").fetchone()
    return n, n == distinct


def diff_mart(con, name: str, old: MartSide | None, new: MartSide | None, limit: int = 10) -> MartDiff:
    """Compare one mart's two sides on `con` (module docstring)."""
    if old is None or new is None:
        side = old or new
        rows = con.execute(f"select count(*) from ({side.sql})").fetchone()[0]
        return MartDiff(name, "only_new" if old is None else "only_old", list(side.key),
                        rows_old=0 if old is None else rows, rows_new=rows if old is None else 0)
    old_types, new_types = dict(old.columns), dict(new.columns)
    compared = [c for c, _ in new.columns if old_types.get(c) == new_types[c]]
    not_compared = [{"column": c, "why": f"type {old_types[c]} → {new_types[c]}"} for c, _ in new.columns
                    if c in old_types and old_types[c] != new_types[c]]
    not_compared += [{"column": c, "why": "only in the new build"} for c, _ in new.columns if c not in old_types]
    not_compared += [{"column": c, "why": "only in the old build"} for c, _ in old.columns if c not in new_types]
    out = MartDiff(name, "compared", not_compared=not_compared)
    if not compared:
        out.key_note = "no column is in both builds with one type: rows not compared"
        return out
    whole = [c for c in compared if c not in BOOKKEEPING] or compared  # a whole row, as far as it is a figure
    key = next((list(k) for k in (new.key, old.key) if k and set(k) <= set(compared)), whole)
    (out.rows_old, old_unique), (out.rows_new, new_unique) = _count(con, old.sql, key), _count(con, new.sql, key)
    if key != whole and not (old_unique and new_unique):
        out.key_note = f"{' | '.join(key)} is not unique in both builds: whole rows matched"
        key = whole
    out.key = key
    idx = {c: i for i, c in enumerate(compared)}

    def side(sql: str) -> str:
        return "select true as _present, " + ", ".join(f"{quote(c)} as c{i}" for c, i in idx.items()) + \
            f" from ({sql})"

    out.bookkeeping = [c for c in compared if c in BOOKKEEPING]
    values = [c for c in compared if c not in key and c not in BOOKKEEPING]
    changed = [f"case when {_differs(new_types[c], f'o.c{idx[c]}', f'n.c{idx[c]}')} then "
               f"{{'column': {builds.literal(c)}, 'old': cast(o.c{idx[c]} as varchar), "
               f"'new': cast(n.c{idx[c]} as varchar)}} end" for c in values]
    moved = [f"case when n.c{idx[e]} < o.c{idx[lo]} or n.c{idx[e]} > o.c{idx[hi]} then "
             f"{{'column': {builds.literal(e)}, 'old': o.c{idx[e]}::double, 'new': n.c{idx[e]}::double, "
             f"'old_low': o.c{idx[lo]}::double, 'old_high': o.c{idx[hi]}::double}} end"
             for e, lo, hi in intervals(compared) if {e, lo, hi} <= set(values)]
    key_text = "concat_ws('|', " + ", ".join(f"cast(coalesce(n.c{idx[k]}, o.c{idx[k]}) as varchar)" for k in key) + ")"
    on = " and ".join(f"o.c{idx[k]} is not distinct from n.c{idx[k]}" for k in key) or "true"
    def either(column: str) -> str:
        return f"coalesce(n.c{idx[column]}, o.c{idx[column]})::varchar" if column in idx else "null::varchar"

    con.execute(f"""create or replace temp table _diff as
        select * from (
            select {key_text} as key, o._present is not null as in_old, n._present is not null as in_new,
                   {_present(changed, CHANGE)} as changes, {_present(moved, MOVE)} as moves,
                   {either('study_id')} as study, {either('prompt_template')} as template,
                   {either('prompt_hash')} as hash, {either('llm_call_id')} as call
            from ({side(old.sql)}) o full outer join ({side(new.sql)}) n on {on})
        where not (in_old and in_new) or len(changes) > 0""")
    out.studies = [r[0] for r in con.execute(
        "select distinct study from _diff where study is not null order by 1").fetchall()]
    out.templates = [{"prompt_template": t, "prompt_hash": h} for t, h in con.execute(
        "select distinct template, hash from _diff where template is not null and hash is not null "
        "order by 1, 2").fetchall()]
    if "llm_call_id" in idx:
        out.calls = [r[0] for r in con.execute("select distinct call from _diff where call is not null "
                                               f"order by 1 limit {MAX_CALLS}").fetchall()]
    kinds = {"added": ("not in_old", "key"), "removed": ("not in_new", "key"),
             "changed": ("in_old and in_new", "{'key': key, 'changes': changes}"),
             "moved": ("len(moves) > 0", "{'key': key, 'moves': moves}")}
    found = con.execute("select " + ", ".join(
        f"count(*) filter (where {where}), list({what} order by key) filter (where {where})[1:{limit}]"
        for where, what in kinds.values()) + " from _diff").fetchone()
    out.added, out.removed, out.changed, out.moved = found[0::2]
    out.examples = {kind: examples or [] for kind, examples in zip(kinds, found[1::2], strict=True)}
    con.execute("drop table _diff")
    return out


def diff_builds(con, old: dict[str, MartSide], new: dict[str, MartSide], marts: Sequence[str] | None = None,
                limit: int = 10) -> list[MartDiff]:
    """Every mart of either side (or those in `marts`), compared on `con`, by name."""
    names = sorted(set(old) | set(new)) if marts is None else list(marts)
    return [diff_mart(con, n, old.get(n), new.get(n), limit) for n in names]


CALL_COLUMNS = {"llm_call_id", "prompt_template", "prompt_hash", "study_id"}
REPLAY_COLUMNS = {"call_replay_id", "llm_call_id", "study_id", "n_replays"}


def _has(side: dict[str, MartSide], mart: str, columns: set[str]) -> bool:
    return mart in side and columns <= {c for c, _ in side[mart].columns}


def since(con, old: dict[str, MartSide], new: dict[str, MartSide]) -> dict:
    """The calls and replays the new side counts that the old does not, per prompt template and hash:
    {"groups": [{prompt_template, prompt_hash, new_hash, hashes_before, calls, replays, studies}], "note"}."""
    if not (_has(old, "fct_llm_calls", CALL_COLUMNS) and _has(new, "fct_llm_calls", CALL_COLUMNS)):
        return {"groups": [], "note": "fct_llm_calls is not in both builds with its ids: the events behind "
                                      "the changes are not named"}
    replays = ""
    if _has(old, "fct_call_replays", REPLAY_COLUMNS) and _has(new, "fct_call_replays", REPLAY_COLUMNS):
        # a replay row is keyed by call and study; a rise in its count is as new as a new row
        replays = f"""union all
            select c.prompt_template, c.prompt_hash, r.study_id, 0 as calls,
                   r.n_replays - coalesce(o.n_replays, 0) as replays
            from ({new["fct_call_replays"].sql}) r
            left join ({old["fct_call_replays"].sql}) o using (call_replay_id)
            join new_calls_all c on c.llm_call_id = r.llm_call_id
            where r.n_replays > coalesce(o.n_replays, 0)"""
    rows = con.execute(f"""
        with new_calls_all as (select llm_call_id, prompt_template, prompt_hash, study_id
                               from ({new["fct_llm_calls"].sql})),
             old_calls as (select llm_call_id, prompt_template, prompt_hash from ({old["fct_llm_calls"].sql})),
             arrived as (
                select n.prompt_template, n.prompt_hash, n.study_id, 1 as calls, 0 as replays
                from new_calls_all n anti join old_calls o using (llm_call_id)
                {replays})
        select a.prompt_template, a.prompt_hash,
               a.prompt_hash not in (select prompt_hash from old_calls where prompt_hash is not null) as new_hash,
               (select list(distinct o.prompt_hash order by o.prompt_hash) from old_calls o
                where o.prompt_template = a.prompt_template and o.prompt_hash is distinct from a.prompt_hash)
                   as hashes_before,
               sum(a.calls)::bigint as calls, sum(a.replays)::bigint as replays,
               list(distinct a.study_id order by a.study_id) filter (where a.study_id is not null) as studies
        from arrived a
        group by a.prompt_template, a.prompt_hash
        order by a.prompt_template nulls last, a.prompt_hash""").fetchall()
    names = ("prompt_template", "prompt_hash", "new_hash", "hashes_before", "calls", "replays", "studies")
    groups = [dict(zip(names, r, strict=True)) for r in rows]
    for g in groups:
        g["hashes_before"], g["studies"] = g["hashes_before"] or [], g["studies"] or []
    return {"groups": groups, "note": None}


def call_templates(con, new: dict[str, MartSide], diffs: Sequence[MartDiff]) -> None:
    """A differing mart that names its rows' calls (llm_call_id) names their templates and hashes too."""
    if not _has(new, "fct_llm_calls", CALL_COLUMNS):
        return
    for d in diffs:
        if d.calls and not d.templates:
            d.templates = [{"prompt_template": t, "prompt_hash": h} for t, h in con.execute(
                f"""select distinct prompt_template, prompt_hash from ({new["fct_llm_calls"].sql})
                    where list_contains(?, llm_call_id) and prompt_template is not null order by 1, 2""",
                [d.calls]).fetchall()]


def explain(diffs: Sequence[MartDiff], groups: Sequence[dict]) -> None:
    """Set each differing mart's `explained_by` from `since` groups (module docstring)."""
    for d in diffs:
        if not d.differs or not groups:
            continue
        pairs = {(t["prompt_template"], t["prompt_hash"]) for t in d.templates}
        if pairs:
            chosen = [g for g in groups if (g["prompt_template"], g["prompt_hash"]) in pairs]
        else:
            # a replay serves an answer the old build had: it explains a mart by study only where no new call does
            reach = [g for g in groups if not d.studies or set(g["studies"]) & set(d.studies)]
            chosen = [g for g in reach if g["calls"]] or reach
            d.lake_wide = not d.studies
        d.explained_by = [{"prompt_template": g["prompt_template"], "prompt_hash": g["prompt_hash"],
                           "new_hash": g["new_hash"]} for g in chosen]


class MartUnknown(LookupError):
    """A --mart neither build has; the message lists the marts they have."""


def compare_published(lake, which: str, marts: Sequence[str] | None = None, limit: int = 10) -> dict:
    """The published file against kept build `which` (warehouse.builds.resolve: BuildUnknown), as
    {"old": {build_id, published_at, chain_head_seq}, "new": {path, build_id}, "since": since(),
    "marts": [MartDiff.as_dict()]}
    (warehouse.marts_reader's MartsUnreadable when the published file cannot be read)."""
    from peerlake.warehouse.marts_reader import published

    record = builds.resolve(lake, which)
    now = builds.current(lake)
    names = set(record["marts"]) | set(now["marts"] if now else ())
    if unknown := [m for m in marts or () if m not in names]:
        raise MartUnknown(f"no mart {', '.join(unknown)} in build {record['build_id']} or the published file; "
                          f"marts: {', '.join(sorted(names))}")
    wanted = sorted(marts or names)
    # a mart whose columns and chunks the published file's own record shares with the old build is the
    # same rows (the chunks are named by their rows' hashes): nothing to read
    same = {m: record["marts"][m]["rows"] for m in wanted if now and m in record["marts"] and m in now["marts"]
            and {k: now["marts"][m][k] for k in ("columns", "chunks")} ==
            {k: record["marts"][m][k] for k in ("columns", "chunks")}}
    with published(lake.duckdb_path) as current:
        current.con.execute("set enable_progress_bar = false")
        old_side, new_side = snapshot_side(lake, record), published_side(current.con, sorted(names))
        diffs = diff_builds(current.con, old_side, new_side, [m for m in wanted if m not in same], limit)
        arrived = since(current.con, old_side, new_side)
        call_templates(current.con, new_side, diffs)
    explain(diffs, arrived["groups"])
    diffs += [MartDiff(m, "compared", list(now["marts"][m]["key"]), rows_old=n, rows_new=n) for m, n in same.items()]
    diffs.sort(key=lambda d: d.mart)
    return {"old": {k: record.get(k) for k in ("build_id", "published_at", "chain_head_seq")},
            "new": {"path": str(lake.duckdb_path), "build_id": now["build_id"] if now else None,
                    "chain_head_seq": now.get("chain_head_seq") if now else None},
            "since": arrived, "marts": [d.as_dict() for d in diffs]}
