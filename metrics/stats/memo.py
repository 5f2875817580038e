"""Recompute a whole-sample statistic only for the keys whose inputs changed.

The reliability tables are computed per (study, reviewer configuration) from that key's rows alone
(its scores, its papers' venue-years). Each output row carries `input_hash`: SHA-256 over the code
of metrics.stats and the key's input rows (sorted, so their order does not matter). A build reads
the table it is replacing (the candidate starts as a copy of the audited, published file —
warehouse.publish), keeps the rows of every key whose hash is unchanged — chosen and copied in DuckDB,
so a dbt model given `session` returns a relation and the kept rows never pass through pandas — and
computes the rest. The result is the table a full recompute gives, row for row: the statistics are
deterministic functions of exactly the hashed inputs (bootstrap draws are seeded). A change to any
metrics/stats module changes every hash, so new code never meets old rows. A model reading a large input hashes it in
DuckDB instead (recompute_changed_relation): a build where no key changed reads none of its rows.
"""

import hashlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

HASH_COLUMN = "input_hash"


@cache
def code_version() -> str:
    """SHA-256 over the metrics.stats sources: the code every memoized table is computed by."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def source_version(*modules) -> str:
    """SHA-256 over the source files of other modules a memoized table is computed by (salt)."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(Path(module.__file__).read_bytes() + b"\0")
    return digest.hexdigest()


def input_hashes(inputs: pd.DataFrame, keys: list[str], salt: str = "",
                 columns: list[str] | None = None) -> dict[tuple, str]:
    """key → SHA-256 of the code version, `salt` (the caller's settings) and the key's rows
    (their `columns`, default every column but the keys)."""
    if inputs.empty:
        return {}
    columns = [c for c in inputs.columns if c not in keys] if columns is None else columns
    # each row's hash, then the rows sorted by (key, row hash): the same rows in any order hash alike
    hashed = inputs[keys].assign(_row=pd.util.hash_pandas_object(inputs[columns], index=False).to_numpy())
    ordered = hashed.sort_values([*keys, "_row"], na_position="first")
    row_hash = ordered["_row"].to_numpy()
    key_values = [ordered[k].to_numpy(dtype=object) for k in keys]
    changed = np.zeros(len(ordered), dtype=bool)
    changed[0] = True
    for col in key_values:
        changed[1:] |= col[1:] != col[:-1]
    starts = np.flatnonzero(changed)
    out = {}
    for start, part in zip(starts.tolist(), np.split(row_hash, starts[1:]), strict=True):
        digest = hashlib.sha256(f"{code_version()}|{salt}|{','.join(columns)}".encode())
        digest.update(part.tobytes())
        out[tuple(col[start] for col in key_values)] = digest.hexdigest()
    return out


def previous_table(session, relation):
    """The table this build replaces (dbt.this) as a relation on `session`, rows in stored order and
    nothing read yet; None on a first build or a fresh candidate."""
    try:
        return session.sql(f"select *, rowid as {_ROW} from {relation}")
    except duckdb.Error:  # no such table yet (CatalogException): nothing to reuse
        return None


def recompute_changed(inputs: pd.DataFrame, keys: list[str], compute: Callable[[pd.DataFrame], pd.DataFrame],
                      previous, salt: str = "", hash_columns: list[str] | None = None, session=None):
    """compute(inputs) with an input_hash column, reusing `previous` rows of unchanged keys.

    `compute` must treat keys independently (each output row belongs to one key and depends only on
    that key's input rows) and give typed columns on an empty input. `hash_columns` (default: all
    but the keys) must determine the result; `salt` carries settings and other code versions.
    `previous`: previous_table's relation (or a frame). With `session` (a dbt model's connection)
    the result is a relation on it, else a frame."""
    hashes = input_hashes(inputs, keys, salt, hash_columns)

    def rows_of(changed: set[tuple]) -> pd.DataFrame:
        mask = np.array([k in changed for k in zip(*(inputs[k].to_numpy(dtype=object) for k in keys),
                                                    strict=True)], dtype=bool)
        return inputs[mask]

    return _combine(hashes, keys, compute, previous, rows_of, inputs.iloc[:0], session)


def relation_hashes(relation, keys: list[str], salt: str = "", columns: list[str] | None = None) -> dict[tuple, str]:
    """input_hashes of a DuckDB relation, computed in DuckDB: nothing is loaded into pandas.

    Each row is hashed as MD5 of its JSON (NULLs and types kept apart); a key's rows are folded by
    summing the two 64-bit halves of their hashes (a sum: the same rows in any order fold alike, a
    repeated row counts twice), then SHA-256 of the code version, `salt`, the columns, the row count
    and the two sums. Not the same digests as input_hashes (a table moving between the two recomputes
    once)."""
    columns = [c for c in relation.columns if c not in keys] if columns is None else columns

    def ident(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    prefix = f"{code_version()}|{salt}|{','.join(columns)}".replace("'", "''")
    row = "to_json(struct_pack(" + ", ".join(f"{ident(c)} := {ident(c)}" for c in columns) + "))"
    key_list = ", ".join(ident(k) for k in keys)
    sql = (f"select {key_list}, sha256('{prefix}|' || count(*) || '|' || sum(md5_number_upper(h)) || '|' "
           f"|| sum(md5_number_lower(h))) from (select {key_list}, {row} as h from inputs) group by all")
    return {tuple(r[:-1]): r[-1] for r in relation.query("inputs", sql).fetchall()}


def recompute_changed_relation(relation, keys: list[str], compute: Callable[[pd.DataFrame], pd.DataFrame],
                               previous, salt: str = "", hash_columns: list[str] | None = None, rows=None,
                               load: Callable | None = None, session=None):
    """recompute_changed over a DuckDB relation (dbt.ref(…)): the inputs are hashed per key in DuckDB
    (relation_hashes), and only the rows of keys whose hash changed are loaded into pandas and passed
    to `compute`; when no key changed, nothing is loaded. `rows` (default `relation`, with the same
    keys) is what the changed keys' rows are read from, when compute needs other columns than the hash.
    `load` turns the relation of those rows into compute's argument (default: every column into
    pandas; coded_frame reads fewer bytes per row); it is also called on the relation's empty head."""
    rows = relation if rows is None else rows
    load = (lambda rel: rel.df()) if load is None else load
    hashes = relation_hashes(relation, keys, salt, hash_columns)

    def rows_of(changed: set[tuple]):
        if len(changed) == len(hashes):
            return load(rows)  # a first build: every key, no filter

        def literal(v) -> str:
            return "null" if v is None else "'" + str(v).replace("'", "''") + "'"

        # a semi join with the changed keys: thousands of papers would make an OR of conditions slow
        values = ", ".join("(" + ", ".join(literal(v) for v in key) + ")" for key in sorted(changed, key=str))
        names = ", ".join(f"k{i}" for i in range(len(keys)))
        match = " and ".join(f'inputs."{k}"::varchar is not distinct from changed.k{i}' for i, k in enumerate(keys))
        return load(rows.query("inputs", f"select inputs.* from inputs semi join (values {values}) "
                                         f"as changed({names}) on {match}"))

    return _combine(hashes, keys, compute, previous, rows_of, load(rows.limit(0)), session)


def coded_frame(relation, categorical: list[str] = (), ordinal: list[str] = ()) -> pd.DataFrame:
    """The relation in pandas with its `categorical` columns as pandas categoricals and its `ordinal`
    columns as int32 codes, both coded in DuckDB: ~4 bytes a row for a column that would be a Python
    string each (a review id at 6 M item rows is ~0.5 GB as strings). Categories and codes follow
    DuckDB's byte order of the values, which is Python's order of str (UTF-8 keeps code-point order),
    so sorting by a coded column sorts as by its values. Coded columns hold no NULL."""
    def ident(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    coded = [*categorical, *ordinal]
    dicts = [f"d{i} as (select v, (row_number() over (order by v) - 1)::integer as code "
             f"from (select distinct {ident(c)} as v from inputs))" for i, c in enumerate(coded)]
    select = ", ".join(f"d{coded.index(c)}.code as {ident(c)}" if c in coded else f"inputs.{ident(c)}"
                       for c in relation.columns)
    joins = " ".join(f"join d{i} on inputs.{ident(c)} is not distinct from d{i}.v" for i, c in enumerate(coded))
    with_ = f"with {', '.join(dicts)} " if dicts else ""
    frame = relation.query("inputs", f"{with_}select {select} from inputs {joins}").df()
    for c in categorical:
        in_order = relation.query("inputs", f"select distinct {ident(c)} from inputs order by 1")
        names = [r[0] for r in in_order.fetchall()]
        if names != sorted(names):  # a collation other than bytes would break "sorts as by its values"
            raise ValueError(f"coded_frame: DuckDB does not order {c} as Python does")
        frame[c] = pd.Categorical.from_codes(frame[c].to_numpy(), categories=pd.Index(names, dtype=object))
    return frame


def _combine(hashes: dict[tuple, str], keys: list[str], compute: Callable[[pd.DataFrame], pd.DataFrame],
             previous, rows_of: Callable[[set[tuple]], pd.DataFrame], empty: pd.DataFrame, session):
    """The rows of `previous` whose key's hash is unchanged, and compute() of the other keys' rows.

    The kept rows are chosen and written in DuckDB (a semi join of `previous` with the current
    hashes): at 1 M reviews a per-paper table is millions of rows, and a build that changes a few
    papers should not carry the rest through pandas. With `session` the result is a DuckDB relation
    on it (what a dbt Python model returns, so the rows go from the old table to the new one without
    leaving DuckDB); without, a frame computed on a private connection."""
    con = duckdb.connect() if session is None else session
    schema = compute(empty)
    columns = [*schema.columns, HASH_COLUMN]
    previous = _as_previous(con, previous, session is None)
    reusable = previous is not None and [c for c in previous.columns if c != _ROW] == columns
    names = [f"k{i}" for i in range(len(keys))]
    changed_keys = set(hashes)
    kept = None
    if reusable:
        listed = list(hashes.items())
        current = con.from_df(pd.DataFrame([(*k, h) for k, h in listed], columns=[*names, "h"], dtype="string")
                              .assign(i=np.arange(len(listed), dtype=np.int64)))
        match = " and ".join(f"p.{_ident(k)}::varchar is not distinct from c.{n}"
                             for k, n in zip(keys, names, strict=True)) + f" and p.{HASH_COLUMN} = c.h"
        kept = previous.set_alias("p").join(current.set_alias("c"), match, how="semi")
        # the keys whose rows are kept, by the same join: a key is either kept or computed, never both
        reused = current.set_alias("c").join(previous.set_alias("p"), match, how="semi").project("i").fetchall()
        changed_keys -= {listed[i][0] for (i,) in reused}
    fresh = compute(rows_of(changed_keys)) if changed_keys else schema
    fresh_key = zip(*(fresh[k].to_numpy(dtype=object) for k in keys), strict=True)
    fresh = fresh.assign(**{HASH_COLUMN: [hashes[k] for k in fresh_key]})
    fresh = fresh.astype({**schema.dtypes.to_dict(), HASH_COLUMN: "string"})[columns]
    # Order: by key, a key's rows in the order compute gave them (the kept ones: as the previous build
    # wrote them, which was that order). A key is either kept or fresh, never both.
    select = ", ".join(_ident(c) for c in columns)
    out = con.from_df(fresh.assign(**{_ROW: np.arange(len(fresh), dtype=np.int64)}))
    if kept is not None:
        out = kept.project(f"{select}, {_ROW}").union(out.project(f"{select}, {_ROW}"))
    out = out.order(", ".join([*(_ident(k) for k in keys), _ROW])).project(select)
    if session is not None:
        return out
    return out.df().astype({**schema.dtypes.to_dict(), HASH_COLUMN: "string"})


_ROW = "_memo_row"  # a previous row's place in its table: within a key, rows keep the order compute gave


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _as_previous(con, previous, private: bool):
    """`previous` (None, a frame, or a relation from previous_table) as a relation on `con` with its
    row order in the _ROW column."""
    if previous is None:
        return None
    if isinstance(previous, duckdb.DuckDBPyRelation):
        if not private and _ROW in previous.columns:
            return previous
        previous = previous.df()  # a relation of another connection (the caller gave no session): read it
    if _ROW not in previous.columns:
        previous = previous.assign(**{_ROW: np.arange(len(previous), dtype=np.int64)})
    return con.from_df(previous)
