"""Progress of a batch of calls: a rich bar on a terminal, plain lines otherwise, from the first second.

What a batch made, replayed and spent is counted from its own results as the caller takes them, so the
counts always agree with "done" (the gateway's running totals also hold other batches' and other
threads' calls, which once printed "made 0 · replayed 7" on the first of 12 reviews). "Made" is each
result's `made_in_run`, the count the asset summaries and the run's summary read too. Without a terminal
(CI, a pipe, a log file) a line is printed when the batch starts, when its first new call starts, every
~10% of the calls, and every HEARTBEAT_S seconds while a call is in flight (a local model's call can
take minutes), each with done/total, ETA and cost.

`show_progress_on(terminal, log)` (the command that starts a run) sends the bar or lines to the
terminal's stream and plain lines to the run's log file as well; by default they go to stderr."""

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from peerlake.llm_calls.stopping import stop_requested

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

    def __init__(self, total: int, to_make: int | None, stats: Any):
        self.total, self.to_make = total, to_make
        # made: what the run made (LlmResult.made_in_run, the count asset summaries report too);
        # new: made by a call of this batch (not a replay), what the ETA and "in flight" read
        self.done = self.made = self.new = self.replayed = self.failed = self.unpriced = self.started = 0
        self.cost = 0.0
        self.t0 = time.monotonic()
        self.first_start: float | None = None
        self.stats, self.stats0 = stats, stats.snapshot() if stats is not None else None

    def add(self, result: Any) -> None:
        self.done += 1
        if result is None or isinstance(result, BaseException):
            self.failed += 1
            return
        replayed = bool(getattr(result, "replayed", False))
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

    def eta_s(self) -> float | None:
        """From the new calls' pace (replays take no time): None before the first one is answered."""
        if self.to_make is None:
            elapsed = time.monotonic() - self.t0
            return elapsed / self.done * (self.total - self.done) if self.done else None
        left = self.to_make - self.new - self.failed
        if left <= 0:
            return 0.0
        if not self.new or self.first_start is None:
            return None
        return (time.monotonic() - self.first_start) / self.new * left

    def line(self, description: str) -> str:
        elapsed = time.monotonic() - self.t0
        eta = self.eta_s()
        return (f"{description}: {self.done}/{self.total} · {elapsed:.0f}s elapsed · "
                f"eta {'?' if eta is None else f'{eta:.0f}s'} · {self.text()}")


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
                    in_flight = self.counts.in_flight
                    self._say(self.counts.line(self.description)
                              + (f" · {in_flight} in flight" if in_flight > 0 else ""))

    def started(self, req: Any = None) -> None:
        with self._lock:
            self.counts.started += 1
            if self.counts.first_start is None:
                self.counts.first_start = time.monotonic()
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
                  to_make: int | None = None) -> Iterator[Any]:
    """Yields an object with advance(result) and started(req): a bar on a terminal, plain
    lines otherwise (and in the run's log file), nothing if disabled. `to_make`: the calls not in the
    log, for the ETA and the first line."""
    if enabled is False or total == 0:
        yield _Silent()
        return
    counts = Counts(total, to_make, stats)
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
                        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                        _StatsColumn(counts), console=console, transient=False)
    with progress:
        batch = _Batch(counts, description, log, bar=(progress, progress.add_task(description or "llm calls",
                                                                                  total=total)))
        try:
            yield batch
        finally:
            batch.close()
