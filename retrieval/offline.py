"""The default backend: BM25 (bm25s, Lucene variant, k1 = 1.5, b = 0.75, English stop words, no
stemming) over every work the lake knows (retrieval/corpus.py).

A request is keyed by the index's version (a hash of its documents), so the same query over a
grown lake is a new search, while an old answer still replays under the version it was made on.
The index is built once per version, on the first search that needs it (a replay needs none).

Scores: `score` is the BM25 score, `score_norm` the score divided by the query's top score (the best
hit is 1.0). Documents that share no term with the query (score 0) are not hits. Ties break by
document id, so an answer is a pure function of (query, index).
"""

import dataclasses
import threading
from collections import OrderedDict

from peerlake.retrieval.backend import Backend, FatalRetrievalError
from peerlake.retrieval.corpus import Document, LakeCorpus
from peerlake.retrieval.types import Candidate, RetrievalRequest
from peerlake.warehouse.log import EventLog

_KEEP_VERSIONS = 4  # a search bound to a version the lake just outgrew can still run on it


def _tokenize(texts: list[str]) -> list[list[str]]:
    import bm25s  # lazy: a client that only replays never pays for the import

    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


class Bm25Index:
    def __init__(self, docs: tuple[Document, ...]):
        import bm25s

        self.docs = docs
        self._bm25 = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        if docs:
            self._bm25.index(_tokenize([d.text for d in docs]), show_progress=False)

    def search(self, query: str, limit: int, year_max: int | None = None) -> list[Candidate]:
        terms = _tokenize([query])[0]
        if not self.docs or not terms:
            return []
        scores = self._bm25.get_scores(terms)
        hits = [(float(s), i) for i, s in enumerate(scores) if s > 0 and (
            year_max is None or self.docs[i].year is None or self.docs[i].year <= year_max)]
        hits.sort(key=lambda h: (-h[0], self.docs[h[1]].doc_id))
        hits = hits[:limit]
        best = hits[0][0] if hits else 1.0
        out = []
        for rank, (score, i) in enumerate(hits):
            d = self.docs[i]
            out.append(Candidate(candidate_id=d.doc_id, title=d.title, abstract=d.abstract, year=d.year,
                                 venue=d.venue, score=round(score, 6), score_norm=round(score / best, 6), rank=rank))
        return out


class OfflineBackend(Backend):
    name = "offline"

    @classmethod
    def for_lake(cls, log: EventLog) -> "OfflineBackend":
        return cls(log)  # the index is over every work this lake knows

    def __init__(self, log: EventLog):
        self.corpus = LakeCorpus(log)
        self._lock = threading.Lock()
        self._versions: OrderedDict[str, tuple[Document, ...]] = OrderedDict()
        self._indexes: dict[str, Bm25Index] = {}

    def current_version(self) -> str:
        version, docs = self.corpus.refresh()
        with self._lock:
            self._versions[version] = docs
            self._versions.move_to_end(version)
            while len(self._versions) > _KEEP_VERSIONS:
                old, _ = self._versions.popitem(last=False)
                self._indexes.pop(old, None)
        return version

    def bind(self, req: RetrievalRequest) -> RetrievalRequest:
        if req.index_version is not None:
            return req
        return dataclasses.replace(req, index_version=self.current_version())

    def index(self, version: str) -> Bm25Index:
        with self._lock:
            known = version in self._versions
        current = None if known else self.current_version()  # a version named by an earlier run
        with self._lock:
            if version not in self._versions:
                raise FatalRetrievalError(
                    f"offline index version {version[:12]} is not this lake's current index "
                    f"({(current or '')[:12]}): its answers replay, but it cannot be searched again",
                    error_type="StaleIndexVersion")
            if version not in self._indexes:
                self._indexes[version] = Bm25Index(self._versions[version])
            return self._indexes[version]

    def search(self, req: RetrievalRequest) -> list[Candidate]:
        version = req.index_version or self.current_version()
        return self.index(version).search(req.query, req.limit, req.year_max)
