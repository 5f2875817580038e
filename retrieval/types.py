"""Request and result types of a literature search, shared by the client, the backends and callers."""

from dataclasses import dataclass
from typing import Any

from peerlake.warehouse.canonical import canonical_json, sha256_text


@dataclass(frozen=True)
class RetrievalRequest:
    """One search of one backend.

    `request_key` covers what determines the answer: backend, query, limit, year_max and
    `index_version` (which index was searched; the client fills it in from the backend when the
    request leaves it None, so a grown offline index is a new request while old answers still
    replay under their version). `purpose`, `subject_id` and `study` are labels for lineage and
    cost attribution, not identity: two judges asking the same query share one answer.
    """

    backend: str
    query: str
    limit: int = 10
    year_max: int | None = None  # only works published in or before this year (unknown years kept)
    index_version: str | None = None
    purpose: str | None = None
    subject_id: str | None = None
    study: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise ValueError(f"limit must be a positive integer, got {self.limit!r}")

    def params(self) -> dict[str, Any]:
        """What besides backend and query shapes the answer (stored as the event's params_json)."""
        return {"limit": self.limit, "year_max": self.year_max, "index_version": self.index_version}

    @property
    def request_key(self) -> str:
        return sha256_text(canonical_json({"backend": self.backend, "query": self.query, **self.params()}))


@dataclass(frozen=True)
class Candidate:
    """A work a search returned. `candidate_id` names where it came from: "lake:<paper_id>",
    "related:<work_id>", "s2:<paperId>".

    `score` is the backend's raw score (BM25 for the offline index; None when the backend gives
    none, as Semantic Scholar's search does); `score_norm` is that score divided by the query's top
    score, so the best hit is 1.0 (None without scores); `rank` is the 0-based position in the
    answer. Callers without scores derive relevance from the rank."""

    candidate_id: str
    title: str
    abstract: str | None
    year: int | None
    venue: str | None
    score: float | None
    score_norm: float | None = None
    rank: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"candidate_id": self.candidate_id, "title": self.title, "abstract": self.abstract,
                "year": self.year, "venue": self.venue, "score": self.score, "score_norm": self.score_norm,
                "rank": self.rank}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Candidate":
        return cls(candidate_id=d["candidate_id"], title=d["title"], abstract=d.get("abstract"),
                   year=d.get("year"), venue=d.get("venue"), score=d.get("score"),
                   score_norm=d.get("score_norm"), rank=d.get("rank", 0))


@dataclass(frozen=True)
class RetrievalResult:
    request_key: str
    event_id: str  # the retrieval_call event holding the answer (the original one on replay)
    candidates: tuple[Candidate, ...]
    replayed: bool
