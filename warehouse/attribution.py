"""Who is making a call: the study, the Dagster run and asset, and the run's cost cap.

Set once where the work starts (a Dagster asset's body, a CLI command) and read by both doors to the
outside (llm_calls.gateway, retrieval.client) when they write an event, so every paid call says what
it was paid for without threading four arguments through every judge and reviewer. A context variable,
so concurrent steps in one process never see each other's labels; worker threads must run under a
copy of the caller's context (`in_context`), which `Gateway.call_many` does.
"""

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class CallContext:
    study: str | None = None
    dagster_run_id: str | None = None  # None: a call made outside Dagster (the CLI, a notebook, a test)
    asset: str | None = None
    # The most this run may spend on new paid calls, in USD; None: no cap. Replays never count.
    max_cost_usd: float | None = None


# A frozen dataclass: sharing the default instance is safe.
_CURRENT: contextvars.ContextVar[CallContext] = contextvars.ContextVar(
    "peerlake_call_context", default=CallContext())  # noqa: B039


def current() -> CallContext:
    return _CURRENT.get()


@contextlib.contextmanager
def attributed(**fields) -> Iterator[CallContext]:
    """Calls made in the block carry these labels; fields not given (or None) keep the outer value."""
    ctx = replace(current(), **{k: v for k, v in fields.items() if v is not None})
    token = _CURRENT.set(ctx)
    try:
        yield ctx
    finally:
        _CURRENT.reset(token)


def in_context(fn: Callable[..., T]) -> Callable[..., T]:
    """`fn` bound to a copy of the current context, for running in another thread. One wrapper per
    task: a context cannot be entered by two threads at once."""
    ctx = contextvars.copy_context()
    return lambda *a, **kw: ctx.run(fn, *a, **kw)
