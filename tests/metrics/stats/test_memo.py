"""Per-key recompute (metrics.stats.memo) gives the table a full recompute gives, and recomputes only
the (study, configuration) keys whose input rows changed."""

import duckdb
import numpy as np
import pandas as pd
import pandas.testing as pdt

from peerlake.metrics.stats.memo import (
    HASH_COLUMN,
    coded_frame,
    input_hashes,
    previous_table,
    recompute_changed,
    recompute_changed_relation,
    relation_hashes,
)
from peerlake.metrics.stats.ranking import rank_table
from peerlake.metrics.stats.repeatability import drift_table

KEYS = ["study_id", "reviewer_config"]


def scores_frame(rng, studies=("s1", "s2"), configs=("A", "B"), papers=12, rounds=4):
    rows = [(s, c, f"P{p:02d}", k, float(rng.integers(3, 8)))
            for s in studies for c in configs for p in range(papers) for k in range(rounds)]
    return pd.DataFrame(rows, columns=["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"])


def counted(compute, calls):
    def run(part):
        calls.append(sorted(set(zip(part["study_id"], part["reviewer_config"], strict=True))))
        return compute(part)
    return run


def test_changed_keys_only_and_the_same_rows_as_a_full_recompute():
    rng = np.random.default_rng(3)
    before = scores_frame(rng)
    context = pd.DataFrame({"paper_id": [f"P{p:02d}" for p in range(14)],
                            "venue_year": ["V1"] * 7 + ["V2"] * 7})
    for compute in (drift_table, lambda part: rank_table(part, context)):
        first = recompute_changed(before, KEYS, compute, None)
        # +1 paper under (s2, B), and a new configuration C in s1; everything else unchanged
        extra = scores_frame(rng, studies=("s2",), configs=("B",), papers=1).assign(paper_id="P13")
        new_cfg = scores_frame(rng, studies=("s1",), configs=("C",))
        after = pd.concat([new_cfg, before.sample(frac=1.0, random_state=1), extra], ignore_index=True)
        calls: list = []
        incremental = recompute_changed(after, KEYS, counted(compute, calls), first)
        full = recompute_changed(after, KEYS, compute, None)
        pdt.assert_frame_equal(incremental, full)
        # one call on the empty frame for the schema, one on exactly the changed keys
        assert calls == [[], [("s1", "C"), ("s2", "B")]]
        assert set(map(tuple, incremental[KEYS].to_numpy())) >= {("s1", "A"), ("s1", "C"), ("s2", "B")}


def test_hash_ignores_row_order_and_sees_any_changed_value():
    rng = np.random.default_rng(4)
    frame = scores_frame(rng)
    h = input_hashes(frame, KEYS)
    assert input_hashes(frame.iloc[::-1], KEYS) == h
    changed = frame.copy()
    changed.loc[3, "overall_score"] += 1  # row 3 belongs to (s1, A)
    h2 = input_hashes(changed, KEYS)
    assert [k for k in h if h[k] != h2[k]] == [("s1", "A")]
    assert input_hashes(frame, KEYS, salt="resamples=10") != h


def test_a_previous_table_of_another_shape_is_recomputed():
    rng = np.random.default_rng(5)
    frame = scores_frame(rng)
    stale = drift_table(frame)  # written before the hash column existed
    calls: list = []
    out = recompute_changed(frame, KEYS, counted(drift_table, calls), stale)
    assert calls[-1] == [("s1", "A"), ("s1", "B"), ("s2", "A"), ("s2", "B")]
    assert out[HASH_COLUMN].notna().all()


def test_hashed_in_duckdb_rows_are_loaded_only_for_changed_keys_and_the_table_is_a_full_recompute():
    rng = np.random.default_rng(6)
    before = scores_frame(rng)
    with duckdb.connect() as con:
        first = recompute_changed_relation(con.from_df(before), KEYS, drift_table, None)
        pdt.assert_frame_equal(first.drop(columns=HASH_COLUMN),
                               recompute_changed(before, KEYS, drift_table, None).drop(columns=HASH_COLUMN))
        calls: list = []
        again = recompute_changed_relation(con.from_df(before.iloc[::-1]), KEYS, counted(drift_table, calls), first)
        pdt.assert_frame_equal(again, first)
        assert calls == [[]]  # the schema only: no key changed, so no input row was read
        after = before.copy()
        after.loc[after["study_id"].eq("s2") & after["reviewer_config"].eq("A"), "overall_score"] += 1
        after = pd.concat([after, scores_frame(rng, studies=("s3",), configs=("A",))], ignore_index=True)
        incremental = recompute_changed_relation(con.from_df(after), KEYS, counted(drift_table, calls), first)
        assert calls[1:] == [[], [("s2", "A"), ("s3", "A")]]
        pdt.assert_frame_equal(incremental, recompute_changed_relation(con.from_df(after), KEYS, drift_table, None))


def test_duckdb_hash_ignores_row_order_and_sees_a_changed_value_or_null_or_a_repeated_row():
    rng = np.random.default_rng(7)
    frame = scores_frame(rng)
    with duckdb.connect() as con:
        h = relation_hashes(con.from_df(frame), KEYS)
        assert relation_hashes(con.from_df(frame.iloc[::-1]), KEYS) == h
        for changed in (frame.assign(overall_score=frame["overall_score"].where(frame.index != 3)),  # a NULL
                        frame.assign(paper_id=frame["paper_id"].where(frame.index != 3, "P99")),
                        pd.concat([frame, frame.iloc[[3]]], ignore_index=True)):  # row 3 twice
            h2 = relation_hashes(con.from_df(changed), KEYS)
            assert [k for k in h if h[k] != h2[k]] == [("s1", "A")]  # row 3 belongs to (s1, A)
        assert relation_hashes(con.from_df(frame), KEYS, salt="resamples=10") != h


def test_load_reads_only_the_changed_keys_rows_even_with_a_quote_in_a_key():
    rng = np.random.default_rng(8)
    before = scores_frame(rng, studies=("s1", "o'neil"))
    loaded: list = []

    def load(rows):  # what compute gets: here, the rows with a column the hash never saw
        frame = rows.df()
        loaded.append(len(frame))
        return frame.assign(extra=1)

    with duckdb.connect() as con:
        first = recompute_changed_relation(con.from_df(before), KEYS, drift_table, None, load=load)
        assert loaded == [0, len(before)]  # the empty head for the schema, then every row once
        after = before.copy()
        changed = after["study_id"].eq("o'neil") & after["reviewer_config"].eq("B")
        after.loc[changed, "overall_score"] += 1
        again = recompute_changed_relation(con.from_df(after), KEYS, drift_table, first, load=load)
        assert loaded[2:] == [0, int(changed.sum())]
        pdt.assert_frame_equal(again, recompute_changed_relation(con.from_df(after), KEYS, drift_table, None))


def test_in_duckdb_a_rebuilt_table_keeps_each_unchanged_row_once_and_equals_a_full_recompute():
    """As a dbt Python model runs: the previous table is a relation (previous_table), the result a
    relation written into a new table that replaces it. A kept row lost or written twice, or a kept
    key computed again, fails here."""
    rng = np.random.default_rng(9)
    before = scores_frame(rng, studies=("s1", "s2", "o'neil"))
    with duckdb.connect() as con:
        def build(frame, calls):
            out = recompute_changed_relation(con.from_df(frame), KEYS, counted(drift_table, calls),
                                             previous_table(con, "t"), session=con)
            out.create("t_new")
            con.execute("drop table if exists t; alter table t_new rename to t")
            full = recompute_changed_relation(con.from_df(frame), KEYS, drift_table, None)
            table = con.table("t").df()
            pdt.assert_frame_equal(table.astype(full.dtypes.to_dict()), full)
            return table

        calls: list = []
        assert previous_table(con, "t") is None
        first = build(before, calls)
        assert calls == [[], sorted(set(zip(before["study_id"], before["reviewer_config"], strict=True)))]
        calls.clear()
        assert len(build(before.iloc[::-1], calls)) == len(first)  # a no-op
        assert calls == [[]]  # the schema only: every key kept
        after = before.copy()
        after.loc[after["study_id"].eq("o'neil") & after["reviewer_config"].eq("A"), "overall_score"] += 1
        calls.clear()
        build(after, calls)
        assert calls == [[], [("o'neil", "A")]]


def test_a_kept_row_is_copied_from_the_previous_table_not_computed_again():
    rng = np.random.default_rng(10)
    frame = scores_frame(rng)
    with duckdb.connect() as con:
        recompute_changed_relation(con.from_df(frame), KEYS, drift_table, None, session=con).create("t")
        # a mark only the old table has: it survives exactly on the kept key's rows
        con.execute("update t set drift_shift = -99 where study_id = 's1' and reviewer_config = 'B'")
        changed = frame.assign(overall_score=frame["overall_score"].where(frame["study_id"].ne("s2"), 5.0))
        out = recompute_changed_relation(con.from_df(changed), KEYS, drift_table, previous_table(con, "t"),
                                         session=con).df()
    assert len(out) == 4 and out.groupby(KEYS).size().eq(1).all()  # one row per (study, configuration)
    assert out.loc[out["drift_shift"].eq(-99), KEYS].to_records(index=False).tolist() == [("s1", "B")]
    assert (out.loc[out["study_id"].eq("s2"), "drift_shift"] == 0).all()  # recomputed: every score is 5


def test_coded_frame_decodes_to_the_values_and_its_codes_sort_as_the_values():
    values = ["b", "B", "é", "a|b", "a", "z", "b"]
    frame = pd.DataFrame({"cat": values, "ord": values[::-1], "x": range(7)})
    with duckdb.connect() as con:
        coded = coded_frame(con.from_df(frame), categorical=["cat"], ordinal=["ord"]).sort_values("x")
    assert coded["cat"].astype(str).tolist() == values
    assert coded["ord"].dtype == np.int32
    # Python's order of str: "B" < "a" < "a|b" < "b" < "z" < "é"
    by_code, by_value = coded.sort_values("cat", kind="stable"), frame.sort_values("cat", kind="stable")
    assert by_code["x"].tolist() == by_value["x"].tolist()
    assert coded["ord"].tolist() == [3, 4, 1, 2, 5, 0, 3]  # b z a a|b é B b
