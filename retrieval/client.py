"""The one door for literature searches: replay, retries, and an event per attempt.

Replay: a `retrieval_call` event with status "ok" for a request_key means that search is answered;
the client returns the recorded candidates and writes nothing. The backend first binds the request
(the offline index fills in its `index_version`), so a grown index is a new request while old answers
keep replaying under their version. The index of answered keys is built from the whole log when the
client starts and kept fresh from the log's tail. As in llm_calls/gateway.py, "refresh → check →
search → append" runs under a per-request_key lock of the lake (`retrieval_call/<key>`, beside the
gateway's `llm_call/<key>`), so two processes asking the same new question pay for it once.
"""

import json
import logging
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from peerlake.retrieval.backend import Backend, RetrievalError
from peerlake.retrieval.types import Candidate, RetrievalRequest, RetrievalResult, canonical_json
from peerlake.warehouse.attribution import current, in_context
from peerlake.warehouse.events import RetrievalCall
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.redact import redact_message, redact_stored
from peerlake.warehouse.replays import record_replays

log = logging.getLogger(__name__)


class RetrievalFailed(Exception):
    """A search that could not be answered: a fatal error, or retries exhausted. Attempts are recorded."""

    def __init__(self, message: str, *, request_key: str, attempts: int, error_type: str | None):
        super().__init__(message)
        self.request_key = request_key
        self.attempts = attempts
        self.error_type = error_type


class RetrievalBatchFailed(Exception):
    """Some searches of a `search_many` batch failed; every other one finished and was recorded."""

    def __init__(self, failures: dict[int, Exception], results: list):
        first = min(failures)
        super().__init__(f"{len(failures)} of {len(results)} searches failed; first (#{first}): {failures[first]}")
        self.failures = failures
        self.results = results


@dataclass
class RetrievalStats:
    searches_made: int = 0  # backend searches that succeeded (each one an "ok" event)
    replayed: int = 0
    failed_attempts: int = 0


class RetrievalClient:
    def __init__(self, log: EventLog, backends: dict[str, Backend] | None = None, max_attempts: int = 3, *,
                 max_concurrency: int = 4, backoff_base_s: float = 1.0, backoff_max_s: float = 30.0):
        if max_attempts < 1 or max_concurrency < 1:
            raise ValueError(f"max_attempts ({max_attempts}) and max_concurrency ({max_concurrency}) must be >= 1")
        self.log = log
        self.max_attempts = max_attempts
        self.max_concurrency = max_concurrency
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.stats = RetrievalStats()
        self._backends: dict[str, Backend] = dict(backends or {})
        self._lock = threading.Lock()  # guards the index, stats, backends and the tail cursor
        self._reader = log.reader()  # our own tail cursor
        self._answered: dict[str, RetrievalCall] = {}
        self._attempts_seen: dict[str, int] = {}
        self._refresh()

    # ---- public ------------------------------------------------------------------------------
    def bind(self, req: RetrievalRequest) -> RetrievalRequest:
        """The request as it will be keyed: with the index version its backend would search."""
        if req.index_version is not None:
            return req
        try:
            backend = self._backend(req.backend)
        except ValueError:
            return req  # an unknown backend: replay may still answer; a search fails in search()
        return backend.bind(req)

    def search(self, req: RetrievalRequest) -> RetrievalResult:
        """The recorded answer if there is one, else a backend search (with retries) that is recorded."""
        replays: list[tuple[str, str]] = []
        try:
            return self._search(req, replays)
        finally:
            record_replays(self.log, "retrieval", replays)

    def _search(self, req: RetrievalRequest, replays: list[tuple[str, str]]) -> RetrievalResult:
        req = self.bind(req)
        key = req.request_key
        if (hit := self._answer(key)) is not None:
            return self._replay(hit, replays)
        backend = self._backend(req.backend)
        with self.log.request_lock(key, "retrieval_call"):  # the same claim as the model gateway's
            self._refresh()
            if (hit := self._answer(key)) is not None:
                return self._replay(hit, replays)
            return self._search_with_retries(req, backend)

    def search_many(self, reqs: Sequence[RetrievalRequest], return_exceptions: bool = True) -> list:
        """Results in input order. A failed search does not stop the others: with return_exceptions
        its slot holds the exception, otherwise RetrievalBatchFailed is raised once all finished."""
        results: list = [None] * len(reqs)
        failures: dict[int, Exception] = {}
        replays: list[tuple[str, str]] = []
        with ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="retrieval") as pool:
            futures = {pool.submit(in_context(self._search), req, replays): i for i, req in enumerate(reqs)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as exc:  # one bad search must not sink the batch
                    failures[i] = exc
                    if return_exceptions:
                        results[i] = exc
        record_replays(self.log, "retrieval", replays)
        if failures and not return_exceptions:
            raise RetrievalBatchFailed(failures, results)
        return results

    # ---- index -------------------------------------------------------------------------------
    def _refresh(self) -> None:
        with self._lock:
            for ev in self._reader.tail(("retrieval_call",)):
                self._note(ev)

    def _note(self, ev: RetrievalCall) -> None:
        self._attempts_seen[ev.request_key] = max(self._attempts_seen.get(ev.request_key, 0), ev.attempt)
        if ev.status == "ok":
            self._answered.setdefault(ev.request_key, ev)

    def _answer(self, key: str) -> RetrievalCall | None:
        with self._lock:
            return self._answered.get(key)

    def _backend(self, name: str) -> Backend:
        with self._lock:
            if name not in self._backends:
                from peerlake.retrieval.backends import make_backend  # lazy: the offline index loads bm25s

                self._backends[name] = make_backend(name, self.log)
            return self._backends[name]

    def _replay(self, ev: RetrievalCall, replays: list[tuple[str, str]]) -> RetrievalResult:
        replays.append((ev.request_key, ev.event_id))
        with self._lock:
            self.stats.replayed += 1
        rows = json.loads(ev.results_json or "[]")
        return RetrievalResult(request_key=ev.request_key, event_id=ev.event_id,
                               candidates=tuple(Candidate.from_json(r) for r in rows), replayed=True)

    # ---- searching ---------------------------------------------------------------------------
    def _backoff_s(self, failures: int, retry_after_s: float | None) -> float:
        """Full jitter: uniform in [0, base·2^n], capped; never sooner than a server's Retry-After."""
        delay = random.uniform(0, min(self.backoff_max_s, self.backoff_base_s * 2 ** failures))
        if retry_after_s is not None:
            delay = max(delay, min(retry_after_s, self.backoff_max_s))
        return delay

    def _search_with_retries(self, req: RetrievalRequest, backend: Backend) -> RetrievalResult:
        key = req.request_key
        with self._lock:
            first_attempt = self._attempts_seen.get(key, 0) + 1  # numbering continues across runs
        for n in range(self.max_attempts):
            attempt = first_attempt + n
            started = time.perf_counter()
            try:
                candidates = backend.search(req)
            except Exception as exc:  # every failure is an event, whatever raised it
                latency_ms = (time.perf_counter() - started) * 1000
                err = exc if isinstance(exc, RetrievalError) else None
                error_type = err.error_type if err else type(exc).__name__
                message = redact_message(str(exc)) or error_type
                self._record(req, attempt, latency_ms, error_type=error_type, message=message)
                retryable = bool(err and err.retryable)
                if not retryable or n == self.max_attempts - 1:
                    why = "retries exhausted" if retryable else "not retryable"
                    raise RetrievalFailed(
                        f"{req.backend} search {key[:12]} (purpose={req.purpose}, subject={req.subject_id}) "
                        f"failed on attempt {attempt} ({why}, {n + 1} this run): {error_type}: {message}",
                        request_key=key, attempts=n + 1, error_type=error_type) from None
                delay = self._backoff_s(n, err.retry_after_s)
                log.info("retrying search %s in %.2fs after %s: %s", key[:12], delay, error_type, message[:200])
                time.sleep(delay)
                continue
            latency_ms = (time.perf_counter() - started) * 1000
            ev = self._record(req, attempt, latency_ms, candidates=candidates)
            # From the stored JSON, so a fresh answer and its later replays are equal to the bit.
            return RetrievalResult(request_key=key, event_id=ev.event_id, replayed=False,
                                   candidates=tuple(Candidate.from_json(r) for r in json.loads(ev.results_json)))
        raise AssertionError("unreachable")

    def _record(self, req: RetrievalRequest, attempt: int, latency_ms: float, *,
                candidates: list[Candidate] | None = None, error_type: str | None = None,
                message: str | None = None) -> RetrievalCall:
        ok = error_type is None
        ctx = current()
        results = redact_stored(canonical_json([c.to_json() for c in candidates or []])) if ok else None
        ev = RetrievalCall(request_key=req.request_key, backend=req.backend, query=req.query,
                           params_json=canonical_json(req.params()), results_json=results,
                           n_results=len(candidates or []) if ok else None, latency_ms=round(latency_ms, 3),
                           attempt=attempt, status="ok" if ok else "error", error_type=error_type,
                           error_message=message, purpose=req.purpose, subject_id=req.subject_id,
                           study=req.study or ctx.study, dagster_run_id=ctx.dagster_run_id, asset=ctx.asset)
        self.log.append(ev)  # fsync'd: the answer survives a crash once we return
        with self._lock:
            self._note(ev)
            if ok:
                self.stats.searches_made += 1
            else:
                self.stats.failed_attempts += 1
        return ev
