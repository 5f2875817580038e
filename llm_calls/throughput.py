"""How long model calls take: the expected seconds of one call, a batch's ETA, a plan's wall time.

Expected seconds of one call (`Throughput.expected`), from the lake's own llm_call events, else a prior:
- history: the mean latency of the newest HISTORY_CALLS ok calls of the (provider, model, template), or
  of the (provider, model) when the template has fewer than MIN_HISTORY; calls made one by one only (a
  provider batch's answers carry its day-long wait). The embedded model answers one call at a time (one
  lock, providers/local.py), so a call that waited for the lock recorded its wait too: its time counts
  from the previous local answer of the same run when that came after it started (its service time).
- prior: the embedded model reads the prompt (characters / CHARS_PER_TOKEN) at LOCAL_READ_TOKENS_PER_S
  and writes the whole answer budget (max_tokens) at LOCAL_WRITE_TOKENS_PER_S, the 2-thread rates
  benchmarks/README.md measured on the 2-core build machine; the whole budget, so that an ETA comes down
  as answers prove shorter rather than climbs. A hosted call: HOSTED_PRIOR_S, a few seconds.

A batch's ETA (`Eta`): the prior, weighted as PRIOR_WEIGHT calls (HISTORY_WEIGHT when it is history),
blended with each call's measured time as calls finish, so the prior's weight is w/(w + n) after n calls;
the calls in flight are credited with the time already spent on them, so the ETA comes down while waiting
instead of climbing, and the calls left are spread over the calls that run at once (one for the embedded
model, the gateway's concurrency otherwise).

A plan's wall time (`wall_time_s`, for the dry run): each provider's calls × expected seconds over the
calls it runs at once, the providers one after another (a run's steps mostly are).
"""

import threading
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from peerlake.llm_calls.budget import DEFAULT_MAX_OUTPUT_TOKENS, max_output_tokens, request_chars
from peerlake.llm_calls.tokens import CHARS_PER_TOKEN
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse.events import LlmCall

HISTORY_CALLS = 50
MIN_HISTORY = 3
SERIAL_PROVIDERS = frozenset({"local"})  # one call at a time in this process, whatever the concurrency
# benchmarks/README.md, 2 threads on the 2-core build machine: (prompt tokens/s, generated tokens/s)
LOCAL_RATES = {"qwen2.5-coder-1.5b-instruct-q4_k_m": (91.4, 22.7),
               "qwen2.5-coder-0.5b-instruct-q4_k_m": (185.8, 39.7)}
LOCAL_READ_TOKENS_PER_S, LOCAL_WRITE_TOKENS_PER_S = LOCAL_RATES["qwen2.5-coder-1.5b-instruct-q4_k_m"]
HOSTED_PRIOR_S = 5.0
PRIOR_WEIGHT = 2.0  # a stated prior counts as two measured calls
HISTORY_WEIGHT = 5.0  # this lake's own history of the same calls counts as five


@dataclass(frozen=True)
class Expected:
    seconds: float
    basis: str  # "history:N" (N calls) or "prior"

    @property
    def weight(self) -> float:
        """How many measured calls this expectation is worth in a batch's running estimate."""
        return PRIOR_WEIGHT if self.basis == "prior" else HISTORY_WEIGHT


@dataclass(frozen=True)
class Planned:
    """Calls a plan would make: `calls` of one provider/model/template (a dry run's row)."""

    provider: str
    model: str
    template: str | None = None
    calls: float = 1.0
    input_chars: int | None = None
    max_output: int | None = None  # the answer budget (max_tokens)

    @classmethod
    def of(cls, req: LlmRequest) -> "Planned":
        return cls(req.provider, req.model, req.prompt_template, 1.0,
                   request_chars(req.messages, req.response_schema), max_output_tokens(req))


def is_serial(provider: str) -> bool:
    return provider in SERIAL_PROVIDERS


def parallelism(provider: str, concurrency: int) -> int:
    """How many of this provider's calls run at once under a gateway of `concurrency` slots."""
    return 1 if is_serial(provider) else max(1, concurrency)


def prior_s(provider: str, model: str, input_chars: int | None = None,
            max_output: int | None = None) -> float:
    """The stated expectation of one call's seconds without history (see the module docstring)."""
    if provider != "local":
        return HOSTED_PRIOR_S
    read, write = LOCAL_RATES.get(model, (LOCAL_READ_TOKENS_PER_S, LOCAL_WRITE_TOKENS_PER_S))
    budget = max_output if max_output is not None else DEFAULT_MAX_OUTPUT_TOKENS
    return (input_chars or 0) / CHARS_PER_TOKEN / read + budget / write


class Throughput:
    """Recent call times per (provider, model, template) and per (provider, model), fed event by event."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_template: dict[tuple, deque] = defaultdict(lambda: deque(maxlen=HISTORY_CALLS))
        self._by_model: dict[tuple, deque] = defaultdict(lambda: deque(maxlen=HISTORY_CALLS))
        self._last_end: dict[tuple, datetime] = {}  # a serial provider's last answer per run

    def note(self, ev: LlmCall) -> None:
        if ev.batch_id is not None or ev.latency_ms is None:
            return
        seconds = ev.latency_ms / 1000
        with self._lock:
            if is_serial(ev.provider):
                run = (ev.provider, ev.dagster_run_id)
                previous = self._last_end.get(run)
                if previous is not None:
                    since = (ev.occurred_at - previous).total_seconds()
                    if 0 <= since < seconds:  # it waited for the lock: its own time began at that answer
                        seconds = since
                if previous is None or ev.occurred_at > previous:
                    self._last_end[run] = ev.occurred_at
            if ev.status != "ok":
                return
            self._by_template[(ev.provider, ev.model, ev.prompt_template)].append(seconds)
            self._by_model[(ev.provider, ev.model)].append(seconds)

    def expected(self, provider: str, model: str, template: str | None = None, *,
                 input_chars: int | None = None, max_output: int | None = None) -> Expected:
        with self._lock:
            for key, table in (((provider, model, template), self._by_template), ((provider, model), self._by_model)):
                if key in table and len(table[key]) >= MIN_HISTORY:
                    times = table[key]
                    return Expected(sum(times) / len(times), f"history:{len(times)}")
        return Expected(prior_s(provider, model, input_chars, max_output), "prior")

    def expected_for(self, req: LlmRequest) -> Expected:
        return self.expected(req.provider, req.model, req.prompt_template,
                             input_chars=request_chars(req.messages, req.response_schema),
                             max_output=max_output_tokens(req))


def load_throughput(log) -> Throughput:
    """The throughput of every llm_call in the log (an EventLog), oldest first."""
    out = Throughput()
    for ev in sorted(log.iter_events("llm_call"), key=lambda e: e.occurred_at):
        out.note(ev)
    return out


def wall_time_s(throughput: Throughput, calls: Iterable[LlmRequest | Planned], concurrency: int) -> float:
    """The seconds a plan's new calls take: per provider, Σ calls × expected seconds ÷ the calls it runs at
    once (`parallelism`), the providers one after another. For the dry run, e.g. with its gateway's
    `throughput()` and `max_concurrency`, over the requests it would send."""
    per_provider: dict[str, float] = defaultdict(float)
    for item in calls:
        p = Planned.of(item) if isinstance(item, LlmRequest) else item
        expected = throughput.expected(p.provider, p.model, p.template, input_chars=p.input_chars,
                                       max_output=p.max_output)
        per_provider[p.provider] += p.calls * expected.seconds
    return sum(seconds / parallelism(provider, concurrency) for provider, seconds in per_provider.items())


class Eta:
    """The seconds left of a batch of `to_make` new calls, from an expected time per call corrected by the
    calls' measured times (the module docstring). Times are the caller's clock readings (monotonic s)."""

    def __init__(self, to_make: int, expected: Expected, parallel: int = 1, serial: bool = False):
        self.to_make, self.prior, self.parallel, self.serial = to_make, expected, max(1, parallel), serial
        self._starts: dict[str, list[float]] = defaultdict(list)  # request_key -> start times in flight
        self._measured: list[float] = []
        self._ended_unstarted = 0  # refused or failed before they were sent: no time to wait for
        self._ended_started = 0  # failed after they were sent
        self._last_end: float | None = None  # a serial provider's last answer

    @property
    def started(self) -> int:
        return sum(len(v) for v in self._starts.values()) + len(self._measured) + self._ended_started

    def start(self, key: str, now: float) -> None:
        self._starts[key].append(now)

    def end(self, key: str | None, now: float, ok: bool) -> None:
        """A call's result came (ok: an answer this batch made, else a failure)."""
        starts = self._starts.get(key) if key is not None else None
        if not starts:
            self._ended_unstarted += not ok  # an answer without a start is a replay: never counted as to make
            return
        began = self._service_start(starts.pop(0))
        if not starts:
            del self._starts[key]
        if ok:
            self._measured.append(max(0.0, now - began))
        else:
            self._ended_started += 1
        if self.serial:
            self._last_end = now if self._last_end is None else max(self._last_end, now)

    def _service_start(self, start: float) -> float:
        """A serial provider serves a call from its start or the previous answer, whichever is later."""
        if self.serial and self._last_end is not None:
            return max(start, self._last_end)
        return start

    def seconds_per_call(self) -> float:
        w = self.prior.weight
        return (w * self.prior.seconds + sum(self._measured)) / (w + len(self._measured))

    def left_s(self, now: float) -> float:
        s = self.seconds_per_call()
        flying = sorted(t for times in self._starts.values() for t in times)
        served, queued = flying[:self.parallel], len(flying[self.parallel:])
        not_started = max(0, self.to_make - self.started - self._ended_unstarted)
        # Each slot is busy for what its call in flight has left (never below 0: an overdue call ends
        # any moment); the calls not started go to the slot free first, each taking s. Every slot is
        # within s of the others, so they take one call each in turn: slot j gets q or q + 1 of them.
        busy = sorted([max(0.0, s - (now - self._service_start(t))) for t in served]
                      + [0.0] * (self.parallel - len(served)))
        q, r = divmod(not_started + queued, self.parallel)
        if not flying and q == r == 0:
            return 0.0
        return max(b + (q + (j < r)) * s for j, b in enumerate(busy))
