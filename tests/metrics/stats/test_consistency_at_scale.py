"""The consistency mart without a row per pair, and the enumerated matchings, against the one-pair-at-a-
time route (pair_table, scipy's Hungarian) on random studies with duplicate items and ragged lists."""

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linear_sum_assignment

from peerlake.metrics.stats.bootstrap import bootstrap_mean_ci
from peerlake.metrics.stats.consistency import ALL, consistency_table, pair_table, paper_sums, table_from_paper_sums
from peerlake.metrics.stats.matching import best_matching_sums
from peerlake.metrics.stats.memo import coded_frame


def table_from_pairs(items, vectors, n_resamples, seed):
    """The mart as issue #12 first computed it: one pair_table row per review pair, summarised."""
    pairs = pair_table(items, vectors)
    rows = []
    for (study, pol, kind), of_kind in pairs.groupby(["study_id", "polarity", "kind"], sort=True):
        scope = items[(items["study_id"] == study) & (items["polarity"] == pol)]
        groups = [((ca, cb), g) for (ca, cb), g in of_kind.groupby(["config_a", "config_b"], sort=True)]
        for (ca, cb), g in [*groups, ((ALL, ALL), of_kind)]:
            per_paper = g.groupby("paper_id", sort=True)["s"].mean()
            lo, hi = bootstrap_mean_ci(per_paper.to_numpy(), n_resamples=n_resamples, seed=seed)
            reviews = set(g["review_a"]) | set(g["review_b"])
            rows.append(("|".join((study, pol, kind, ca, cb)), len(per_paper), len(g), float(per_paper.mean()),
                         lo, hi, len(reviews), int(scope["study_review_id"].isin(reviews).sum())))
    return rows


def random_items(rng):
    rows, vec = [], []
    pool = rng.normal(size=(6, 8))  # few distinct vectors: many exactly equal cosines
    for study in ("S1", "S2"):
        for paper in range(int(rng.integers(1, 6))):
            for cfg in rng.choice(["A", "B", "C"], size=int(rng.integers(1, 4)), replace=False):
                for sample in range(int(rng.integers(1, 4))):
                    rid = f"{study}|P{paper}|{cfg}|{sample}"
                    for pol in ("strength", "concern"):
                        n = int(rng.choice([0, 1, 2, 3, 4, 9]))  # 9 items: the Hungarian fallback
                        for i in range(n):
                            rows.append((study, rid, f"P{paper}", cfg, f"label {cfg}", pol, i))
                            vec.append(pool[rng.integers(6)] if rng.random() < 0.5 else rng.normal(size=8))
    items = pd.DataFrame(rows, columns=["study_id", "study_review_id", "paper_id", "reviewer_config",
                                       "reviewer_label", "polarity", "item_index"])
    order = rng.permutation(len(items))  # the table must not depend on the row order
    return items.iloc[order].reset_index(drop=True), np.array(vec)[order]


@pytest.mark.parametrize("seed", range(4))
def test_table_equals_summarising_every_pair(seed):
    items, vectors = random_items(np.random.default_rng(seed))
    got = consistency_table(items, vectors, n_resamples=300, seed=3, embedding_model="m",
                            embedding_model_hash="h", n_computed=0, n_cached=0)
    want = table_from_pairs(items, vectors, 300, 3)
    assert len(want) > 4
    assert [r[0] for r in want] == got["review_consistency_id"].tolist()
    for r, g in zip(want, got.itertuples(), strict=True):
        assert (g.n_papers, g.n_pairs, g.n_reviews, g.n_items) == (r[1], r[2], r[6], r[7])
        # the cosines come from one Gram matrix per paper instead of one per pair: last-bit equal
        assert (g.s_mean, g.s_ci_low, g.s_ci_high) == pytest.approx(r[3:6], rel=1e-12, abs=1e-12)


TABLE = {"n_resamples": 300, "seed": 3, "embedding_model": "m", "embedding_model_hash": "h", "n_computed": 0,
         "n_cached": 0}


@pytest.mark.parametrize("seed", range(4))
def test_sums_of_each_paper_alone_give_the_same_table_to_the_last_bit(seed):
    # what lets int_consistency_paper_sums recompute only changed papers: a paper's sums depend on its
    # own items only (not on which papers share a batch), and the bootstrap needs nothing else
    items, vectors = random_items(np.random.default_rng(seed))
    whole = consistency_table(items, vectors, **TABLE)
    papers = items.groupby(["study_id", "paper_id"])
    per_paper = pd.concat([paper_sums(part, vectors[part.index]) for _, part in papers], ignore_index=True)
    per_paper = per_paper.sample(frac=1.0, random_state=seed)  # in any row order
    labels = dict(zip(items["reviewer_config"], items["reviewer_label"], strict=True))
    pd.testing.assert_frame_equal(table_from_paper_sums(per_paper, labels, **TABLE), whole, check_exact=True)


def test_items_and_sums_read_as_duckdb_codes_give_the_same_table_to_the_last_bit():
    # the dbt models read keys as categoricals and review ids as int codes (coded_frame), not strings
    items, vectors = random_items(np.random.default_rng(7))
    labels = dict(zip(items["reviewer_config"], items["reviewer_label"], strict=True))
    with duckdb.connect() as con:
        coded = coded_frame(con.from_df(items.assign(vector=np.arange(len(items)))),
                            categorical=["study_id", "paper_id", "reviewer_config", "polarity"],
                            ordinal=["study_review_id"])
        sums = paper_sums(coded, vectors, vector_of_item=coded["vector"].to_numpy())
        pd.testing.assert_frame_equal(sums, paper_sums(items, vectors), check_exact=True)  # same rows, same order
        read = coded_frame(con.from_df(sums), categorical=["study_id", "polarity", "paper_id", "config_a", "config_b"])
    want = consistency_table(items, vectors, **TABLE)
    pd.testing.assert_frame_equal(table_from_paper_sums(read, labels, **TABLE), want, check_exact=True)


@pytest.mark.parametrize("shape", [(1, 1), (1, 4), (3, 3), (4, 2), (5, 5), (2, 6), (7, 7)])
def test_enumerated_matching_equals_the_hungarian_sum(shape):
    rng = np.random.default_rng(sum(shape))
    c = rng.normal(size=(40, *shape))
    c[:5] = np.round(c[:5])  # integer cells: ties between matchings
    want = []
    for m in c:
        rows, cols = linear_sum_assignment(m, maximize=True)
        want.append(m[rows, cols].sum())
    assert best_matching_sums(c) == pytest.approx(want, rel=0, abs=1e-12)
    untied = best_matching_sums(c[5:])
    assert (untied == np.array(want[5:])).all()  # same matching, same order of addition: same bits
