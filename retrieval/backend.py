"""The backend interface and its two error kinds: retry (429, 5xx, timeouts) or give up."""

from abc import ABC, abstractmethod

from peerlake.retrieval.types import Candidate, RetrievalRequest
from peerlake.warehouse.log import EventLog


class RetrievalError(Exception):
    """A failed search attempt; `retryable` says whether the same request may succeed later."""

    retryable = False

    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None,
                 error_type: str | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s
        self.error_type = error_type or type(self).__name__


class RetryableRetrievalError(RetrievalError):
    """Rate limit, server error, timeout, garbled answer."""

    retryable = True


class FatalRetrievalError(RetrievalError):
    """Bad request, auth failure, a stale index version …: retrying cannot help."""


class Backend(ABC):
    name: str = "backend"

    @classmethod
    def for_lake(cls, log: EventLog) -> "Backend":
        """The backend a study's searches use on this lake (retrieval.backends makes them by name)."""
        return cls()

    def bind(self, req: RetrievalRequest) -> RetrievalRequest:
        """The request as this backend keys it (the offline index fills in its version)."""
        return req

    @abstractmethod
    def search(self, req: RetrievalRequest) -> list[Candidate]:
        """One attempt: candidates best first, `rank` set. Raises RetrievalError on failure."""


def retryable_status(status: int) -> bool:
    return status in (408, 425, 429) or status >= 500
