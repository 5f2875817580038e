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
- **not compared**: a column in one build only, or whose type changed (the row still matches on the rest).
"""

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from peerlake.audit.keys import HASHED_KEYS, PRIMARY_KEYS
from peerlake.warehouse import builds
from peerlake.warehouse.builds import quote

RELATIVE_TOLERANCE = 1e-9
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
    key = next((list(k) for k in (new.key, old.key) if k and set(k) <= set(compared)), compared)
    (out.rows_old, old_unique), (out.rows_new, new_unique) = _count(con, old.sql, key), _count(con, new.sql, key)
    if key != compared and not (old_unique and new_unique):
        out.key_note = f"{' | '.join(key)} is not unique in both builds: whole rows matched"
        key = compared
    out.key = key
    idx = {c: i for i, c in enumerate(compared)}

    def side(sql: str) -> str:
        return "select true as _present, " + ", ".join(f"{quote(c)} as c{i}" for c, i in idx.items()) + \
            f" from ({sql})"

    values = [c for c in compared if c not in key]
    changed = [f"case when {_differs(new_types[c], f'o.c{idx[c]}', f'n.c{idx[c]}')} then "
               f"{{'column': {builds.literal(c)}, 'old': cast(o.c{idx[c]} as varchar), "
               f"'new': cast(n.c{idx[c]} as varchar)}} end" for c in values]
    moved = [f"case when n.c{idx[e]} < o.c{idx[lo]} or n.c{idx[e]} > o.c{idx[hi]} then "
             f"{{'column': {builds.literal(e)}, 'old': o.c{idx[e]}::double, 'new': n.c{idx[e]}::double, "
             f"'old_low': o.c{idx[lo]}::double, 'old_high': o.c{idx[hi]}::double}} end"
             for e, lo, hi in intervals(compared) if {e, lo, hi} <= set(values)]
    key_text = "concat_ws('|', " + ", ".join(f"cast(coalesce(n.c{idx[k]}, o.c{idx[k]}) as varchar)" for k in key) + ")"
    on = " and ".join(f"o.c{idx[k]} is not distinct from n.c{idx[k]}" for k in key) or "true"
    con.execute(f"""create or replace temp table _diff as
        select * from (
            select {key_text} as key, o._present is not null as in_old, n._present is not null as in_new,
                   {_present(changed, CHANGE)} as changes, {_present(moved, MOVE)} as moves
            from ({side(old.sql)}) o full outer join ({side(new.sql)}) n on {on})
        where not (in_old and in_new) or len(changes) > 0""")
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


class MartUnknown(LookupError):
    """A --mart neither build has; the message lists the marts they have."""


def compare_published(lake, which: str, marts: Sequence[str] | None = None, limit: int = 10) -> dict:
    """The published file against kept build `which` (warehouse.builds.resolve: BuildUnknown), as
    {"old": {build_id, published_at, chain_head_seq}, "new": {path, build_id}, "marts": [MartDiff.as_dict()]}
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
        diffs = diff_builds(current.con, snapshot_side(lake, record), published_side(current.con, sorted(names)),
                            [m for m in wanted if m not in same], limit)
    diffs += [MartDiff(m, "compared", list(now["marts"][m]["key"]), rows_old=n, rows_new=n) for m, n in same.items()]
    diffs.sort(key=lambda d: d.mart)
    return {"old": {k: record.get(k) for k in ("build_id", "published_at", "chain_head_seq")},
            "new": {"path": str(lake.duckdb_path), "build_id": now["build_id"] if now else None,
                    "chain_head_seq": now.get("chain_head_seq") if now else None},
            "marts": [d.as_dict() for d in diffs]}
