"""A rich progress bar for batches of calls: ETA plus what the batch made, replayed and spent."""

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

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


class _StatsColumn(ProgressColumn):
    """made N · replayed M · $cost, counted from the start of this batch."""

    def __init__(self, stats: Any):
        super().__init__()
        self.stats = stats
        self.start = stats.snapshot()

    def render(self, task) -> Text:
        s, b = self.stats, self.start
        made, replayed = s.calls_made - b.calls_made, s.replayed - b.replayed
        cost = s.cost_usd - b.cost_usd
        unpriced = s.unpriced_calls - b.unpriced_calls
        failed = s.failed_attempts - b.failed_attempts
        text = f"made {made} · replayed {replayed} · ${cost:.4f}"
        if unpriced:
            text += f" (+{unpriced} unpriced)"
        if failed:
            text += f" · {failed} failed attempts"
        return Text(text, style="cyan")


class _Silent:
    def advance(self) -> None:
        pass


class _Lines:
    """Not a terminal (CI, a log file): one plain line every ~10% or 15 s, so long runs still report."""

    def __init__(self, total: int, description: str, column: "_StatsColumn"):
        self.total, self.description, self.column = total, description or "llm calls", column
        self.done, self.t0 = 0, time.monotonic()
        self.last = self.t0

    def advance(self) -> None:
        self.done += 1
        now = time.monotonic()
        step = max(1, self.total // 10)
        if self.done == self.total or self.done % step == 0 or now - self.last > 15:
            self.last = now
            elapsed = now - self.t0
            eta = elapsed / self.done * (self.total - self.done)
            print(f"{self.description}: {self.done}/{self.total} · {elapsed:.0f}s elapsed · eta {eta:.0f}s · "
                  f"{self.column.render(None).plain}", file=sys.stderr, flush=True)


class _Bar:
    def __init__(self, progress: Progress, task_id: int):
        self.progress, self.task_id = progress, task_id

    def advance(self) -> None:
        self.progress.advance(self.task_id)


@contextlib.contextmanager
def call_progress(total: int, description: str, stats: Any, enabled: bool | None = None) -> Iterator[Any]:
    """Yields an object with advance(): a bar on a terminal, plain lines otherwise, nothing if disabled."""
    console = Console(file=sys.stderr)
    if enabled is False or total == 0:
        yield _Silent()
        return
    if enabled is None and not console.is_terminal:
        yield _Lines(total, description, _StatsColumn(stats))
        return
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                        _StatsColumn(stats), console=console, transient=False)
    with progress:
        yield _Bar(progress, progress.add_task(description or "llm calls", total=total))
