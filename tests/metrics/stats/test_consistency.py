"""S(A, B) (Hungarian-matched cosines over the longer list) and the consistency table, on hand-worked
fixtures: unit vectors along axes make every cosine 0 or 1 (or chosen values), so S is arithmetic."""

import numpy as np
import pandas as pd
import pytest

from peerlake.metrics.stats.consistency import consistency_table, list_similarity, matched_similarity, pair_table

E = np.eye(4)  # e1..e4: cos(ei, ej) = 1 if i == j else 0


def test_s_of_a_longer_list_divides_by_its_length():
    # A = [e1, e2], B = [e1]: the one match e1–e1 = 1, e2 unmatched counts 0 → 1 / max(2, 1) = 1/2
    assert list_similarity(E[[0, 1]], E[[0]]) == pytest.approx(0.5)
    assert list_similarity(E[[0]], E[[0, 1]]) == pytest.approx(0.5)  # symmetric
    # identical lists in another order: the matching pairs them up → (1 + 1 + 1) / 3
    assert list_similarity(E[[0, 1, 2]], E[[2, 0, 1]]) == pytest.approx(1.0)
    # nothing in common: every cosine 0 → 0
    assert list_similarity(E[[0, 1]], E[[2, 3]]) == pytest.approx(0.0)
    # lengths are not normalised for us: 3·e1 against e1 is still cosine 1
    assert list_similarity(3 * E[[0]], E[[0]]) == pytest.approx(1.0)


def test_hungarian_beats_greedy():
    # C = [[0.9, 0.8], [0.8, 0.1]]. Greedy takes the largest cell 0.9 (a1–b1), then a2–b2 = 0.1:
    # (0.9 + 0.1) / 2 = 0.5. The best one-to-one matching is a1–b2 + a2–b1 = 0.8 + 0.8 → 1.6 / 2 = 0.8.
    assert matched_similarity([[0.9, 0.8], [0.8, 0.1]]) == pytest.approx(0.8)


def test_negative_cosines_stay_in_and_empty_lists():
    # one pair, cosine −0.5: matched, kept → −0.5 / 1
    assert matched_similarity([[-0.5]]) == pytest.approx(-0.5)
    # with vectors: e1 against −e1 is −1; against [−e1, e2] the matching must still take one of them:
    # best is e1–e2 = 0 (not −1) → 0 / 2 = 0
    assert list_similarity(E[[0]], np.array([-E[0], E[1]])) == pytest.approx(0.0)
    assert list_similarity(np.zeros((0, 4)), E[[0, 1]]) == 0.0  # every item of B unmatched
    assert matched_similarity(np.zeros((0, 0))) is None  # nothing to compare is no value, not 0


def _items(rows):
    return pd.DataFrame(rows, columns=["study_id", "study_review_id", "paper_id", "reviewer_config", "reviewer_label",
                                       "polarity", "item_index", "vec"])


# Study S, strengths only. Configs X (2 reviews per paper) and Y (1 per paper):
#   P1  X1 [e1, e2]  X2 [e1]      Y1 [e3]
#   P2  X3 [e1]      X4 [e1]      Y2 [e1, e2]
# within X: P1 X1–X2 = 1/2;  P2 X3–X4 = 1  → paper means .5, 1 → mean 0.75
# cross X–Y: P1 X1–Y1 = 0, X2–Y1 = 0 → 0;  P2 X3–Y2 = 1/2, X4–Y2 = 1/2 → .5 → mean 0.25
ROWS = [("S", "X1", "P1", "X", "lx", "strength", 0, 0), ("S", "X1", "P1", "X", "lx", "strength", 1, 1),
        ("S", "X2", "P1", "X", "lx", "strength", 0, 0), ("S", "Y1", "P1", "Y", "ly", "strength", 0, 2),
        ("S", "X3", "P2", "X", "lx", "strength", 0, 0), ("S", "X4", "P2", "X", "lx", "strength", 0, 0),
        ("S", "Y2", "P2", "Y", "ly", "strength", 0, 0), ("S", "Y2", "P2", "Y", "ly", "strength", 1, 1)]


def _table(rows, **kw):
    items = _items(rows)
    vectors = E[items["vec"].to_numpy(dtype=int)]
    return consistency_table(items.drop(columns="vec"), vectors, n_resamples=2000, seed=7, embedding_model="m",
                             embedding_model_hash="h", n_computed=3, n_cached=1, **kw)


def test_pairs_within_and_across_configurations():
    items = _items(ROWS)
    pairs = pair_table(items.drop(columns="vec"), E[items["vec"].to_numpy()])
    got = {(r.paper_id, r.review_a, r.review_b): (r.kind, r.s) for r in pairs.itertuples()}
    # per paper: C(3, 2) = 3 pairs, one within X and two across
    assert len(got) == 6
    assert got[("P1", "X1", "X2")] == ("within", pytest.approx(0.5))
    assert got[("P2", "X4", "Y2")] == ("cross", pytest.approx(0.5))


def test_paper_first_then_overall_with_an_interval():
    t = {(r.kind, r.config_a, r.config_b): r for r in _table(ROWS).itertuples()}
    w = t[("within", "X", "X")]
    assert (w.n_papers, w.n_pairs, w.s_mean) == (2, 2, pytest.approx(0.75))
    assert (w.label_a, w.label_b, w.n_reviews, w.n_items) == ("lx", "lx", 4, 5)  # X1 has 2 items, X2..X4 1 each
    # two papers with means .5 and 1: every resample's mean is .5, .75 or 1 → interval inside [.5, 1]
    assert 0.5 <= w.s_ci_low <= w.s_mean <= w.s_ci_high <= 1
    c = t[("cross", "X", "Y")]
    assert (c.n_papers, c.n_pairs, c.s_mean) == (2, 4, pytest.approx(0.25))
    # the overall rows pool configuration pairs; with one pair per kind they equal it
    assert t[("cross", "*", "*")].s_mean == pytest.approx(0.25)
    assert t[("within", "*", "*")].s_mean == pytest.approx(0.75)
    assert set(t) == {("within", "X", "X"), ("cross", "X", "Y"), ("within", "*", "*"), ("cross", "*", "*")}
    assert {(r.n_resamples, r.bootstrap_seed, r.n_embeddings_computed, r.n_embeddings_cached)
            for r in t.values()} == {(2000, 7, 3, 1)}


def test_overall_pools_pairs_within_each_paper_before_averaging_papers():
    # add config Z on P1 only: Z1 [e1]. New cross pairs on P1: X1–Z1 = 1/2, X2–Z1 = 1, Y1–Z1 = 0.
    # overall cross, P1: pairs X1–Y1 0, X2–Y1 0, X1–Z1 .5, X2–Z1 1, Y1–Z1 0 → 1.5 / 5 = 0.3;
    # P2: .5, .5 → .5. Overall = (0.3 + 0.5) / 2 = 0.4 (not the mean of the config pairs' means).
    t = {(r.kind, r.config_a, r.config_b): r for r in _table([*ROWS, ("S", "Z1", "P1", "Z", "lz", "strength", 0, 0)])
         .itertuples()}
    assert t[("cross", "*", "*")].s_mean == pytest.approx(0.4)
    assert t[("cross", "*", "*")].n_pairs == 7
    assert t[("cross", "X", "Z")].s_mean == pytest.approx(0.75) and t[("cross", "X", "Z")].n_papers == 1
    assert t[("cross", "X", "Z")].s_ci_low == pytest.approx(0.75)  # one paper: the interval is the point


def test_a_configuration_with_one_review_per_paper_has_no_within_row_and_empty_input_is_empty():
    t = _table(ROWS)
    assert not ((t["kind"] == "within") & (t["config_a"] == "Y")).any()
    empty = _table([])
    assert empty.empty and "s_mean" in empty.columns and str(empty["n_papers"].dtype) == "int64"
