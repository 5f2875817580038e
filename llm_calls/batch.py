"""Provider batch APIs (OpenAI Batch, Anthropic Message Batches): half price, answered within a day.

`BatchRunner(gateway).call_many(requests)` answers like `Gateway.call_many(..., return_exceptions=True)`:
- requests already answered replay through the gateway (no batch); requests to a provider without
  a batch API (local, openai_compatible) are called one by one, as usual;
- the rest are submitted per (provider, endpoint, model), under the lake lock `llm_batches/submit`,
  so two processes never submit the same key: a key already in a pending batch is not submitted
  again. Each submission is an `llm_batch_submitted` event (custom_id = request_key; the uploaded
  JSONL stored redacted as a blob) written right after the provider accepted it;
- the polling state IS the log: a batch with no `llm_batch_finished` is pending, and the next run
  (after a restart, or `kill -9`) polls it again instead of paying for its keys twice;
- each answer becomes an ordinary `llm_call` (Gateway.record_answer with the batch id, priced at the
  batch rate), which replays like any other; `llm_batch_finished` records the end state;
- failed items that may succeed on another try (server errors, expired, cancelled) go into a new
  batch, at most `max_resubmits` times per call; then, and for refused requests at once, their slot
  holds the LlmCallFailed;
- when `max_wait_s` runs out, what is answered is returned, unanswered slots hold BatchPending and
  the batch stays pending in the log for the next run to collect.

A crash between the provider accepting a batch and its event reaching the log would lose the batch
id (the next run submits those keys again): the window is one fsync'd append.

Request blobs: before submitting, each request is stored as the gateway stores it (canonical JSON,
redacted). Unredacted — i.e. nearly always — that blob's address IS the request_key, so a run that
resumes someone else's batch can rebuild the request of a key it was not asked about.
"""

import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from peerlake.llm_calls.gateway import CostCapRefused, Gateway, LlmCallFailed
from peerlake.llm_calls.providers import (
    BatchItem,
    BatchState,
    Provider,
    ProviderError,
    ProviderUnavailable,
    RetryableProviderError,
)
from peerlake.llm_calls.stopping import CallsStopped, wait_or_stop
from peerlake.llm_calls.types import LlmRequest, LlmResult, canonical_json
from peerlake.warehouse.attribution import current
from peerlake.warehouse.events import LlmBatchFinished, LlmBatchSubmitted, LlmCall
from peerlake.warehouse.redact import redact_payload, redact_stored

log = logging.getLogger(__name__)

SUBMIT_LOCK = "llm_batches/submit"
# Far below both providers' limits (OpenAI 50,000 lines / 200 MB; Anthropic 100,000 / 256 MB):
# a reviewer prompt is ~40 kB, so 2,000 of them is ~80 MB.
MAX_BATCH_ITEMS = 2000
_INDEX_TYPES = ("llm_call", "llm_batch_submitted", "llm_batch_finished")


def _sleep_unless_stopped(seconds: float) -> None:
    """Waiting for a provider's batch ends when the run is asked to stop: what was submitted is in the log
    (llm_batch_submitted), and the next run collects it instead of submitting it again."""
    if wait_or_stop(seconds):
        raise CallsStopped("stopped waiting for the provider's batch: the run was asked to stop (the next run "
                           "collects the batch)")


class BatchPending(LlmCallFailed):
    """The answer is still being made in a provider batch; a later run collects it at no extra cost."""

    def __init__(self, req: LlmRequest, batch_id: str):
        super().__init__(f"{req.provider}/{req.model} call {req.request_key[:12]} is still pending in batch "
                         f"{batch_id}; run again to collect it", request_key=req.request_key, attempts=0,
                         error_type="BatchPending")
        self.batch_id = batch_id


@dataclass
class _Pending:
    event: LlmBatchSubmitted
    keys: set[str] = field(default_factory=set)


class BatchRunner:
    def __init__(self, gateway: Gateway, poll_interval_s: float = 60.0, max_wait_s: float = 25 * 3600.0,
                 max_resubmits: int = 2, sleep: Callable[[float], None] | None = None):
        self.gateway = gateway
        self.log = gateway.log
        self.poll_interval_s = poll_interval_s
        self.max_wait_s = max_wait_s
        self.max_resubmits = max_resubmits
        self._sleep = sleep or _sleep_unless_stopped
        self._reader = self.log.reader()
        self._answered: set[str] = set()
        self._submitted: dict[str, _Pending] = {}  # batch_id -> its event, while not finished
        self._finished: set[str] = set()
        # cost-cap reservations of the items submitted by this call_many, released when it returns
        self._reservations: list[tuple[str | None, float]] = []

    # ---- public ------------------------------------------------------------------------------
    def call_many(self, requests: Sequence[LlmRequest]) -> list[LlmResult | Exception]:
        reqs = [self.gateway.bind(r) for r in requests]
        results: list[LlmResult | Exception | None] = [None] * len(reqs)
        self._refresh()
        direct = [i for i, r in enumerate(reqs) if r.request_key in self._answered or not self._batchable(r)]
        if direct:  # replays (and calls to providers without a batch API) go through the gateway as usual
            for i, res in zip(direct, self.gateway.call_many([reqs[i] for i in direct], return_exceptions=True),
                              strict=True):
                results[i] = res
        slots: dict[str, list[int]] = defaultdict(list)  # one key asked twice is one item, two slots
        for i, r in enumerate(reqs):
            if results[i] is None:
                slots[r.request_key].append(i)
        by_key = {reqs[idx[0]].request_key: reqs[idx[0]] for idx in slots.values()}
        try:
            for key, res in self._run(by_key).items():
                for i in slots[key]:
                    results[i] = res
        finally:
            for token in self._reservations:
                self.gateway.release(token)
            self._reservations.clear()
        return results  # type: ignore[return-value]  # every slot is filled above

    def collect_pending(self) -> int:
        """Poll every pending batch once and record the ended ones; the number of batches finished."""
        self._refresh()
        done = 0
        for batch_id in list(self._submitted):
            state = self._poll(self._submitted[batch_id].event)
            if state is not None and state.ended:
                self._finish(self._submitted[batch_id].event, state, {})
                done += 1
        return done

    # ---- the loop ----------------------------------------------------------------------------
    def _run(self, todo: dict[str, LlmRequest]) -> dict[str, LlmResult | Exception]:
        out: dict[str, LlmResult | Exception] = {}
        resubmits: dict[str, int] = defaultdict(int)
        deadline = time.monotonic() + self.max_wait_s
        not_sent: dict[str, Exception] = {}
        while todo:
            if not_sent:  # the provider refused the last upload: give it a moment before the next one
                self._sleep(self.poll_interval_s)
            not_sent = self._submit(todo)
            ended, timed_out = self._wait({k: r for k, r in todo.items() if k not in not_sent}, deadline)
            ended.update(not_sent)
            for key, res in ended.items():
                req = todo[key]
                if isinstance(res, LlmResult | CostCapRefused):  # an answer, or left undone by the cap
                    out[key] = res
                    del todo[key]
                    continue
                retryable = isinstance(res, ProviderError) and res.retryable
                if retryable and resubmits[key] < self.max_resubmits and not timed_out:
                    resubmits[key] += 1  # stays in todo: the next round submits it in a new batch
                    continue
                out[key] = self._failed(req, res, resubmits[key], "retries exhausted" if retryable else "not retryable")
                del todo[key]
            if timed_out:  # what is still pending stays pending in the log, for the next run to collect
                for key, req in todo.items():
                    out[key] = BatchPending(req, self._pending_batch(key) or "?")
                log.warning("batch wait budget (%.0f s) spent: %d answers still pending; run again to collect "
                            "them at no extra cost", self.max_wait_s, len(todo))
                return out
        return out

    @staticmethod
    def _failed(req: LlmRequest, err: Exception, resubmits: int, why: str) -> LlmCallFailed:
        error_type = err.error_type if isinstance(err, ProviderError) else type(err).__name__
        return LlmCallFailed(
            f"{req.provider}/{req.model} call {req.request_key[:12]} (purpose={req.purpose}, "
            f"subject={req.subject_id}, sample={req.sample_index}) failed in {resubmits + 1} batch round(s) "
            f"({why}): {error_type}: {err}", request_key=req.request_key, attempts=resubmits + 1,
            error_type=error_type)

    def _wait(self, todo: dict[str, LlmRequest], deadline: float) -> tuple[dict[str, LlmResult | Exception], bool]:
        """Poll the batches holding `todo` keys until each has ended: each key's outcome (an answer,
        or the error that replaced it) so far, and whether the deadline came first."""
        outcome: dict[str, LlmResult | Exception] = {}
        while True:
            self._refresh()
            for key in list(todo):
                if key in self._answered and key not in outcome:  # answered meanwhile (another process)
                    outcome[key] = self.gateway.call(todo[key])
            waiting = {b for k in todo if k not in outcome and (b := self._pending_batch(k))}
            for batch_id in sorted(waiting):
                ev = self._submitted[batch_id].event
                state = self._poll(ev)
                if state is not None and state.ended:
                    outcome.update({k: v for k, v in self._finish(ev, state, todo).items() if k in todo})
            if all(k in outcome for k in todo):
                return outcome, False
            # Keys in a batch another process finished (it recorded what it got) but not answered:
            for key in todo:
                if key not in outcome and not self._pending_batch(key):
                    self._refresh()
                    outcome[key] = self.gateway.call(todo[key]) if key in self._answered else \
                        RetryableProviderError(f"batch item {key[:12]} failed in another process's batch",
                                               error_type="BatchItemFailed")
            if all(k in outcome for k in todo):
                return outcome, False
            if time.monotonic() + self.poll_interval_s > deadline:
                return outcome, True
            self._sleep(self.poll_interval_s)

    # ---- submitting --------------------------------------------------------------------------
    def _submit(self, todo: dict[str, LlmRequest]) -> dict[str, Exception]:
        """Submit the keys neither answered nor pending; the keys whose submission failed, with why."""
        not_sent: dict[str, Exception] = {}
        with self.log.lock(SUBMIT_LOCK):
            self._refresh()  # under the lock: what other processes submitted or answered is seen
            groups: dict[tuple, list[LlmRequest]] = defaultdict(list)
            for key, req in todo.items():
                if key in self._answered or self._pending_batch(key):
                    continue  # answered, or already in a pending batch: polled, never paid twice
                groups[(req.provider, req.endpoint, req.model)].append(req)
            for (provider_name, endpoint, model), group in sorted(groups.items(), key=lambda g: str(g[0])):
                provider = self._provider(provider_name)
                group = self._within_cap(group, not_sent)
                for start in range(0, len(group), MAX_BATCH_ITEMS):
                    chunk = group[start:start + MAX_BATCH_ITEMS]
                    try:
                        self._submit_one(provider, endpoint, model, chunk)
                    except ProviderError as exc:  # nothing was accepted: these keys may go in the next round
                        log.warning("submitting a batch of %d %s/%s calls failed: %s", len(chunk), provider_name,
                                    model, exc)
                        not_sent.update({r.request_key: exc for r in chunk})
        return not_sent

    def _within_cap(self, group: list[LlmRequest], refused: dict[str, Exception]) -> list[LlmRequest]:
        """The requests the run's cost cap admits (each reserved at its full, unbatched upper estimate:
        conservative); the others go to `refused`, left undone like a refused direct call."""
        admitted = []
        for req in group:
            try:
                self._reservations.append(self.gateway.reserve(req))
            except CostCapRefused as exc:
                refused[req.request_key] = exc
                continue
            admitted.append(req)
        return admitted

    def _submit_one(self, provider: Provider, endpoint: str | None, model: str, reqs: list[LlmRequest]) -> None:
        for req in reqs:  # see the module docstring: lets a later run rebuild these requests
            self.log.blobs.put_text(canonical_json(redact_payload(req.canonical())))
        lines = [provider.batch_line(req.request_key, req) for req in reqs]
        stored = "".join(json.dumps(redact_payload(line), ensure_ascii=False) + "\n" for line in lines)
        input_sha = self.log.blobs.put_text(stored)
        batch_id = provider.submit_batch(lines)
        ctx = current()
        ev = LlmBatchSubmitted(batch_id=batch_id, provider=provider.name, endpoint=endpoint, model=model,
                               request_keys_json=json.dumps([r.request_key for r in reqs]), input_sha256=input_sha,
                               n=len(reqs), study=reqs[0].study or ctx.study, dagster_run_id=ctx.dagster_run_id,
                               asset=ctx.asset)
        self.log.append(ev)  # fsync'd: from here on the batch is found by every later run
        self._note(ev)
        log.info("submitted %d %s/%s calls as batch %s", len(reqs), provider.name, model, batch_id)

    # ---- finishing ---------------------------------------------------------------------------
    def _poll(self, ev: LlmBatchSubmitted) -> BatchState | None:
        try:
            return self._provider(ev.provider).poll_batch(ev.batch_id)
        except (ProviderError, ProviderUnavailable) as exc:  # a network hiccup: poll again next round
            log.warning("polling batch %s failed: %s", ev.batch_id, exc)
            return None

    def _finish(self, ev: LlmBatchSubmitted, state: BatchState,
                known: dict[str, LlmRequest]) -> dict[str, LlmResult | Exception]:
        """Record an ended batch's answers and its llm_batch_finished (once, whoever gets there first)."""
        provider = self._provider(ev.provider)
        items, raw_text = provider.batch_results(state)
        by_id: dict[str, BatchItem] = {item.custom_id: item for item in items}
        latency_ms = max(0.0, (datetime.now(UTC) - ev.occurred_at).total_seconds() * 1000)
        outcome: dict[str, LlmResult | Exception] = {}
        with self.log.lock(f"llm_batches/finish/{_lock_part(ev.batch_id)}"):
            self._refresh()
            if ev.batch_id in self._finished:  # another process recorded it: its answers replay
                for key in json.loads(ev.request_keys_json):
                    if key in known and key in self._answered:
                        outcome[key] = self.gateway.call(known[key])
                return outcome
            n_ok = 0
            for key in json.loads(ev.request_keys_json):
                item = by_id.get(key)
                if item is None or item.response is None:
                    err = item.error if item is not None and item.error is not None else ProviderError(
                        f"batch {ev.batch_id} ended {state.status} without a result for {key[:12]}",
                        error_type=f"Batch{state.status}")
                    outcome[key] = err
                    if (req := known.get(key) or self._stored_request(key)) is not None:  # every failure is an event
                        self.gateway.record_failure(
                            req, error_type=err.error_type if isinstance(err, ProviderError) else type(err).__name__,
                            message=str(err), latency_ms=latency_ms, batch_id=ev.batch_id)
                    continue
                req = known.get(key) or self._stored_request(key)
                if req is None:
                    log.warning("batch %s answered %s, whose request is not in the lake; the answer is kept in "
                                "the batch's output blob only", ev.batch_id, key[:12])
                    continue
                outcome[key] = self.gateway.record_answer(req, item.response, latency_ms=latency_ms,
                                                          batch_id=ev.batch_id)
                n_ok += 1
            output_sha = self.log.blobs.put_text(redact_stored(raw_text) or "") if raw_text else None
            done = LlmBatchFinished(batch_id=ev.batch_id, provider=ev.provider, status=state.status, n_ok=n_ok,
                                    n_failed=ev.n - n_ok, output_sha256=output_sha)
            self.log.append(done)
            self._note(done)
        log.info("batch %s %s: %d answered, %d failed", ev.batch_id, state.status, n_ok, ev.n - n_ok)
        return outcome

    def _stored_request(self, key: str) -> LlmRequest | None:
        if not self.log.blobs.exists(key):
            return None
        data = json.loads(self.log.blobs.get_text(key))
        endpoint = data.pop("endpoint", None)
        try:
            req = LlmRequest(messages=tuple(data.pop("messages")), base_url=endpoint, **data)
        except TypeError:
            return None
        return req if req.request_key == key else None

    # ---- the log's view ----------------------------------------------------------------------
    def _refresh(self) -> None:
        for ev in self._reader.tail(_INDEX_TYPES):
            self._note(ev)

    def _note(self, ev: object) -> None:
        if isinstance(ev, LlmCall):
            if ev.status == "ok":
                self._answered.add(ev.request_key)
        elif isinstance(ev, LlmBatchSubmitted):
            if ev.batch_id not in self._finished:
                self._submitted[ev.batch_id] = _Pending(ev, set(json.loads(ev.request_keys_json)))
        elif isinstance(ev, LlmBatchFinished):
            self._finished.add(ev.batch_id)
            self._submitted.pop(ev.batch_id, None)

    def _pending_batch(self, key: str) -> str | None:
        """The newest unfinished batch holding this key, if any."""
        found = None
        for batch_id, pending in self._submitted.items():
            if key in pending.keys:
                found = batch_id
        return found

    def _batchable(self, req: LlmRequest) -> bool:
        try:
            return self._provider(req.provider).supports_batch
        except ProviderUnavailable:
            return False  # the gateway reports it properly, per call

    def _provider(self, name: str) -> Provider:
        return self.gateway.provider(name)


def _lock_part(batch_id: str) -> str:
    """A batch id as a lock-name part ([A-Za-z0-9_-])."""
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in batch_id)[:120]


__all__ = ["BatchPending", "BatchRunner"]
