"""Progress of a batch of calls: a rich bar on a terminal, plain lines otherwise, from the first second.

What a batch made, replayed and spent is counted from its own results as the caller takes them, so the
counts always agree with "done" (the gateway's running totals also hold other batches' and other
threads' calls, which once printed "made 0 · replayed 7" on the first of 12 reviews). "Made" is each
result's `made_in_run`, the count the asset summaries and the run's summary read too. Without a terminal
(CI, a pipe, a log file) a line is printed when the batch starts, when its first new call starts, every
~10% of the calls, and every HEARTBEAT_S seconds while a call is in flight (a local model's call can
take minutes), each with done/total, ETA and cost. The ETA (llm_calls.throughput.Eta) starts from the
expected time per call the caller gives (the lake's history, else a prior) and is corrected by the
calls' measured times as they finish, crediting the calls in flight with the time already spent.

`show_progress_on(terminal, log)` (the command that starts a run) sends the bar or lines to the
terminal's stream and plain lines to the run's log file as well; by default they go to stderr."""

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from peerlake.llm_calls.stopping import stop_requested
from peerlake.llm_calls.throughput import HOSTED_PRIOR_S, Eta, Expected

HEARTBEAT_S = 5.0  # a plain line at least this often while calls are in flight, without a terminal

_terminal: TextIO | None = None  # None: sys.stderr when a batch starts
_log: TextIO | None = None


def show_progress_on(terminal: TextIO | None, log: TextIO | None = None) -> None:
    """Where progress goes: the user's terminal stream, and a log file that gets plain lines."""
    global _terminal, _log
    _terminal, _log = terminal, log


def notice(text: str) -> None:
    """One line about what is happening now (e.g. loading the model), on the terminal and in the log."""
    for out in _outputs():
        _write(out, text)


def _outputs() -> list[TextIO]:
    outs = [_terminal or sys.stderr]
    if _log is not None and _log is not outs[0]:
        outs.append(_log)
    return outs


def _write(out: TextIO, line: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # a closed pipe or file must not fail the calls
        print(line, file=out, flush=True)


class Counts:
    """What this batch's results say: made, replayed, failed, cost; read by the bar and the lines."""

    def __init__(self, total: int, to_make: int | None, stats: Any, *, expected: Expected | None = None,
                 parallel: int = 1, serial: bool = False, clock: Callable[[], float] = time.monotonic):
        self.total, self.to_make = total, to_make
        # made: what the run made (LlmResult.made_in_run, the count asset summaries report too);
        # new: made by a call of this batch (not a replay), what the ETA and "in flight" read
        self.done = self.made = self.new = self.replayed = self.failed = self.unpriced = self.started = 0
        self.cost = 0.0
        self.serial = serial
        self.clock = clock
        self.t0 = clock()
        self.first_start: float | None = None
        self.stats, self.stats0 = stats, stats.snapshot() if stats is not None else None
        self.eta = Eta(total if to_make is None else to_make, expected or Expected(HOSTED_PRIOR_S, "prior"),
                       parallel=parallel, serial=serial)

    def call_started(self, req: Any = None) -> None:
        now = self.clock()
        self.started += 1
        if self.first_start is None:
            self.first_start = now
        self.eta.start(getattr(req, "request_key", None) or "", now)

    def add(self, result: Any) -> None:
        self.done += 1
        key = getattr(result, "request_key", None)  # an LlmResult's, or a failed call's (LlmCallFailed)
        if result is None or isinstance(result, BaseException):
            self.failed += 1
            self.eta.end(key, self.clock(), ok=False)
            return
        replayed = bool(getattr(result, "replayed", False))
        if not replayed:  # an answer this batch's call made: its time is measured
            self.eta.end(key, self.clock(), ok=True)
        if not getattr(result, "made_in_run", not replayed):
            self.replayed += 1
            return
        self.made += 1
        self.new += not replayed
        # a replay of this run's own answer (a retried step) brings its cost, as in the asset summaries
        cost = getattr(result, "cost_usd", None)
        if cost is None:
            self.unpriced += 1
        else:
            self.cost += cost

    def text(self) -> str:
        text = f"made {self.made} · replayed {self.replayed} · ${self.cost:.4f}"
        if self.unpriced:
            text += f" (+{self.unpriced} unpriced)"
        if self.failed:
            text += f" · {self.failed} failed"
        if self.stats is not None and (retries := self.stats.failed_attempts - self.stats0.failed_attempts):
            text += f" · {retries} failed attempts"
        if stop_requested():  # Ctrl-C: say it is stopping, not only that calls are in flight
            text += " · stopping: no new call starts"
        return text

    @property
    def in_flight(self) -> int:
        return self.started - self.new - self.failed

    def flight(self) -> str:
        """' · N in flight' for the heartbeat line; a serial provider (the embedded model) answers one call at a
        time, so the others started are waiting for it, not being answered."""
        n = self.in_flight
        if n <= 0:
            return ""
        if self.serial and n > 1:
            return f" · 1 in flight, {n - 1} waiting for the model"
        return f" · {n} in flight"

    def eta_s(self) -> float:
        """The seconds the new calls left take (replays take none): from the first second, see throughput.Eta."""
        return self.eta.left_s(self.clock())

    def line(self, description: str) -> str:
        elapsed = self.clock() - self.t0
        return (f"{description}: {self.done}/{self.total} · {elapsed:.0f}s elapsed · "
                f"eta {self.eta_s():.0f}s · {self.text()}")


class _EtaColumn(ProgressColumn):
    """The batch's own ETA (rich's TimeRemainingColumn divides by the bar's speed, which climbs while waiting)."""

    def __init__(self, counts: Counts):
        super().__init__()
        self.counts = counts

    def render(self, task) -> Text:
        seconds = round(self.counts.eta_s())
        return Text(f"eta {seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}", style="progress.remaining")


class _StatsColumn(ProgressColumn):
    def __init__(self, counts: Counts):
        super().__init__()
        self.counts = counts

    def render(self, task) -> Text:
        return Text(self.counts.text(), style="cyan")


class _Batch:
    """advance() per result taken, started() per new call started (from the gateway's threads)."""

    def __init__(self, counts: Counts, description: str, lines: list[TextIO], bar=None):
        self.counts, self.description, self.lines, self.bar = counts, description or "llm calls", lines, bar
        self._lock = threading.Lock()
        self._last = time.monotonic()
        self._step = max(1, counts.total // 10)
        self._done = threading.Event()
        self._beat = None
        if lines:
            to_make = "" if counts.to_make is None else (
                f": {counts.to_make} new, {counts.total - counts.to_make} in the log (replayed at no cost)")
            self._say(f"{self.description}: {counts.total} calls{to_make}")
            self._beat = threading.Thread(target=self._heartbeat, name="progress", daemon=True)
            self._beat.start()

    def _say(self, line: str) -> None:
        self._last = time.monotonic()
        for out in self.lines:
            _write(out, line)

    def _heartbeat(self) -> None:
        while not self._done.wait(1.0):
            with self._lock:
                if time.monotonic() - self._last >= HEARTBEAT_S:
                    self._say(self.counts.line(self.description) + self.counts.flight())

    def started(self, req: Any = None) -> None:
        with self._lock:
            self.counts.call_started(req)
            n = self.counts.started
            if self.lines and n == 1:
                of = self.counts.to_make if self.counts.to_make is not None else self.counts.total
                model = f" ({req.provider}/{req.model})" if req is not None and hasattr(req, "model") else ""
                self._say(f"{self.description}: call {n} of {of} started{model}")

    def advance(self, result: Any = None) -> None:
        with self._lock:
            self.counts.add(result)
            c = self.counts
            if self.lines and (c.done == c.total or c.done % self._step == 0
                               or time.monotonic() - self._last > HEARTBEAT_S):
                self._say(c.line(self.description))
        if self.bar is not None:
            self.bar[0].advance(self.bar[1])

    def close(self) -> None:
        self._done.set()


class _Silent:
    def advance(self, result: Any = None) -> None:
        pass

    def started(self, req: Any = None) -> None:
        pass


@contextlib.contextmanager
def call_progress(total: int, description: str, stats: Any, enabled: bool | None = None,
                  to_make: int | None = None, expected: Expected | None = None, parallel: int = 1,
                  serial: bool = False) -> Iterator[Any]:
    """Yields an object with advance(result) and started(req): a bar on a terminal, plain
    lines otherwise (and in the run's log file), nothing if disabled. `to_make`: the calls not in the
    log, for the ETA and the first line; `expected`: one new call's expected seconds, `parallel` of them at
    once (`serial`: one provider call at a time, whatever the slots), where the ETA starts."""
    if enabled is False or total == 0:
        yield _Silent()
        return
    counts = Counts(total, to_make, stats, expected=expected, parallel=parallel, serial=serial)
    terminal, *log = _outputs()
    console = Console(file=terminal)
    if enabled is None and not console.is_terminal:
        batch = _Batch(counts, description, [terminal, *log])
        try:
            yield batch
        finally:
            batch.close()
        return
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), _EtaColumn(counts),
                        _StatsColumn(counts), console=console, transient=False)
    with progress:
        batch = _Batch(counts, description, log, bar=(progress, progress.add_task(description or "llm calls",
                                                                                  total=total)))
        try:
            yield batch
        finally:
            batch.close()
