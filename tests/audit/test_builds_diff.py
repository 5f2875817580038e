"""`peerlake diff --build`'s engine on small published files: rows added, removed, changed beyond 1e-9
relative, estimates moved beyond their old interval, and the columns a shape change leaves uncompared.
Every expected count is read off the rows written here, not computed by the code under test."""

import duckdb
import pytest

from peerlake.audit import builds_diff
from peerlake.warehouse import builds
from peerlake.warehouse.marts_reader import published
from tests.warehouse.builds_support import publish_sql

OLD = """
create table quality_comparison (quality_comparison_id varchar, metric varchar, n_pairs bigint, mean_system double,
    mean_system_ci_low double, mean_system_ci_high double, mean_diff double, ci_low double, ci_high double);
insert into quality_comparison values
    ('s|a', 'doa', 10, 3.0, 2.9, 3.1, 0.5, 0.2, 0.8),
    ('s|b', 'doa', 10, 3.0, 2.9, 3.1, 1.0, 0.9, 1.1),
    ('s|c', 'doa', 10, 3.0, 2.9, 3.1, 2.0, 1.5, 2.5),
    ('s|d', 'doa', 10, 3.0, 2.9, 3.1, 2.0, 1.5, 2.5);
create table judge_cards (judge_card_id varchar, estimate double, n bigint, status varchar);
insert into judge_cards values ('k1', 0.7, 5, 'pass'), ('k2', 0.1, 5, 'fail');
create table text_overlap (text_overlap_id varchar, n_reviews bigint);
insert into text_overlap values ('t', 1), ('t', 2);
create table cost_by_model (provider varchar, model varchar, prompt_template varchar, prompt_hash varchar, n bigint);
insert into cost_by_model values ('local', 'm', 'review', 'h1', 3);
create table system_summary (system_summary_id varchar, n_reviews bigint);
insert into system_summary values ('x', 1);
"""

NEW = """
update quality_comparison set mean_diff = 0.5 + 1e-12 where quality_comparison_id = 's|a';  -- within 1e-9
update quality_comparison set mean_diff = 1.3 where quality_comparison_id = 's|b';           -- beyond [0.9, 1.1]
update quality_comparison set n_pairs = 11, mean_system = 3.05 where quality_comparison_id = 's|c';  -- inside
delete from quality_comparison where quality_comparison_id = 's|d';
insert into quality_comparison values ('s|e', 'doa', 4, 1.0, 0.5, 1.5, 0.0, -1.0, 1.0);
drop table judge_cards;
create table judge_cards (judge_card_id varchar, estimate double, n varchar, method varchar);
insert into judge_cards values ('k1', 0.9, '5', 'icc'), ('k2', 0.1, '6', 'icc');
update text_overlap set n_reviews = 3 where n_reviews = 2;
update cost_by_model set n = 4;
drop table system_summary;
create table review_consistency as select 'r' as review_consistency_id, 0.5 as s_mean;
"""


@pytest.fixture
def two_builds(lake):
    publish_sql(lake, OLD)
    old = builds.snapshot(lake, key_columns=builds_diff.key_columns)
    publish_sql(lake, NEW)
    new = builds.snapshot(lake, key_columns=builds_diff.key_columns)
    return lake, old, new


def _against_published(lake, record) -> dict:
    with published(lake.duckdb_path) as marts:
        out = builds_diff.diff_builds(marts.con, builds_diff.snapshot_side(lake, record),
                                      builds_diff.published_side(marts.con))
    return {d.mart: d for d in out}


def test_added_removed_changed_and_moved_rows(two_builds):
    lake, old, _ = two_builds
    qc = _against_published(lake, old)["quality_comparison"]
    assert (qc.status, qc.key, qc.rows_old, qc.rows_new) == ("compared", ["quality_comparison_id"], 4, 4)
    assert (qc.added, qc.removed, qc.changed, qc.moved) == (1, 1, 2, 1)
    assert qc.examples["added"] == ["s|e"] and qc.examples["removed"] == ["s|d"]
    assert [(c["key"], sorted(x["column"] for x in c["changes"])) for c in qc.examples["changed"]] == \
        [("s|b", ["mean_diff"]), ("s|c", ["mean_system", "n_pairs"])]
    assert qc.examples["moved"] == [{"key": "s|b", "moves": [{"column": "mean_diff", "old": 1.0, "new": 1.3,
                                                              "old_low": 0.9, "old_high": 1.1}]}]
    assert qc.not_compared == [] and qc.key_note is None


def test_a_shape_change_lists_the_columns_not_compared(two_builds):
    lake, old, _ = two_builds
    cards = _against_published(lake, old)["judge_cards"]
    assert cards.not_compared == [{"column": "n", "why": "type BIGINT → VARCHAR"},
                                  {"column": "method", "why": "only in the new build"},
                                  {"column": "status", "why": "only in the old build"}]
    # the rest is still compared: k1's estimate moved (no interval column, so not "moved"); k2's n is not looked at
    assert (cards.added, cards.removed, cards.changed, cards.moved) == (0, 0, 1, 0)
    assert cards.examples["changed"] == [{"key": "k1", "changes": [{"column": "estimate", "old": "0.7",
                                                                     "new": "0.9"}]}]


def test_keys_marts_and_the_two_kinds_of_side(two_builds):
    lake, old, new = two_builds
    diffs = _against_published(lake, old)
    overlap = diffs["text_overlap"]  # its key repeats: whole rows are matched
    assert overlap.key_note and (overlap.added, overlap.removed, overlap.changed) == (1, 1, 0)
    assert diffs["cost_by_model"].key == ["provider", "model", "prompt_template", "prompt_hash"]
    assert diffs["cost_by_model"].examples["changed"][0]["key"] == "local|m|review|h1"
    assert (diffs["system_summary"].status, diffs["system_summary"].rows_old) == ("only_old", 1)
    assert (diffs["review_consistency"].status, diffs["review_consistency"].rows_new) == ("only_new", 1)
    # two kept builds compare as the published file does
    con = duckdb.connect()
    kept = {d.mart: d for d in builds_diff.diff_builds(con, builds_diff.snapshot_side(lake, old),
                                                        builds_diff.snapshot_side(lake, new))}
    assert {m: d.as_dict() for m, d in kept.items()} == {m: d.as_dict() for m, d in diffs.items()}


def test_an_unchanged_build_differs_nowhere(lake):
    publish_sql(lake, OLD)
    record = builds.snapshot(lake, key_columns=builds_diff.key_columns)
    assert [d.mart for d in _against_published(lake, record).values() if d.differs] == []


def test_recognized_intervals():
    cols = ["mean_system", "mean_system_ci_low", "mean_system_ci_high", "drift_shift", "drift_ci_low",
            "drift_ci_high", "s_mean", "s_ci_low", "s_ci_high", "accuracy", "wilson_lo", "wilson_hi",
            "mean_gain", "ci_low", "ci_high", "orphan_ci_low", "orphan_ci_high"]
    assert builds_diff.intervals(cols) == [
        ("mean_system", "mean_system_ci_low", "mean_system_ci_high"), ("drift_shift", "drift_ci_low", "drift_ci_high"),
        ("s_mean", "s_ci_low", "s_ci_high"), ("accuracy", "wilson_lo", "wilson_hi"),
        ("mean_gain", "ci_low", "ci_high")]
