"""The provider interface and its two error kinds: retry (429, 5xx, timeouts) or give up."""

import contextvars
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from peerlake.llm_calls.stopping import CallsStopped, stop_requested
from peerlake.llm_calls.types import LlmRequest, Usage

T = TypeVar("T")
STOP_POLL_S = 0.1  # how often a hosted call's waiting thread looks at the stop flag: a stop ends it within this


@dataclass(frozen=True)
class ProviderResponse:
    text: str
    finish_reason: str | None
    usage: Usage
    raw: dict[str, Any]  # the provider's response as JSON-able data, stored as a blob
    logprobs: list[dict] | None = None  # per output token: {"token", "logprob", "top": [{token, logprob}]}


class ProviderError(Exception):
    retryable = False

    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None,
                 error_type: str | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s
        self.error_type = error_type or type(self).__name__


class RetryableProviderError(ProviderError):
    """Rate limit, server error or timeout: the same request may well succeed later."""

    retryable = True


class FatalProviderError(ProviderError):
    """Bad request, auth failure, unknown model …: retrying cannot help."""


class BadResponse(RetryableProviderError):
    """A 200 whose body is not a usable answer (not JSON, no content): a proxy or server hiccup
    that the next attempt usually does not repeat, so it is retried like a 5xx."""

    def __init__(self, message: str):
        super().__init__(message, error_type="BadResponse")


class UnsupportedRequest(ValueError):
    """A request its model cannot take (a parameter the family rejects, logprobs from a model that has
    none): refused before any call, with a message naming the setting to change (model_rules.py)."""


class ProviderUnavailable(Exception):
    """The provider cannot be used at all here (missing model file, SDK, base URL); no call was made."""


@dataclass(frozen=True)
class BatchState:
    """A provider batch as last polled. `status` is one of LlmBatchFinished's end states
    (completed | failed | expired | cancelled) once `ended`, else the provider's own word."""

    batch_id: str
    ended: bool
    status: str
    raw: dict[str, Any]


@dataclass(frozen=True)
class BatchItem:
    """One result line: an answer, or the error that replaced it (never both)."""

    custom_id: str
    response: ProviderResponse | None
    error: ProviderError | None = None


class Provider(ABC):
    name: str = "provider"
    free: bool = False  # True for models that run on this machine: cost 0, status "free"
    supports_batch: bool = False  # a provider batch API (half price, answered within a day)
    # A stop (llm_calls.stopping) abandons this provider's call in flight (`until_stopped`) instead of
    # waiting for its answer: nothing is recorded and the next run makes the call again.
    cancels_on_stop: bool = False

    def ensure_ready(self) -> None:  # noqa: B027 -- an optional hook: most providers need no check
        """Raise ProviderUnavailable if no call can possibly work; checked once per gateway."""

    def endpoint(self, req: LlmRequest) -> str | None:
        """The base URL this request would be sent to; None for the provider's default endpoint.
        It becomes part of the request_key, so it must not raise (a missing URL fails in complete())."""
        return None

    def param_changes(self, req: LlmRequest) -> dict[str, Any] | None:
        """What this model's request rules change in `req.params` ({"dropped": {name: asked},
        "changed": {name: sent}}), recorded on the llm_call event; None when sent as asked. Raises
        UnsupportedRequest for a request the model cannot take, so it is refused before any call."""
        return None

    def output_bound(self, req: LlmRequest) -> int:
        """The most output tokens this request lets the provider bill, hidden reasoning and thinking
        included (the cost cap's bound): by default the asked max_tokens."""
        from peerlake.llm_calls.budget import max_output_tokens

        return max_output_tokens(req)

    def reasoning_prior(self, req: LlmRequest) -> tuple[int, int, int] | None:
        """The dry run's prior for the reasoning tokens one call spends beyond its answer, as (10th
        percentile, mean, 90th percentile), when the lake has no history; None for a model that does not reason."""
        return None

    @abstractmethod
    def complete(self, req: LlmRequest) -> ProviderResponse:
        """One attempt. Raises RetryableProviderError or FatalProviderError on failure."""

    # ---- batch protocol (only where supports_batch) ------------------------------------------
    # A batch line carries the same body `complete` would send, and a result line is parsed by the
    # same function, so a batch answer and a direct one are the same ProviderResponse.
    def batch_line(self, custom_id: str, req: LlmRequest) -> dict[str, Any]:
        """One input item of a batch, as uploaded."""
        raise NotImplementedError(f"provider {self.name!r} has no batch API")

    def submit_batch(self, lines: list[dict[str, Any]]) -> str:
        """Send the items as one batch; the provider's batch id."""
        raise NotImplementedError(f"provider {self.name!r} has no batch API")

    def poll_batch(self, batch_id: str) -> BatchState:
        raise NotImplementedError(f"provider {self.name!r} has no batch API")

    def batch_results(self, state: BatchState) -> tuple[list[BatchItem], str]:
        """The items of an ended batch and the raw result text they were read from."""
        raise NotImplementedError(f"provider {self.name!r} has no batch API")


def retryable_status(status: int) -> bool:
    return status in (408, 409, 425, 429) or status >= 500


def until_stopped(send: Callable[[], T], what: str) -> T:
    """`send()` (one blocking HTTP request and the reading of its body), abandoned if the run is asked to
    stop before it returns: then CallsStopped within STOP_POLL_S, and the caller records nothing.

    Why a waiting thread and not a cancel of the request itself: httpx's sync client (under the OpenAI and
    Anthropic SDKs too) has no cancel, a socket closed from another thread does not wake a read blocked on
    it (Linux), and closing a client mid-request races with its connection pool. So the request runs in a
    thread of its own while the caller waits, looking at the stop flag; on a stop the caller leaves, and the
    thread ends when the server answers or its timeout fires, its outcome dropped. It is a daemon thread,
    not an executor's (those are joined at exit): a stopped `peerlake run` exits at once, which closes the
    connection, so the server sees the client go. An answer that arrived before the stop is returned (and
    so recorded): a completed call is never paid for twice; one cut short may be billed by the provider,
    as any cancelled request may, and is made again next time."""
    if stop_requested():
        raise CallsStopped(f"{what} not sent: the run was asked to stop")
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = send()
        except BaseException as exc:  # re-raised in the caller's thread, whatever it is
            outcome["error"] = exc
        finally:
            done.set()

    context = contextvars.copy_context()  # the caller's labels, should anything below read them
    threading.Thread(target=context.run, args=(run,), name="llm-request", daemon=True).start()
    while not done.wait(STOP_POLL_S):
        if stop_requested() and not done.is_set():
            raise CallsStopped(f"{what} abandoned in flight: the run was asked to stop; the call is made "
                               "again next time")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
