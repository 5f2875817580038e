"""ROUGE-1, ROUGE-L, BLEU-4 and the text_overlap rows on hand-worked examples, every undefined case None;
the score-prediction correlations (Pearson, Spearman, Kendall τ-b) on hand-worked examples with ties."""

import math
import random

import pandas as pd
import pytest

from peerlake.metrics.stats.correlations import correlate, correlation_table
from peerlake.metrics.text.overlap import bleu_4, lcs_length, overlap, overlap_table, rouge_1, rouge_l, tokens


def test_tokens_lowercase_alphanumeric_runs():
    assert tokens("The GateNet-v2 model: 85.1% (CIFAR-10)!") == ["the", "gatenet", "v2", "model", "85", "1", "cifar",
                                                                 "10"]
    assert tokens(None) == [] and tokens(float("nan")) == []


def test_rouge_1_clips_repeated_words():
    # cand "the the the cat" (4), ref "the cat sat" (3): "the" counts min(3, 1) = 1, "cat" 1 → 2 hits;
    # P = 2/4, R = 2/3, F1 = 2·(1/2)(2/3)/(1/2 + 2/3) = (2/3)/(7/6) = 4/7
    assert rouge_1(tokens("the the the cat"), tokens("the cat sat")) == pytest.approx(4 / 7)
    assert rouge_1(["a"], ["b"]) == 0.0


def test_rouge_l_uses_the_longest_common_subsequence():
    # cand "police killed the gunman", ref "the gunman kill police": LCS "the gunman" = 2;
    # P = 2/4, R = 2/4 → F1 = 1/2 (Lin 2004's example shape: order matters, unlike ROUGE-1 whose 3/4)
    c, r = tokens("police killed the gunman"), tokens("the gunman kill police")
    assert lcs_length(c, r) == 2 and rouge_l(c, r) == pytest.approx(0.5)
    assert rouge_1(c, r) == pytest.approx(0.75)  # police, the, gunman


def test_bit_parallel_lcs_agrees_with_the_textbook_table():
    def table(a, b):  # the O(n·m) dynamic programme, written independently
        t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                t[i + 1][j + 1] = t[i][j] + 1 if x == y else max(t[i][j + 1], t[i + 1][j])
        return t[-1][-1]
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 15))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 15))]
        assert lcs_length(a, b) == table(a, b)


def test_bleu_4_with_brevity_penalty_and_smoothing():
    c = tokens("the cat sat on the mat")  # 6 tokens
    r = tokens("the cat sat on the red mat")  # 7 tokens
    # p1: the×2 (ref has 2), cat, sat, on, mat → 6/6; p2: the-cat, cat-sat, sat-on, on-the hit, the-mat not → 4/5;
    # p3: the-cat-sat, cat-sat-on, sat-on-the hit, on-the-mat not → 3/4; p4: 2 of 3 → 2/3;
    # BP = exp(1 − 7/6) since 6 ≤ 7
    expected = math.exp(1 - 7 / 6) * (1 * 0.8 * 0.75 * (2 / 3)) ** 0.25
    assert bleu_4(c, r) == pytest.approx(expected)
    # no 4-gram in common: p4 = ε / 2 with ε = 0.1; cand "a b c d e", ref "a b c x e": p = 4/5, 2/4, 1/3, 0.05, BP 1
    assert bleu_4(list("abcde"), list("abcxe")) == pytest.approx((0.8 * 0.5 / 3 * 0.05) ** 0.25)
    assert bleu_4(list("abcd"), list("abcd")) == pytest.approx(1.0)


def test_undefined_measures_are_none_not_zero():
    assert overlap("", "the cat") == {"rouge_1": None, "rouge_l": None, "bleu_4": None}
    assert overlap("the cat", None) == {"rouge_1": None, "rouge_l": None, "bleu_4": None}
    # three tokens: ROUGE is defined, BLEU-4 has no 4-gram to count
    assert overlap("a b c", "a b c") == {"rouge_1": 1.0, "rouge_l": 1.0, "bleu_4": None}


def _reviews(*rows):
    return pd.DataFrame(rows, columns=["study_id", "review_key", "paper_id", "source", "reviewer", "text"])


def test_overlap_rows_pairing_averaging_and_reasons():
    frame = _reviews(
        ("S", "human:1", "P", "human", "human", "a b c d"),
        ("S", "human:2", "P", "human", "human", "a b x y"),
        ("S", "human:3", "Q", "human", "human", "q q q q"),
        ("S", "peerlake:1", "P", "peerlake", "cfg", "a b c d"),
        ("S", "peerlake:2", "R", "peerlake", "cfg", "a b c d"),  # paper R has no human review
        ("S", "peerlake:3", "P", "peerlake", "empty", None),
    )
    got = overlap_table(frame).set_index("reviewer")
    cfg = got.loc["cfg"]
    # peerlake:1 vs human:1: identical → 1; vs human:2 "a b x y": R1 = 2/4 → .5, RL = .5 → review mean .75
    assert (cfg["n_reviews"], cfg["n_reviews_compared"], cfg["n_pairs"], cfg["n_papers_compared"]) == (2, 1, 2, 1)
    assert cfg["rouge_1"] == pytest.approx(0.75) and cfg["rouge_l"] == pytest.approx(0.75)
    # BLEU vs human:2: p = 2/4, 1/3, ε .1/2, ε .1/1 → (.5·(1/3)·.05·.1)^¼; vs human:1: 1
    assert cfg["bleu_4"] == pytest.approx((1 + (0.5 / 3 * 0.05 * 0.1) ** 0.25) / 2)
    human = got.loc["human"]
    # human:1 ↔ human:2 both ways (R1 .5 each); human:3 has no other human review of Q
    assert (human["n_reviews"], human["n_reviews_compared"], human["n_pairs"]) == (3, 2, 2)
    assert human["rouge_1"] == pytest.approx(0.5) and human["is_reference"]
    empty = got.loc["empty"]
    assert pd.isna(empty["rouge_1"]) and empty["null_reason"] == "no_review_text"
    assert pd.isna(empty["bertscore_f1"]) and empty["bertscore_status"] == "weights unavailable"
    only_r = overlap_table(_reviews(("S", "peerlake:2", "R", "peerlake", "cfg", "a b c d"))).iloc[0]
    assert only_r["null_reason"] == "no_human_review" and only_r["n_reviews_compared"] == 0
    lone = overlap_table(_reviews(("S", "human:3", "Q", "human", "human", "q q q q"))).iloc[0]
    assert lone["null_reason"] == "no_other_human_review"
    assert len(overlap_table(_reviews())) == 0


def test_correlations_hand_worked():
    # x (1,2,3,4), y (1,3,2,4): Σdxdy = 2.25 − .25 − .25 + 2.25 = 4, Σdx² = Σdy² = 5 → r = .8; ranks = values → ρ = .8;
    # 6 pairs, only (2,3) discordant → τ = (5 − 1)/6
    assert correlate([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx((0.8, 0.8, 4 / 6, None))
    # ties: x (1,2,2,3), y (1,1,2,3): r = 2/√(2·2.75); ranks x (1,2.5,2.5,4), y (1.5,1.5,3,4) → ρ = 3.75/4.5;
    # concordant 4, discordant 0, one pair tied in x, one in y → τ_b = 4/√(5·5) = .8
    p, s, k, reason = correlate([1, 2, 2, 3], [1, 1, 2, 3])
    assert (p, s, k, reason) == pytest.approx((2 / math.sqrt(5.5), 3.75 / 4.5, 0.8, None))


def test_correlations_null_paths():
    assert correlate([1, 2], [1, 2]) == (None, None, None, "fewer_than_3_papers")
    assert correlate([5, 5, 5], [1, 2, 3]) == (None, None, None, "constant_predictions")
    assert correlate([1, 2, 3], [4, 4, 4]) == (None, None, None, "constant_human_scores")


def test_correlation_table_groups_by_venue_year_and_leaves_variants_out():
    base = {"study_id": "S", "judge_config": "j", "source": "human", "reviewer": "human", "venue": "V",
            "venue_year": 2025, "is_variant": False}
    papers = pd.DataFrame([
        {**base, "paper_id": "a", "predicted_score": 1.0, "human_score_mean": 1.0},
        {**base, "paper_id": "b", "predicted_score": 2.0, "human_score_mean": 3.0},
        {**base, "paper_id": "c", "predicted_score": 3.0, "human_score_mean": 2.0},
        {**base, "paper_id": "d", "predicted_score": None, "human_score_mean": 4.0},
        {**base, "paper_id": "a~v", "predicted_score": 9.0, "human_score_mean": None, "is_variant": True},
        {**base, "paper_id": "z", "venue": None, "venue_year": None, "predicted_score": 2.0, "human_score_mean": 2.0},
    ])
    got = correlation_table(papers).set_index("venue")
    v = got.loc["V"]
    # (1,1), (2,3), (3,2): dx (−1,0,1), dy (−1,1,0) → Σdxdy = 1, Σdx² = Σdy² = 2 → r = 1/2
    assert (v["n_papers_in_scope"], v["n_papers_predicted"], v["n_papers_with_human_score"], v["n_papers"]) == (
        4, 3, 4, 3)
    assert v["pearson"] == pytest.approx(0.5) and v["is_reference"]
    assert v["score_prediction_correlation_id"] == "S|j|human|human|V|2025"
    unknown = got.loc["unknown"]
    assert unknown["null_reason"] == "fewer_than_3_papers" and pd.isna(unknown["venue_year"])
    assert len(correlation_table(papers.iloc[0:0])) == 0
