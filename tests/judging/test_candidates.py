"""The novelty candidate pool: relevance, filters, dedupe and MMR, each worked out by hand."""

import difflib
from dataclasses import dataclass

import pytest

from peerlake.judging.candidates import (
    PoolEntry,
    build_pool,
    dedupe,
    is_future,
    is_self,
    jaccard,
    mmr,
    most_relevant,
    relevance_by_query,
    tokens,
)


@dataclass(frozen=True)
class Hit:
    """A search result as the retrieval package returns it (only the fields the pool reads)."""

    candidate_id: str
    title: str
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    score: float | None = None
    score_norm: float | None = None


def entry(cid, title, r, abstract=None, year=None):
    return PoolEntry(cid, title, abstract, year, None, r)


def test_relevance_is_n_minus_rank_over_n_and_the_best_query_wins():
    q1 = [Hit("a", "A"), Hit("b", "B"), Hit("c", "C"), Hit("d", "D")]  # n = 4
    q2 = [Hit("c", "C"), Hit("e", "E")]  # n = 2
    got = {e.candidate_id: e.relevance for e in relevance_by_query([q1, q2])}
    # q1: a (4-0)/4 = 1, b 3/4, c 2/4, d 1/4; q2: c (2-0)/2 = 1, e 1/2; c keeps max(0.5, 1) = 1
    assert got == {"a": 1.0, "b": 0.75, "c": 1.0, "d": 0.25, "e": 0.5}
    assert [e.candidate_id for e in relevance_by_query([q1, q2])] == ["a", "b", "c", "d", "e"]


def test_a_backends_normalized_score_is_the_relevance_when_every_hit_has_one():
    # BM25 scores over the query's best (retrieval/offline.py): b is nearly as relevant as a, d barely
    q1 = [Hit("a", "A", score_norm=1.0), Hit("b", "B", score_norm=0.9), Hit("d", "D", score_norm=0.05)]
    q2 = [Hit("b", "B"), Hit("e", "E")]  # no scores (Semantic Scholar): PRISM's (n - rank)/n
    q3 = [Hit("f", "F", score_norm=0.4), Hit("g", "G")]  # one hit without: the whole query by rank
    got = {e.candidate_id: e.relevance for e in relevance_by_query([q1, q2, q3])}
    assert got == {"a": 1.0, "b": 1.0, "d": 0.05, "e": 0.5, "f": 1.0, "g": 0.5}
    # "rank" = PRISM always: q1 by position, 1, 2/3, 1/3
    by_rank = {e.candidate_id: e.relevance for e in relevance_by_query([q1], "rank")}
    assert by_rank == {"a": 1.0, "b": pytest.approx(2 / 3), "d": pytest.approx(1 / 3)}
    # a score outside [0, 1] is clamped
    assert relevance_by_query([[Hit("x", "X", score_norm=1.7)]])[0].relevance == 1.0
    with pytest.raises(ValueError, match="relevance"):
        relevance_by_query([q1], "bm25")


def test_the_score_reorders_the_verified_candidates():
    """With scores, the candidate verified first is the best-scored one even when it came second."""
    q = [Hit("a", "Alpha gating"), Hit("b", "Beta trees")]
    scored = [Hit("a", "Alpha gating", score_norm=0.2), Hit("b", "Beta trees", score_norm=1.0)]
    pool, _ = build_pool([q], "p", "Paper", 2022)
    assert most_relevant(pool, 1)[0].candidate_id == "a"
    pool, _ = build_pool([scored], "p", "Paper", 2022)
    assert most_relevant(pool, 1)[0].candidate_id == "b"


def test_an_empty_query_adds_nothing():
    assert relevance_by_query([[], [Hit("a", "A")]]) == [entry("a", "A", 1.0)]


def test_the_paper_itself_is_recognized_by_lake_id_or_by_title():
    title = "Sparse Mixtures of Experts for Tabular Data"
    assert is_self(entry("lake:p1", "anything", 1.0), "p1", title)
    assert is_self(entry("s2:123", "Sparse mixtures of experts for tabular data.", 1.0), "p1", title)
    assert not is_self(entry("lake:p2", "Dense Mixtures of Experts for Images", 1.0), "p1", title)
    # a paper id that is a prefix of another is not the same paper
    assert not is_self(entry("lake:p10", "Other", 1.0), "p1", title)


def test_later_papers_are_dropped_and_unknown_years_kept():
    assert is_future(entry("x", "X", 1.0, year=2024), 2023)
    assert not is_future(entry("x", "X", 1.0, year=2023), 2023)
    assert not is_future(entry("x", "X", 1.0, year=None), 2023)
    assert not is_future(entry("x", "X", 1.0, year=2030), None)  # the paper's year unknown: nothing is "later"


def test_dedupe_keeps_the_most_relevant_copy():
    first = entry("a", "Graph Neural Networks for Molecules", 0.5, abstract="We embed molecules as graphs.")
    copy = entry("b", "Graph neural networks for molecules.", 0.9, abstract="We embed molecules as graphs")
    other = entry("c", "Graph Neural Networks for Proteins", 0.7, abstract="We embed proteins as graphs.")
    # the test's premise: the two "molecules" records are near-identical, the "proteins" one is not
    assert difflib.SequenceMatcher(None, "graph neural networks for molecules",
                                   "graph neural networks for proteins").ratio() < 0.96
    kept, dropped = dedupe([first, copy, other])
    assert [e.candidate_id for e in kept] == ["b", "c"] and dropped == 1


def test_one_title_with_two_different_abstracts_is_two_papers_but_a_missing_abstract_decides_nothing():
    a = entry("a", "Attention Is All You Need", 1.0, abstract="We propose the Transformer, based on attention.")
    b = entry("b", "Attention Is All You Need", 0.5, abstract="A workshop poster on recurrent memory for speech.")
    c = entry("c", "Attention is all you need", 0.25)  # no abstract: the title alone decides
    kept, dropped = dedupe([a, b, c])
    assert [e.candidate_id for e in kept] == ["a", "b"] and dropped == 1


def test_token_jaccard():
    # {alpha, beta} vs {alpha, beta, gamma}: 2 shared / 3 in the union
    assert jaccard(tokens("Alpha, beta"), tokens("alpha beta GAMMA")) == pytest.approx(2 / 3)
    assert jaccard(tokens(""), tokens("")) == 0.0


def test_mmr_prefers_a_different_paper_over_a_near_copy_of_the_first_pick():
    x = entry("x", "alpha beta", 1.0)
    y = entry("y", "alpha beta gamma", 0.9)
    z = entry("z", "delta epsilon", 0.7)
    # pick 1: 0.7·1.0 = 0.70 (x) > 0.7·0.9 = 0.63 (y) > 0.7·0.7 = 0.49 (z)               → x
    # pick 2: y 0.63 − 0.3·J(y,x) = 0.63 − 0.3·(2/3) = 0.43;  z 0.49 − 0.3·0 = 0.49       → z
    # pick 3: y                                                                           → y
    pool = mmr([x, y, z])
    assert [(e.candidate_id, e.pool_rank) for e in pool] == [("x", 0), ("z", 1), ("y", 2)]


def test_mmr_stops_at_the_pool_size():
    entries = [entry(str(i), f"title {i}", 1 - i / 40) for i in range(35)]
    assert len(mmr(entries)) == 30 and len(mmr(entries, k=3)) == 3


def test_most_relevant_breaks_equal_relevance_by_pool_order():
    pool = [PoolEntry("x", "X", None, None, None, 1.0, 0), PoolEntry("z", "Z", None, None, None, 0.5, 1),
            PoolEntry("y", "Y", None, None, None, 1.0, 2), PoolEntry("w", "W", None, None, None, 0.75, 3)]
    assert [e.candidate_id for e in most_relevant(pool, 3)] == ["x", "y", "w"]


def test_build_pool_filters_dedupes_and_orders():
    paper_title = "Sparse Mixtures of Experts for Tabular Data"
    q1 = [Hit("lake:p1", paper_title, year=2022),                  # the paper itself
          Hit("s2:1", "Gradient boosted trees for tabular data", "Trees win on tables.", 2019),
          Hit("s2:2", "Tabular transformers", "Attention over columns.", 2023),  # after the paper
          Hit("s2:3", "Gradient Boosted Trees for Tabular Data.", "Trees win on tables", 2019)]  # copy of s2:1
    q2 = [Hit("s2:4", "Mixture of experts layers", "Sparse gating of experts.", None),
          Hit("s2:1", "Gradient boosted trees for tabular data", "Trees win on tables.", 2019)]
    pool, stats = build_pool([q1, q2], "p1", paper_title, 2022)
    # r: q1 n=4 → lake:p1 1, s2:1 .75, s2:2 .5, s2:3 .25; q2 n=2 → s2:4 1, s2:1 .5 (keeps .75)
    # self drops lake:p1, future drops s2:2, dedupe drops s2:3 (copy of the more relevant s2:1)
    # MMR: s2:4 0.7·1 = .70 first; then s2:1 0.7·.75 − 0.3·J = .525 − 0 (no shared token) = .525
    assert [(e.candidate_id, e.relevance, e.pool_rank) for e in pool] == [("s2:4", 1.0, 0), ("s2:1", 0.75, 1)]
    assert stats.as_dict() == {"retrieved": 6, "distinct": 5, "self": 1, "future": 1, "duplicate": 1,
                               "beyond_pool": 0, "pool": 2}


def test_nothing_retrieved_is_an_empty_pool():
    pool, stats = build_pool([[], []], "p1", "T", 2020)
    assert pool == [] and stats.pool == 0 and stats.retrieved == 0
