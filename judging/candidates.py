"""The novelty judge's candidate pool: what the literature searches found, filtered, deduplicated,
weighted by relevance and diversified, as PRISM's novelty pipeline does (OpenNovelty task 2) — but
with the relevance kept and used, the paper itself excluded, and every step a pure function.

  relevance   the backend's normalized score (`score_norm`, the query's best hit = 1.0: the offline
              BM25 index) when every result of the query has one; else PRISM's r = (n − rank)/n within
              the query's n results (rank 0-based; Semantic Scholar gives no score). `relevance = "rank"`
              always uses PRISM's. A candidate found by several queries keeps its largest r. Computed on
              what the backend returned, before any filter, so r says how high the backend ranked it.
  filters     the paper itself (`lake:<paper_id>`, or a title with difflib ratio >= 0.96 to the
              paper's) and anything published after the paper (an unknown year is kept).
  dedupe      near-identical records (difflib ratio >= 0.96 on the normalized title + abstract
              prefix) keep only the most relevant one.
  MMR         greedy, λ = 0.7: each next pick maximizes 0.7·r − 0.3·(largest token Jaccard of its
              title+abstract with an already picked one), up to 30.
"""

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

SAME_TEXT_RATIO = 0.96
MMR_LAMBDA = 0.7
POOL_SIZE = 30
ABSTRACT_PREFIX_CHARS = 200  # enough to tell two papers with one title apart, cheap for difflib

_NON_WORD = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class PoolEntry:
    candidate_id: str
    title: str
    abstract: str | None
    year: int | None
    venue: str | None
    relevance: float
    pool_rank: int = -1  # position in MMR order; -1 before selection


@dataclass
class PoolStats:
    """How many retrieved records each step removed (stored with the judgment's inputs)."""

    retrieved: int = 0  # result rows over all queries
    distinct: int = 0  # distinct candidate ids
    self_matches: int = 0
    future: int = 0
    duplicates: int = 0
    beyond_pool: int = 0
    pool: int = 0

    def as_dict(self) -> dict:
        return {"retrieved": self.retrieved, "distinct": self.distinct, "self": self.self_matches,
                "future": self.future, "duplicate": self.duplicates, "beyond_pool": self.beyond_pool,
                "pool": self.pool}


def normalize(text: str | None) -> str:
    """Lower-case words separated by single spaces (punctuation and case never make two titles differ)."""
    return _NON_WORD.sub(" ", (text or "").lower()).strip()


def tokens(text: str | None) -> frozenset[str]:
    return frozenset(normalize(text).split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


RELEVANCE = ("score", "rank")  # the novelty judge's `relevance` setting; "score" is the default


def query_relevance(hits: Sequence, method: str = "score") -> list[float]:
    """r per hit of one query, in the backend's order: its normalized score (clamped to [0, 1]) when
    `method` is "score" and every hit has one, else (n − rank)/n."""
    n = len(hits)
    scores = [getattr(c, "score_norm", None) for c in hits]
    if method == "score" and n and all(isinstance(x, int | float) for x in scores):
        return [min(1.0, max(0.0, float(x))) for x in scores]
    return [(n - rank) / n for rank in range(n)]


def relevance_by_query(results: Sequence[Sequence], method: str = "score") -> list[PoolEntry]:
    """One entry per distinct candidate id, with its largest r over the queries, in first-seen order.
    `results[q]` is query q's candidates (objects with candidate_id, title, abstract, year, venue and
    optionally score_norm) in the backend's order."""
    if method not in RELEVANCE:
        raise ValueError(f"relevance = {method!r}; known: {', '.join(RELEVANCE)}")
    best: dict[str, PoolEntry] = {}
    for hits in results:
        for c, r in zip(hits, query_relevance(hits, method), strict=True):
            seen = best.get(c.candidate_id)
            if seen is None:
                best[c.candidate_id] = PoolEntry(c.candidate_id, c.title or "", c.abstract, c.year, c.venue, r)
            elif r > seen.relevance:
                best[c.candidate_id] = PoolEntry(seen.candidate_id, seen.title, seen.abstract, seen.year,
                                                 seen.venue, r)
    return list(best.values())


def is_self(entry: PoolEntry, paper_id: str, paper_title: str | None) -> bool:
    if entry.candidate_id == f"lake:{paper_id}":
        return True
    mine = normalize(paper_title)
    return bool(mine) and ratio(normalize(entry.title), mine) >= SAME_TEXT_RATIO


def is_future(entry: PoolEntry, paper_year: int | None) -> bool:
    return paper_year is not None and entry.year is not None and entry.year > paper_year


def _dedupe_key(entry: PoolEntry) -> tuple[str, str]:
    return normalize(entry.title), normalize(entry.abstract)[:ABSTRACT_PREFIX_CHARS]


def same_record(a: PoolEntry, b: PoolEntry) -> bool:
    """Near-identical title + abstract prefix. When either has no abstract the titles alone decide:
    a missing abstract says nothing about whether two records are one paper."""
    (ta, aa), (tb, ab) = _dedupe_key(a), _dedupe_key(b)
    if not aa or not ab:
        return ratio(ta, tb) >= SAME_TEXT_RATIO
    return ratio(f"{ta} {aa}", f"{tb} {ab}") >= SAME_TEXT_RATIO


def by_relevance(entries: Sequence[PoolEntry]) -> list[PoolEntry]:
    """Largest r first; ties keep their order (stable sort)."""
    return sorted(entries, key=lambda e: -e.relevance)


def dedupe(entries: Sequence[PoolEntry]) -> tuple[list[PoolEntry], int]:
    """Kept entries (most relevant first) and how many were dropped as a copy of a kept one."""
    kept: list[PoolEntry] = []
    for e in by_relevance(entries):
        if not any(same_record(e, k) for k in kept):
            kept.append(e)
    return kept, len(entries) - len(kept)


def mmr(entries: Sequence[PoolEntry], lam: float = MMR_LAMBDA, k: int = POOL_SIZE) -> list[PoolEntry]:
    """Greedy maximal marginal relevance; entries come back with pool_rank set (0-based). Ties go to
    the earlier entry in `entries`."""
    toks = [tokens(f"{e.title} {e.abstract or ''}") for e in entries]
    left = list(range(len(entries)))
    picked: list[int] = []
    while left and len(picked) < k:
        def score(i: int) -> float:
            sim = max((jaccard(toks[i], toks[j]) for j in picked), default=0.0)
            return lam * entries[i].relevance - (1 - lam) * sim
        best = max(left, key=lambda i: (score(i), -i))
        picked.append(best)
        left.remove(best)
    return [PoolEntry(entries[i].candidate_id, entries[i].title, entries[i].abstract, entries[i].year,
                      entries[i].venue, entries[i].relevance, rank) for rank, i in enumerate(picked)]


def build_pool(results: Sequence[Sequence], paper_id: str, paper_title: str | None, paper_year: int | None,
               size: int = POOL_SIZE, lam: float = MMR_LAMBDA,
               relevance: str = "score") -> tuple[list[PoolEntry], PoolStats]:
    """The MMR-ordered pool from every query's results, and what each step removed."""
    stats = PoolStats(retrieved=sum(len(h) for h in results))
    entries = relevance_by_query(results, relevance)
    stats.distinct = len(entries)
    kept = []
    for e in entries:
        if is_self(e, paper_id, paper_title):
            stats.self_matches += 1
        elif is_future(e, paper_year):
            stats.future += 1
        else:
            kept.append(e)
    kept, stats.duplicates = dedupe(kept)
    pool = mmr(kept, lam=lam, k=size)
    stats.beyond_pool = len(kept) - len(pool)
    stats.pool = len(pool)
    return pool, stats


def most_relevant(pool: Sequence[PoolEntry], n: int) -> list[PoolEntry]:
    """The n entries with the largest r; equal r in pool (MMR) order, so diversity breaks ties."""
    return sorted(pool, key=lambda e: (-e.relevance, e.pool_rank))[:n]
