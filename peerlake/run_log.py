"""The log file a pipeline command names: everything the run says, written as it happens.

Into the file: Dagster's log of every step (DEBUG: its events too) (step starts and ends, the assets' own messages,
a failure's whole error), dbt's lines, and the call progress. On the terminal: the progress, and
Dagster's warnings; a failed step is said in one line afterwards (peerlake.console.report_run) with
this file's path, not as Dagster's multi-line error log.

While the run lasts, the process's own fds 1 and 2 point at the file too, so what the processes it
starts print goes there, not over the terminal: a terminal's Ctrl-C reaches the whole process group,
and each of Dagster's compute-log watchers (`watch_orphans`, a Python child per captured stream) dies
of it printing a KeyboardInterrupt traceback, as would any other child. The terminal is written
through its own duplicate of fd 2. sys.stdout is the file behind an object without a file number, so
Dagster captures no step's stdout at the fd level: its copy back goes through a `tail` that the same
Ctrl-C kills, which lost the rest of a stopped step's messages (the structured events in `make ui`
are kept either way)."""

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RECORD = re.compile(r" - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - ")
_last: list[Path] = []


def last_path() -> Path | None:
    return _last[-1] if _last else None


class _DagsterLog(io.TextIOBase):
    """sys.stderr during a run: all of it to the file; Dagster's WARNING records to the terminal too."""

    def __init__(self, file: TextIO, terminal: TextIO):
        self.file, self.terminal = file, terminal
        self._partial = ""
        self._show = False  # whether the record being written (header + continuation lines) is shown

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.file.write(text)
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for line in lines:
            if (m := _RECORD.search(_ANSI.sub("", line))) is not None:
                self._show = m.group(1) == "WARNING"
            if self._show:
                with contextlib.suppress(OSError, ValueError):
                    self.terminal.write(_ANSI.sub("", line) + "\n")
        return len(text)

    def flush(self) -> None:
        self.file.flush()
        with contextlib.suppress(OSError, ValueError):
            self.terminal.flush()


class _Unfiled(io.TextIOBase):
    """sys.stdout during a run: the log file, without a file number (see the module docstring)."""

    def __init__(self, file: TextIO):
        self.file = file

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return self.file.write(text)

    def flush(self) -> None:
        self.file.flush()


@contextlib.contextmanager
def _fds_to(fh: TextIO) -> Iterator[None]:
    """Point fds 1 and 2 at the log file, and back afterwards."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    try:
        for fd in saved:
            os.dup2(fh.fileno(), fd)
        yield
    finally:
        fh.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


def _terminal() -> tuple[TextIO, bool]:
    """The terminal's stream, duplicated from fd 2 when stderr is one: Dagster redirects the process's
    fds 1 and 2 into its compute logs while a step runs (copied back only by a poller, late)."""
    try:
        if sys.stderr.fileno() == 2:
            return os.fdopen(os.dup(2), "w", buffering=1), True
    except (AttributeError, OSError, io.UnsupportedOperation):  # a test runner's stand-in
        pass
    return sys.stderr, False


@contextlib.contextmanager
def logging_to(path: Path) -> Iterator:
    """Yields run(fn, **kwargs): fn run stoppably (peerlake.signals) with its output in `path`."""
    from peerlake.llm_calls.progress import show_progress_on
    from peerlake.orchestration.runner import console_log_level
    from peerlake.signals import run_stoppable

    _last.append(Path(path))
    terminal, owned = _terminal()
    with open(path, "w", buffering=1) as fh:
        def run(fn, **kwargs):
            return run_stoppable(fn, say=terminal, flush=fh.flush, **kwargs)

        show_progress_on(terminal, fh)
        try:
            with _fds_to(fh) if owned else contextlib.nullcontext(), contextlib.redirect_stdout(_Unfiled(fh)), \
                    contextlib.redirect_stderr(_DagsterLog(fh, terminal)), console_log_level("DEBUG"):
                yield run
        finally:
            show_progress_on(None, None)
            if owned:
                terminal.close()
