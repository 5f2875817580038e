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


CALLS_OLD = """
create table fct_llm_calls (llm_call_id varchar, prompt_template varchar, prompt_hash varchar, study_id varchar);
insert into fct_llm_calls values ('c1', 'review', 'r1', 'a'), ('c2', 'judge_x', 'x1', 'a'),
    ('c3', 'judge_y', 'y1', 'b');
create table fct_call_replays (call_replay_id varchar, llm_call_id varchar, study_id varchar, n_replays bigint);
insert into fct_call_replays values ('c1|a', 'c1', 'a', 1);
create table cost_by_model (provider varchar, model varchar, prompt_template varchar, prompt_hash varchar, n bigint);
insert into cost_by_model values ('p', 'm', 'review', 'r1', 1), ('p', 'm', 'judge_x', 'x1', 1),
    ('p', 'm', 'judge_y', 'y1', 1);
create table quality_reviews (quality_review_id varchar, study_id varchar, score double);
insert into quality_reviews values ('a|1', 'a', 1.0), ('b|1', 'b', 2.0);
create table reliability_summary (reliability_summary_id varchar, n bigint);
insert into reliability_summary values ('all', 3);
create table replay_summary (replay_summary_id varchar, study_id varchar, n bigint);
insert into replay_summary values ('c', 'c', 0);
"""

# judge_x's template edited (a new hash x2) in study a, and study c replays review call c1
CALLS_NEW = """
insert into fct_llm_calls values ('c4', 'judge_x', 'x2', 'a');
insert into fct_call_replays values ('c1|c', 'c1', 'c', 2);
insert into cost_by_model values ('p', 'm', 'judge_x', 'x2', 1);
update quality_reviews set score = 1.5 where study_id = 'a';
update reliability_summary set n = 4;
update replay_summary set n = 2;
"""


def test_the_calls_and_replays_since_the_old_build_explain_each_mart(lake):
    publish_sql(lake, CALLS_OLD)
    old = builds.snapshot(lake, key_columns=builds_diff.key_columns)
    publish_sql(lake, CALLS_NEW)
    builds.snapshot(lake, key_columns=builds_diff.key_columns)
    report = builds_diff.compare_published(lake, "prev")
    assert report["old"]["build_id"] == old["build_id"]
    assert report["since"] == {"note": None, "groups": [
        {"prompt_template": "judge_x", "prompt_hash": "x2", "new_hash": True, "hashes_before": ["x1"],
         "calls": 1, "replays": 0, "studies": ["a"]},
        {"prompt_template": "review", "prompt_hash": "r1", "new_hash": False, "hashes_before": [],
         "calls": 0, "replays": 2, "studies": ["c"]}]}
    marts = {m["mart"]: m for m in report["marts"]}
    x2 = [{"prompt_template": "judge_x", "prompt_hash": "x2", "new_hash": True}]
    r1 = [{"prompt_template": "review", "prompt_hash": "r1", "new_hash": False}]
    assert marts["cost_by_model"]["explained_by"] == x2  # keyed by template and hash: that group only
    assert (marts["quality_reviews"]["studies"], marts["quality_reviews"]["explained_by"]) == (["a"], x2)
    assert marts["fct_call_replays"]["explained_by"] == r1  # its rows name call c1, whose template is review
    assert marts["replay_summary"]["explained_by"] == r1  # study c: no new call, so its replays
    # no study named: the groups with new calls (a replay serves an answer the old build had)
    assert marts["reliability_summary"]["lake_wide"] and marts["reliability_summary"]["explained_by"] == x2
    assert not marts["fct_llm_calls"]["lake_wide"] and marts["fct_llm_calls"]["explained_by"] == x2


def test_without_the_calls_mart_nothing_is_named(two_builds):
    lake, old, _ = two_builds
    report = builds_diff.compare_published(lake, old["build_id"])
    assert report["since"]["groups"] == [] and "fct_llm_calls" in report["since"]["note"]
    assert all(m["explained_by"] == [] for m in report["marts"])


def test_bookkeeping_columns_are_not_differences(lake):
    publish_sql(lake, "create table review_consistency (review_consistency_id varchar, s_mean double, "
                      "n_embeddings_computed bigint, n_embeddings_cached bigint); "
                      "insert into review_consistency values ('a', 0.5, 3, 0), ('b', 0.4, 3, 0)")
    old = builds.snapshot(lake, key_columns=builds_diff.key_columns)
    publish_sql(lake, "update review_consistency set n_embeddings_computed = 0, n_embeddings_cached = 3; "
                      "update review_consistency set s_mean = 0.6 where review_consistency_id = 'b'")
    rc = _against_published(lake, old)["review_consistency"]
    assert rc.bookkeeping == ["n_embeddings_computed", "n_embeddings_cached"]
    assert rc.changed == 1 and rc.examples["changed"] == [{"key": "b", "changes": [
        {"column": "s_mean", "old": "0.4", "new": "0.6"}]}]
