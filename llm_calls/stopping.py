"""A run asked to stop: no new model call starts, and calls in flight end as their provider can: the
embedded model stops between two tokens (providers/local.py), a hosted call (OpenAI, Anthropic, Gemini) is
abandoned within a tenth of a second (providers/base.py: until_stopped), both raising CallsStopped and
recording nothing, so the next run makes them again; a self-hosted server's call (openai_compatible)
finishes and is recorded. An answer that arrived before the stop is recorded. A build (dbt, the gates,
publishing) asked to stop publishes nothing: see `building`.

The command that runs a study sets the flag (its signal handler, on the first Ctrl-C or SIGTERM); the
gateway reads it before each new provider call and before each retry. Replays are not calls and go on:
they cost nothing and record what the run already has. The flag is per process: a step running in
another process (the multiprocess, Celery or Dask executors) does not see it."""

import contextlib
import threading
from collections.abc import Iterator

_stop = threading.Event()
_building = threading.Event()


class CallsStopped(BaseException):
    """A new call not started because the run was asked to stop.

    A BaseException, like KeyboardInterrupt: the callers' `except Exception` (one bad request must not
    sink a batch) must not swallow a stop and carry on with the next call, and Dagster must not retry
    the step (its retry policy applies to Exceptions)."""


def request_stop() -> None:
    _stop.set()


def stop_requested() -> bool:
    return _stop.is_set()


def clear_stop() -> None:
    """For a process that runs again after a stop (tests, a long-lived caller)."""
    _stop.clear()


def wait_or_stop(seconds: float) -> bool:
    """Sleep `seconds` (a retry's backoff) unless a stop comes first; True if it did."""
    return _stop.wait(seconds)


@contextlib.contextmanager
def building() -> Iterator[None]:
    """While the marts are built: a stop then cancels dbt (the signal handler interrupts it), starts no
    dbt step or gate, and publishes nothing, so the published marts stay what they were."""
    _building.set()
    try:
        yield
    finally:
        _building.clear()


def is_building() -> bool:
    return _building.is_set()
