"""Semantic Scholar Graph API relevance search (`GET /paper/search`) through httpx.

The optional key ($SEMANTIC_SCHOLAR_API_KEY, read in warehouse/settings.py) goes in the `x-api-key`
header only: never in the request key, the event, or an error message (the client redacts those).
429, 5xx, timeouts and garbled bodies are retried; any other 4xx is fatal. The search returns no
score, so candidates carry `score = None` and callers rank by position. A base URL other than the
public API (a proxy, a test server) is part of the request's identity, as `index_version`
"endpoint:<url>", so its answers never replay as the public API's.
"""

import dataclasses
import threading
from typing import Any

import httpx

from peerlake.retrieval.backend import Backend, FatalRetrievalError, RetryableRetrievalError, retryable_status
from peerlake.retrieval.types import Candidate, RetrievalRequest
from peerlake.warehouse import settings

DEFAULT_BASEURL = "https://api.semanticscholar.org/graph/v1"
FIELDS = "title,abstract,year,venue,externalIds,url"


def _normalized(url: str) -> str:
    return url.strip().rstrip("/")


def _retry_after(resp: httpx.Response) -> float | None:
    try:
        return float(resp.headers["retry-after"])
    except (KeyError, ValueError):
        return None  # absent, or an HTTP date: the client's own backoff applies


class SemanticScholarBackend(Backend):
    name = "semantic_scholar"

    def __init__(self, base_url: str | None = None, timeout_s: float = 30.0):
        self.base_url = _normalized(base_url or settings.semantic_scholar_baseurl())
        self.timeout_s = timeout_s
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()

    def bind(self, req: RetrievalRequest) -> RetrievalRequest:
        if req.index_version is not None or self.base_url == DEFAULT_BASEURL:
            return req
        return dataclasses.replace(req, index_version=f"endpoint:{self.base_url}")

    def _client(self) -> httpx.Client:
        with self._lock:
            if self._http is None:
                self._http = httpx.Client(timeout=self.timeout_s)
            return self._http

    def search(self, req: RetrievalRequest) -> list[Candidate]:
        params: dict[str, Any] = {"query": req.query, "limit": req.limit, "fields": FIELDS}
        if req.year_max is not None:
            params["year"] = f"-{req.year_max}"  # the API's range syntax: up to and including that year
        headers = {"x-api-key": key} if (key := settings.semantic_scholar_api_key()) else {}
        try:
            resp = self._client().get(f"{self.base_url}/paper/search", params=params, headers=headers)
        except httpx.TimeoutException as exc:
            raise RetryableRetrievalError(f"timeout after {self.timeout_s}s: {exc}", error_type="Timeout") from None
        except httpx.TransportError as exc:
            raise RetryableRetrievalError(f"{type(exc).__name__}: {exc}", error_type="ConnectionError") from None
        if resp.status_code != 200:
            message = f"HTTP {resp.status_code}: {resp.text[:500]}"
            if retryable_status(resp.status_code):
                raise RetryableRetrievalError(message, status=resp.status_code, retry_after_s=_retry_after(resp),
                                              error_type=f"HTTP{resp.status_code}")
            raise FatalRetrievalError(message, status=resp.status_code, error_type=f"HTTP{resp.status_code}")
        try:
            body = resp.json()
            rows = body.get("data") or []  # no hits: the API leaves `data` out
            if not isinstance(rows, list):
                raise TypeError(f"'data' is a {type(rows).__name__}")
            return [_candidate(row, rank) for rank, row in enumerate(rows[:req.limit])]
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise RetryableRetrievalError(f"unusable answer: {type(exc).__name__}: {exc}",
                                          error_type="BadResponse") from None


def _candidate(row: dict, rank: int) -> Candidate:
    year = row.get("year")
    return Candidate(candidate_id=f"s2:{row['paperId']}", title=(row.get("title") or "").strip(),
                     abstract=row.get("abstract") or None, year=year if isinstance(year, int) else None,
                     venue=row.get("venue") or None, score=None, score_norm=None, rank=rank)
