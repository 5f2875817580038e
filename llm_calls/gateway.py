"""The one entry point for every model call: replay, retries, cost, and an event per attempt.

Replay: an `llm_call` event with status "ok" for a request_key means that request is answered; the
gateway returns the recorded response and writes nothing. The request_key includes the provider
endpoint, which the gateway fills in from the provider (`bind`) when the request names none. The
index of answered keys is built from the whole log (sealed segments and unsealed write-ahead lines)
when the gateway starts and kept fresh from the log's tail (events any process appended since). Two
processes asking the same new question would both pay for it, so the "refresh → check → call →
append" sequence runs under the log's per-request_key lock: the second one blocks, then finds the
first one's event and replays it.

Before the first call naming a prompt_hash, the template's source text is stored as a blob with a
`prompt_template_stored` event, once per hash per lake; likewise the price table a call is priced
with (`price_table_recorded`, once per version).

Every event carries the caller's labels (warehouse.attribution: study, Dagster run, asset). Replays
write no llm_call; each batch of them is counted in one `calls_replayed` event. A replay of an answer
the same Dagster run recorded (a step retried after its first attempt made the call) is made by that
run: `LlmResult.made_in_run` and `GatewayStats.made_in_run`, the one count every summary reads.

Cost cap (llm_calls.budget): under a cap (the run's, from the attribution context, or the gateway's
own), a new paid call is made only if the run's spending + calls in flight + this call's upper
estimate (everything the request as sent lets the provider bill, reasoning included) stay within
it; otherwise a `cost_cap_reached` event and CostCapRefused. Replays and free providers are never
refused.
"""

import dataclasses
import json
import logging
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass

from peerlake.llm_calls.budget import Ledger, effective_cap, max_output_tokens, refusal_message, upper_cost_usd
from peerlake.llm_calls.cost import NO_USAGE, PriceTable, load_price_table, price_call
from peerlake.llm_calls.images import with_image_data
from peerlake.llm_calls.progress import call_progress
from peerlake.llm_calls.providers import (
    Provider,
    ProviderError,
    ProviderResponse,
    ProviderUnavailable,
    UnsupportedRequest,
    make_provider,
)
from peerlake.llm_calls.stopping import CallsStopped, stop_requested, wait_or_stop
from peerlake.llm_calls.throughput import Expected, Throughput, is_serial
from peerlake.llm_calls.types import LlmRequest, LlmResult, Usage, canonical_json, sha256_text
from peerlake.warehouse.attribution import current, in_context
from peerlake.warehouse.events import CostCapReached, LlmCall, PriceTableRecorded, PromptTemplateStored
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.redact import redact_message, redact_payload, redact_stored
from peerlake.warehouse.replays import record_replays

_INDEX_TYPES = ("llm_call", "prompt_template_stored", "price_table_recorded")

log = logging.getLogger(__name__)


class LlmCallFailed(Exception):
    """A call that could not be answered: a fatal error, or retries exhausted. Attempts are recorded."""

    def __init__(self, message: str, *, request_key: str, attempts: int, error_type: str | None):
        super().__init__(message)
        self.request_key = request_key
        self.attempts = attempts
        self.error_type = error_type


class CostCapRefused(LlmCallFailed):
    """A new paid call not made: it could have taken the run past its cost cap (nothing was sent).
    Callers treat it as work left undone, not as a failure."""

    def __init__(self, message: str, *, request_key: str, cap_usd: float, spent_usd: float,
                 estimated_cost_usd: float | None):
        super().__init__(message, request_key=request_key, attempts=0, error_type="cost_cap")
        self.cap_usd = cap_usd
        self.spent_usd = spent_usd  # completed + in flight, before this call
        self.estimated_cost_usd = estimated_cost_usd


class LlmBatchFailed(Exception):
    """Some calls of a `call_many` batch failed; every other call finished and was recorded."""

    def __init__(self, failures: dict[int, Exception], results: list[LlmResult | None]):
        first = next(iter(sorted(failures.items())))
        super().__init__(f"{len(failures)} of {len(results)} calls failed; first (#{first[0]}): {first[1]}")
        self.failures = failures
        self.results = results


@dataclass
class GatewayStats:
    calls_made: int = 0  # provider calls that succeeded (each one is an "ok" event)
    replayed: int = 0  # answers another run (or no run) recorded
    # Answers this same Dagster run recorded, replayed (a step retried after its first attempt made the
    # calls): the run made them, so they count as made (`made_in_run`), with what they cost.
    replayed_own: int = 0
    replayed_own_cost_usd: float = 0.0
    failed_attempts: int = 0
    cost_usd: float = 0.0  # new spending only; replays cost nothing
    unpriced_calls: int = 0  # ok calls whose cost is unknown (not counted in cost_usd)
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    refused_calls: int = 0  # new paid calls not made because of the cost cap

    def snapshot(self) -> "GatewayStats":
        return GatewayStats(**asdict(self))

    @property
    def made_in_run(self) -> int:
        """Results made by this run: the count asset summaries report as "model calls made"."""
        return self.calls_made + self.replayed_own

    @property
    def made_in_run_cost_usd(self) -> float:
        return self.cost_usd + self.replayed_own_cost_usd


class Gateway:
    def __init__(self, log: EventLog, max_concurrency: int = 4, max_attempts: int = 5,
                 providers: dict[str, Provider] | None = None, *, backoff_base_s: float = 1.0,
                 backoff_max_s: float = 60.0, price_table: PriceTable | None = None,
                 max_cost_usd: float | None = None):
        if max_concurrency < 1 or max_attempts < 1:
            raise ValueError(f"max_concurrency ({max_concurrency}) and max_attempts ({max_attempts}) must be >= 1")
        self.log = log
        self.max_concurrency = max_concurrency
        self.max_attempts = max_attempts
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.prices = price_table or load_price_table()
        self.stats = GatewayStats()
        self.max_cost_usd = max_cost_usd  # this gateway's own cap; the run's (attribution) applies too
        self._ledger = Ledger()
        self._providers: dict[str, Provider] = dict(providers or {})
        self._ready: set[str] = set()
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._lock = threading.Lock()  # guards the index, stats and providers
        # A reader of our own, so other users of `log` calling tail() cannot consume our cursor.
        self._reader = log.reader()
        # Refreshes are shared like the WAL's fsyncs: one thread tails the log (the cursor is its
        # alone meanwhile) for every thread that asked before that tail began (see _refresh).
        self._tail_cv = threading.Condition(threading.Lock())
        self._tails_started = 0
        self._tails_done = 0
        self._answered: dict[str, LlmCall] = {}
        self._attempts_seen: dict[str, int] = {}
        self._templates_stored: set[str] = set()  # prompt hashes whose source is in the lake
        self._price_versions: set[str] = set()  # price table versions recorded in the lake
        self._throughput = Throughput()  # the log's call times, for ETAs and the dry run's wall time
        self._refresh()

    # ---- public ------------------------------------------------------------------------------
    def bind(self, req: LlmRequest) -> LlmRequest:
        """The request as this gateway keys it: with the endpoint its provider would send it to."""
        try:
            provider = self._provider(req.provider, ready=False)
        except ProviderUnavailable:
            return req  # an unknown provider: replay may still answer; a call fails in call()
        endpoint = provider.endpoint(req)
        return req if endpoint == req.base_url else dataclasses.replace(req, base_url=endpoint)

    def answered(self, req: LlmRequest) -> bool:
        """Whether the (bound) request is answered in the log: a call would replay it for free."""
        return self._answer(self.bind(req).request_key) is not None

    def logged(self, req: LlmRequest) -> LlmResult | None:
        """The log's answer to the (bound) request, without calling anything and without counting a
        replay: what a dry run reads to plan the calls that depend on earlier answers."""
        ev = self._answer(self.bind(req).request_key)
        if ev is None:
            return None
        return self._result(req, ev.event_id, ev.response_text or "", Usage(
            input_tokens=ev.input_tokens, cached_input_tokens=ev.cached_input_tokens,
            cache_write_tokens=ev.cache_write_tokens, output_tokens=ev.output_tokens,
            reasoning_tokens=ev.reasoning_tokens), ev.cost_usd, True, ev.finish_reason, None)

    def provider(self, name: str) -> Provider:
        """This gateway's provider instance for `name`, ready to use (its endpoint, client and key
        handling): for callers that speak a provider protocol other than `complete`, e.g. batches."""
        return self._provider(name)

    def output_bound(self, req: LlmRequest, provider: Provider | None = None) -> int:
        """The most output tokens the request lets its provider bill (reasoning and thinking included)."""
        try:
            provider = provider or self._provider(req.provider, ready=False)
            return provider.output_bound(req)
        except (ProviderUnavailable, UnsupportedRequest):
            return max_output_tokens(req)  # no call can be made: the answer budget, for a dry run's row

    def reasoning_prior(self, req: LlmRequest) -> tuple[int, int, int] | None:
        """The provider's prior for one call's reasoning tokens (lo, mean, hi), None where it does not reason."""
        try:
            return self._provider(req.provider, ready=False).reasoning_prior(req)
        except (ProviderUnavailable, UnsupportedRequest):
            return None

    def throughput(self) -> Throughput:
        """The call times of every llm_call in the log (kept fresh with the index): see llm_calls.throughput."""
        return self._throughput

    def is_free(self, provider: str) -> bool:
        """Whether calls to this provider cost nothing (the embedded local model)."""
        try:
            return self._provider(provider, ready=False).free
        except ProviderUnavailable:
            return False

    def spent_usd(self, run_id: str | None = None) -> float:
        """What the run (or, without a run id, this gateway outside any run) spent on recorded calls."""
        self._refresh()
        with self._lock:
            return self._ledger.spent(run_id)

    def call(self, req: LlmRequest) -> LlmResult:
        """The recorded answer if there is one, else a provider call (with retries) that is recorded."""
        replays: list[tuple[str, str]] = []
        try:
            return self._call(req, replays)
        finally:
            record_replays(self.log, "llm", replays)

    def _call(self, req: LlmRequest, replays: list[tuple[str, str]], on_start=None) -> LlmResult:
        req = self.bind(req)
        key = req.request_key
        if (hit := self._answer(key)) is not None:
            return self._replay(req, hit, replays)
        provider = self._provider(req.provider)
        provider.param_changes(req)  # UnsupportedRequest: a request its model cannot take, before any call
        with self.log.request_lock(key):
            self._refresh()
            if (hit := self._answer(key)) is not None:
                return self._replay(req, hit, replays)
            if stop_requested():  # what is answered replays above; nothing new starts after a stop
                raise CallsStopped(f"{req.provider}/{req.model} call {key[:12]} not started: the run was asked to stop")
            run_id, reserved = self._reserve(req, provider)
            try:
                self._store_template(req)
                self._store_price_table()
                return self._call_with_retries(req, provider, on_start)
            finally:
                with self._lock:
                    self._ledger.release(run_id, reserved)

    def call_many(self, reqs: Sequence[LlmRequest], progress: bool | None = None, description: str = "",
                  return_exceptions: bool = False) -> list:
        """Results in input order, at most `max_concurrency` in flight (recording an answer holds no
        slot: see `_workers`).

        A failed call does not stop the others. With return_exceptions its slot holds the exception;
        otherwise LlmBatchFailed (carrying the partial results) is raised once all have finished.
        """
        self._refuse_unsupported(reqs)
        results: list = [None] * len(reqs)
        failures: dict[int, Exception] = {}
        replays: list[tuple[str, str]] = []  # list.append is atomic: the workers share it
        stopped: CallsStopped | None = None
        with call_progress(len(reqs), description, self.stats, enabled=progress,
                           **({} if progress is False else self._eta_start(reqs))) as bar, \
                ThreadPoolExecutor(max_workers=self._workers(), thread_name_prefix="llm") as pool:
            # Each worker runs under the caller's context, so its events carry the caller's labels.
            futures = {pool.submit(in_context(self._call), req, replays, bar.started): i
                       for i, req in enumerate(reqs)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except CallsStopped as exc:  # the others finish (in flight) or stop (not started) too
                    stopped = stopped or exc
                    continue
                except Exception as exc:  # one bad request must not sink the batch
                    failures[i] = exc
                    if return_exceptions:
                        results[i] = exc
                bar.advance(results[i])
        record_replays(self.log, "llm", replays)
        if stopped is not None:  # after the replays are recorded: what the batch answered stays counted
            raise stopped
        if failures and not return_exceptions:
            raise LlmBatchFailed(failures, results)
        return results

    def _eta_start(self, reqs: Sequence[LlmRequest]) -> dict:
        """Where a batch's ETA starts: the calls to make, one's expected seconds (their mean), how many run at once."""
        new = [r for r in reqs if not self.answered(r)]
        expected = [self._throughput.expected_for(r) for r in new]
        serial = bool(new) and all(is_serial(r.provider) for r in new)
        start = None if not expected else Expected(
            sum(e.seconds for e in expected) / len(expected),
            "prior" if any(e.basis == "prior" for e in expected) else "history")
        return {"to_make": len(new), "expected": start, "parallel": 1 if serial else self.max_concurrency,
                "serial": serial}

    def _refuse_unsupported(self, reqs: Sequence[LlmRequest]) -> None:
        """Raise UnsupportedRequest for the first unanswered request its model cannot take, before any
        call of the batch: a wrong setting (temperature on o3, logprobs on Claude) is one clear error
        naming it, not a column of failed calls. Answered requests replay whatever the rules say now."""
        for req in reqs:
            try:
                provider = self._provider(req.provider, ready=False)
            except ProviderUnavailable:
                continue  # failed per call, as before
            bound = self.bind(req)
            if self._answer(bound.request_key) is None:
                provider.param_changes(bound)

    def _workers(self) -> int:
        """Threads for call_many. The provider slots (`_slots`) bound the requests in flight to
        max_concurrency; recording an answer (blobs, the fsync'd event) and preparing the next call
        (request lock, tail of the log, request blob) hold no slot, so twice as many threads keep
        every slot busy while others record. One thread per slot where that would change what a
        caller sees: with one slot the calls go one after another in input order, and under a cost
        cap a thread waiting for a slot would hold a reservation (counted as in flight) and refuse
        calls that fit."""
        if self.max_concurrency == 1 or effective_cap(self.max_cost_usd, current().max_cost_usd) is not None:
            return self.max_concurrency
        return 2 * self.max_concurrency

    # ---- cost cap ----------------------------------------------------------------------------
    def reserve(self, req: LlmRequest) -> tuple[str | None, float]:
        """For callers that pay outside `call` (provider batches): reserve the request's upper
        estimate against the run's cap, or raise CostCapRefused (and record it). Hand the returned
        token to `release` once the answer is recorded or given up."""
        req = self.bind(req)
        return self._reserve(req, self._provider(req.provider, ready=False))

    def release(self, token: tuple[str | None, float]) -> None:
        with self._lock:
            self._ledger.release(*token)

    def _reserve(self, req: LlmRequest, provider: Provider) -> tuple[str | None, float]:
        """Reserve this call's upper estimate against the cap, or refuse it. Runs after the replay
        check under the request lock, with the index just refreshed, so the run's spending is current."""
        ctx = current()
        cap = effective_cap(self.max_cost_usd, ctx.max_cost_usd)
        if cap is None or provider.free:
            return ctx.dagster_run_id, 0.0
        with self._lock:
            ratio = self._ledger.ratio(req)
        estimate = upper_cost_usd(req, self.prices, ratio, output_tokens=self.output_bound(req, provider))
        with self._lock:  # check and reserve at once: other threads' calls are checking too
            spent = self._ledger.spent(ctx.dagster_run_id)
            in_flight = self._ledger.in_flight(ctx.dagster_run_id)
            if estimate is not None and spent + in_flight + estimate <= cap:
                self._ledger.reserve(ctx.dagster_run_id, estimate)
                return ctx.dagster_run_id, estimate
            self.stats.refused_calls += 1
        self.log.append(CostCapReached(
            request_key=req.request_key, purpose=req.purpose, provider=req.provider, model=req.model, cap_usd=cap,
            spent_usd=round(spent + in_flight, 9), estimated_cost_usd=estimate, study=req.study or ctx.study,
            dagster_run_id=ctx.dagster_run_id, asset=ctx.asset))
        raise CostCapRefused(refusal_message(req, cap=cap, spent=spent, in_flight=in_flight, estimate=estimate),
                             request_key=req.request_key, cap_usd=cap, spent_usd=spent + in_flight,
                             estimated_cost_usd=estimate)

    # ---- index -------------------------------------------------------------------------------
    def _refresh(self) -> None:
        """Bring the index up to date with every event appended (by any process) before this call.

        A tail that began before this call may miss such an event, one that begins after it may not.
        So the caller waits for the next tail to begin and end, or runs it itself when none is
        running: threads asking at once (under their request locks) share one read of the log."""
        with self._tail_cv:
            target = self._tails_started + 1  # the running tail (if any) is number _tails_started
            while self._tails_done < target:
                if self._tails_started >= target:  # ours has begun in another thread
                    self._tail_cv.wait()
                    continue
                if self._tails_started > self._tails_done:  # an older tail is running: wait for it
                    self._tail_cv.wait()
                    continue
                self._tails_started += 1
                ok = False
                self._tail_cv.release()
                try:
                    events = self._reader.tail(_INDEX_TYPES)  # I/O outside _lock: calls go on meanwhile
                    with self._lock:
                        for ev in events:
                            if isinstance(ev, LlmCall):
                                self._note(ev)
                            elif isinstance(ev, PromptTemplateStored):
                                self._templates_stored.add(ev.prompt_hash)
                            elif isinstance(ev, PriceTableRecorded):
                                self._price_versions.add(ev.version)
                    ok = True
                finally:
                    self._tail_cv.acquire()
                    if ok:
                        self._tails_done = self._tails_started
                    else:  # nobody may count on a tail that failed: the next waiter runs another
                        self._tails_started -= 1
                    self._tail_cv.notify_all()

    def _note(self, ev: LlmCall) -> None:
        self._attempts_seen[ev.request_key] = max(self._attempts_seen.get(ev.request_key, 0), ev.attempt)
        self._throughput.note(ev)
        if ev.status == "ok":
            self._answered.setdefault(ev.request_key, ev)
            self._ledger.note(ev.event_id, ev.dagster_run_id, ev.cost_usd)

    def _answer(self, key: str) -> LlmCall | None:
        with self._lock:
            return self._answered.get(key)

    def _provider(self, name: str, ready: bool = True) -> Provider:
        with self._lock:
            if name not in self._providers:
                self._providers[name] = make_provider(name)
            provider = self._providers[name]
            if ready and name not in self._ready:
                provider.ensure_ready()
                self._ready.add(name)
            return provider

    # ---- prompt sources ----------------------------------------------------------------------
    def _store_template(self, req: LlmRequest) -> None:
        """The template's source as a blob + event, before the first call naming its hash."""
        h = req.prompt_hash
        if not h or req.prompt_source is None:
            return
        with self._lock:
            if h in self._templates_stored:
                return
        if sha256_text(req.prompt_source) != h:
            raise ValueError(f"prompt_source of template {req.prompt_template!r} does not hash to its "
                             f"prompt_hash {h[:12]}: the stored source would not be the versioned text")
        with self.log.lock(f"prompt_template/{h}"):  # once per hash, across processes too
            self._refresh()
            with self._lock:
                if h in self._templates_stored:
                    return
            # Stored exactly (no redaction): a template is code, written by us, not a secret.
            sha = self.log.blobs.put_text(req.prompt_source)
            self.log.append(PromptTemplateStored(prompt_template=req.prompt_template, prompt_hash=h,
                                                 source_sha256=sha))
            with self._lock:
                self._templates_stored.add(h)

    def _store_price_table(self) -> None:
        """The price table's source and rows, once per version per lake, before a call priced with it."""
        version = self.prices.version
        with self._lock:
            if version in self._price_versions:
                return
        with self.log.lock(f"price_table/{sha256_text(version)[:32]}"):
            self._refresh()
            with self._lock:
                if version in self._price_versions:
                    return
            sha = self.log.blobs.put_text(self.prices.source_text)
            self.log.append(PriceTableRecorded(version=version, source_sha256=sha,
                                               prices_json=canonical_json(self.prices.rows())))
            with self._lock:
                self._price_versions.add(version)

    # ---- replay ------------------------------------------------------------------------------
    def _replay(self, req: LlmRequest, ev: LlmCall, replays: list[tuple[str, str]]) -> LlmResult:
        logprobs = json.loads(self.log.blobs.get_text(ev.logprobs_sha256)) if ev.logprobs_sha256 else None
        replays.append((ev.request_key, ev.event_id))
        run_id = current().dagster_run_id
        own = run_id is not None and ev.dagster_run_id == run_id  # made by this run (a retried step)
        with self._lock:
            if own:
                self.stats.replayed_own += 1
                self.stats.replayed_own_cost_usd += ev.cost_usd or 0.0
            else:
                self.stats.replayed += 1
        usage = Usage(input_tokens=ev.input_tokens, cached_input_tokens=ev.cached_input_tokens,
                      cache_write_tokens=ev.cache_write_tokens, output_tokens=ev.output_tokens,
                      reasoning_tokens=ev.reasoning_tokens)
        return self._result(req, ev.event_id, ev.response_text or "", usage, ev.cost_usd, True,
                            ev.finish_reason, logprobs, made_in_run=own)

    @staticmethod
    def _result(req: LlmRequest, event_id: str, text: str, usage: Usage, cost: float | None,
                replayed: bool, finish_reason: str | None, logprobs: list | None,
                made_in_run: bool | None = None) -> LlmResult:
        parsed = None
        if req.response_schema is not None:
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None  # recorded as-is; judging malformed output is the caller's business
        return LlmResult(request_key=req.request_key, event_id=event_id, text=text, parsed=parsed,
                         usage=usage, cost_usd=cost, replayed=replayed, finish_reason=finish_reason,
                         logprobs=logprobs, made_in_run=made_in_run)

    # ---- calling -----------------------------------------------------------------------------
    def _backoff_s(self, failures: int, retry_after_s: float | None) -> float:
        """Full jitter: uniform in [0, base·2^n], capped; never sooner than a server's Retry-After."""
        delay = random.uniform(0, min(self.backoff_max_s, self.backoff_base_s * 2 ** failures))
        if retry_after_s is not None:
            delay = max(delay, min(retry_after_s, self.backoff_max_s))
        return delay

    def _call_with_retries(self, req: LlmRequest, provider: Provider, on_start=None) -> LlmResult:
        key = req.request_key
        request_sha = self.log.blobs.put_text(canonical_json(redact_payload(req.canonical())))
        with self._lock:
            first_attempt = self._attempts_seen.get(key, 0) + 1  # numbering continues across runs
        for n in range(self.max_attempts):
            attempt = first_attempt + n
            started = time.perf_counter()
            try:
                with self._slots:
                    if stop_requested():  # waited for a slot while the stop came: still not sent
                        raise CallsStopped(f"{req.provider}/{req.model} call {key[:12]} not started: the run "
                                           "was asked to stop")
                    if on_start is not None and n == 0:  # the progress's "call 1 of N started"
                        on_start(req)
                    # Page images' bytes join the copy the provider sends, never the recorded request.
                    response = provider.complete(with_image_data(req, self.log.blobs))
            except Exception as exc:  # every failure is an event, whatever raised it
                latency_ms = (time.perf_counter() - started) * 1000
                err = exc if isinstance(exc, ProviderError) else None
                error_type = err.error_type if err else type(exc).__name__
                message = redact_message(str(exc)) or error_type  # redacted first, then cut
                self._record_error(req, request_sha, attempt, latency_ms, error_type, message)
                retryable = bool(err and err.retryable)
                if not retryable or n == self.max_attempts - 1:
                    why = "retries exhausted" if retryable else "not retryable"
                    raise LlmCallFailed(
                        f"{req.provider}/{req.model} call {key[:12]} (purpose={req.purpose}, "
                        f"subject={req.subject_id}, sample={req.sample_index}) failed on attempt {attempt} "
                        f"({why}, {n + 1} this run): {error_type}: {message}",
                        request_key=key, attempts=n + 1, error_type=error_type) from None
                delay = self._backoff_s(n, err.retry_after_s)
                log.info("retrying %s in %.2fs after %s: %s", key[:12], delay, error_type, message[:200])
                if wait_or_stop(delay):  # the failed attempt is recorded; the retry is a new call
                    raise CallsStopped(f"{req.provider}/{req.model} call {key[:12]} not retried: the run was "
                                       "asked to stop") from None
                continue
            latency_ms = (time.perf_counter() - started) * 1000
            return self._record_ok(req, provider.free, request_sha, attempt, latency_ms, response)
        raise AssertionError("unreachable")

    def _base_fields(self, req: LlmRequest, request_sha: str, attempt: int, latency_ms: float) -> dict:
        ctx = current()
        return {"study": req.study or ctx.study, "dagster_run_id": ctx.dagster_run_id, "asset": ctx.asset,
                "request_key": req.request_key, "prompt_template": req.prompt_template,
                "prompt_hash": req.prompt_hash, "reviewer_config": req.reviewer_config, "purpose": req.purpose,
                "subject_id": req.subject_id, "sample_index": req.sample_index, "provider": req.provider,
                "model": req.model, "params_json": canonical_json(req.params), "request_sha256": request_sha,
                "latency_ms": round(latency_ms, 3), "attempt": attempt,
                "price_table_version": self.prices.version, "endpoint": req.endpoint,
                "system": req.system, "step": req.step, "round": req.round,
                "param_changes_json": self._param_changes_json(req)}

    def _param_changes_json(self, req: LlmRequest) -> str | None:
        """What the provider's model rules dropped or changed in the asked params (None: sent as asked)."""
        with self._lock:
            provider = self._providers.get(req.provider)
        if provider is None:
            return None
        try:
            changes = provider.param_changes(req)
        except UnsupportedRequest:
            return None  # never sent (only a batch's failure record can get here)
        return canonical_json(changes) if changes else None

    def record_failure(self, req: LlmRequest, *, error_type: str, message: str, latency_ms: float,
                       batch_id: str | None = None) -> None:
        """Record an attempt that failed outside `call` (a provider batch's failed item) as an error
        llm_call, so every failure is in the log whichever way the request was sent."""
        req = self.bind(req)
        request_sha = self.log.blobs.put_text(canonical_json(redact_payload(req.canonical())))
        with self.log.request_lock(req.request_key):
            self._refresh()
            with self._lock:
                attempt = self._attempts_seen.get(req.request_key, 0) + 1
            self._record_error(req, request_sha, attempt, latency_ms, error_type,
                               redact_message(message) or error_type, batch_id=batch_id)

    def _record_error(self, req: LlmRequest, request_sha: str, attempt: int, latency_ms: float,
                      error_type: str, message: str, batch_id: str | None = None) -> None:
        ev = LlmCall(**self._base_fields(req, request_sha, attempt, latency_ms), response_sha256=None,
                     response_text=None, finish_reason=None, input_tokens=None, cached_input_tokens=None,
                     cache_write_tokens=None, output_tokens=None, reasoning_tokens=None, cost_usd=None,
                     cost_status=NO_USAGE, status="error", error_type=error_type, error_message=message,
                     batch_id=batch_id)
        self.log.append(ev)
        with self._lock:
            self._note(ev)
            self.stats.failed_attempts += 1

    def record_answer(self, req: LlmRequest, resp: ProviderResponse, *, latency_ms: float,
                      batch_id: str | None = None, free: bool = False) -> LlmResult:
        """Record an answer obtained outside `call` (a provider batch's result line) as an ordinary
        llm_call event, which then replays like any other. The caller holds no lock; an answer that
        is already in the log is not recorded twice: the recorded one is returned."""
        req = self.bind(req)
        key = req.request_key
        with self.log.request_lock(key):
            self._refresh()
            if (hit := self._answer(key)) is not None:
                return self._replay(req, hit, [])
            self._store_template(req)
            self._store_price_table()
            request_sha = self.log.blobs.put_text(canonical_json(redact_payload(req.canonical())))
            with self._lock:
                attempt = self._attempts_seen.get(key, 0) + 1
            return self._record_ok(req, free, request_sha, attempt, latency_ms, resp, batch_id=batch_id)

    def _record_ok(self, req: LlmRequest, free: bool, request_sha: str, attempt: int,
                   latency_ms: float, resp: ProviderResponse, batch_id: str | None = None) -> LlmResult:
        # Blobs first: an event must never name a blob that is not on disk.
        response_sha = self.log.blobs.put_text(canonical_json(redact_payload(resp.raw)))
        logprobs_sha = None
        if req.top_logprobs and resp.logprobs is not None:
            logprobs_sha = self.log.blobs.put_text(canonical_json(resp.logprobs))
        text = redact_stored(resp.text) or ""
        cost, cost_status = price_call(req.provider, req.model, resp.usage, free=free, table=self.prices,
                                       batch=batch_id is not None)
        u = resp.usage
        ev = LlmCall(**self._base_fields(req, request_sha, attempt, latency_ms), response_sha256=response_sha,
                     response_text=text, finish_reason=resp.finish_reason, input_tokens=u.input_tokens,
                     cached_input_tokens=u.cached_input_tokens, cache_write_tokens=u.cache_write_tokens,
                     output_tokens=u.output_tokens, reasoning_tokens=u.reasoning_tokens, cost_usd=cost,
                     cost_status=cost_status, status="ok", logprobs_sha256=logprobs_sha, batch_id=batch_id)
        self.log.append(ev)  # fsync'd: the answer survives a crash once we return
        with self._lock:
            self._note(ev)
            s = self.stats
            self._ledger.note_own(ev.dagster_run_id, cost)
            self._ledger.note_ratio(req, u.input_tokens)
            s.calls_made += 1
            if cost is None:
                s.unpriced_calls += 1
            else:
                s.cost_usd += cost
            s.input_tokens += u.input_tokens or 0
            s.cached_input_tokens += u.cached_input_tokens or 0
            s.output_tokens += u.output_tokens or 0
        return self._result(req, ev.event_id, text, u, cost, False, resp.finish_reason,
                            resp.logprobs if req.top_logprobs else None)
