"""Request claims: no request is paid twice, by two processes or two machines. Both doors take them: the
model gateway (`EventLog.request_lock(key)`) and the retrieval client (`request_lock(key, "retrieval_call")`).

Processes on one machine (one local root) queue on a local flock per key, so they wake at once instead
of polling; on a lake whose store only this machine writes (`Store.shared` false, the lake on this disk)
that is the whole claim, since every process reads every write-ahead file. On a shared store (object
storage) the flock holder then takes the claim in the store, which every machine sees:
a claim object `claims/<request_key>/<gen:06d>.json` (for retrieval searches under
`claims/retrieval_call/<request_key>/`) created with a conditional put; its body holds
owner, host, pid, claimed_at and lease_until (now + $PEERLAKE_CLAIM_LEASE_S). Of two machines
creating the same generation exactly one succeeds. The others wait, polling with backoff (0.05 s
growing to 2 s) and re-reading the lake each time:
- the key got an answer (a committed ok llm_call): they go in without a claim, and the gateway, which
  refreshes under the lock, replays it;
- the holder released (`<gen>.done` exists; chosen over deleting the claim so the history of who held
  a key stays readable): they put gen + 1;
- the lease expired (a crashed holder): they take over by putting gen + 1. That is the one way a call
  is paid twice: the crashed holder's call was in flight.
The holder seals its write-ahead file before writing `.done`, so its answer is visible remotely before
anyone else may ask. If that seal fails (the store unreachable), `.done` is not written: the others
wait for the lease rather than pay again for an answer that exists on this machine.

Clocks: the lease compares the holder's `lease_until` with the waiter's clock, so
machines must keep their clocks roughly in sync (NTP); the lease should exceed the slowest call.

`lock(name)` for other names (prompt_template/<hash>, price_table/<version>) stays a local flock: what
it guards is idempotent by content (the same template source or price table recorded twice from two
machines is the same record twice, harmless), so a cross-machine claim would cost round trips for nothing.
"""

import contextlib
import json
import logging
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ulid import ULID

from peerlake.warehouse import settings
from peerlake.warehouse.fsutil import file_lock
from peerlake.warehouse.stores import Store

log = logging.getLogger(__name__)

CLAIMS = "claims/"
POLL_FIRST_S, POLL_MAX_S = 0.05, 2.0
_KEY = re.compile(r"[A-Za-z0-9_\-]+")


@dataclass(frozen=True)
class Claim:
    request_key: str
    gen: int
    owner: str
    event_type: str = "llm_call"

    @property
    def key(self) -> str:
        return claim_key(self.request_key, self.gen, event_type=self.event_type)


def _folder(request_key: str, event_type: str) -> str:
    # Model calls keep the folder they always had (claims in flight stay valid across the upgrade).
    return f"{CLAIMS}{request_key}/" if event_type == "llm_call" else f"{CLAIMS}{event_type}/{request_key}/"


def claim_key(request_key: str, gen: int, suffix: str = "json", event_type: str = "llm_call") -> str:
    return f"{_folder(request_key, event_type)}{gen:06d}.{suffix}"


def _generations(store: Store, request_key: str, event_type: str) -> tuple[int, bool]:
    """The newest claim generation of the key (0: none yet) and whether it is done."""
    claims, done = set(), set()
    for info in store.list(_folder(request_key, event_type)):
        stem, _, ext = info.key.rsplit("/", 1)[-1].partition(".")
        if stem.isdigit():
            (claims if ext == "json" else done if ext == "done" else set()).add(int(stem))
    newest = max(claims, default=0)
    return newest, newest in done


def _lease_expired(store: Store, request_key: str, gen: int, event_type: str) -> bool:
    try:
        body = json.loads(store.get(claim_key(request_key, gen, event_type=event_type)))
        return datetime.fromisoformat(body["lease_until"]) < datetime.now(UTC)
    except (ValueError, KeyError, TypeError):
        return True  # an unreadable claim holds nothing
    except FileNotFoundError:
        return False  # listed a moment ago: look again


def _try_claim(store: Store, request_key: str, gen: int, event_type: str) -> Claim | None:
    now = datetime.now(UTC)
    owner = str(ULID())
    body = {"request_key": request_key, "gen": gen, "owner": owner, "host": socket.gethostname(),
            "pid": os.getpid(), "claimed_at": now.isoformat(),
            "lease_until": (now + timedelta(seconds=settings.claim_lease_s())).isoformat()}
    if store.put_if_absent(claim_key(request_key, gen, event_type=event_type), json.dumps(body, indent=1).encode()):
        return Claim(request_key, gen, owner, event_type)
    return None


def acquire(store: Store, answered: Callable[[], bool], request_key: str, event_type: str = "llm_call") -> Claim | None:
    """Wait until this process holds the key's claim (returned) or the key is answered (None)."""
    # Most keys are new: try generation 1 before listing anything (one request instead of three).
    if (claim := _try_claim(store, request_key, 1, event_type)) is not None:
        return claim
    delay = POLL_FIRST_S
    while True:
        if answered():
            return None
        newest, done = _generations(store, request_key, event_type)
        if newest == 0 or done:
            claim = _try_claim(store, request_key, newest + 1, event_type)
        elif _lease_expired(store, request_key, newest, event_type):
            claim = _try_claim(store, request_key, newest + 1, event_type)
            if claim is not None:
                log.warning("took over request %s: the claim %s had expired (its holder crashed or outlived "
                            "PEERLAKE_CLAIM_LEASE_S)", request_key[:16], claim_key(request_key, newest,
                                                                                     event_type=event_type))
        else:
            time.sleep(delay)
            delay = min(delay * 1.5, POLL_MAX_S)
            continue
        if claim is not None:
            return claim
        # Lost the race for that generation to another machine: look again at once.


@contextlib.contextmanager
def request_claim(store: Store, locks_dir: Path, answered: Callable[[], bool], seal_own: Callable[[], None],
                  request_key: str, event_type: str = "llm_call") -> Iterator[None]:
    """Held while checking for and making one paid request, across every process and machine on the lake.
    `answered` says whether the key has a committed answer; `seal_own` commits this process's write-ahead
    file (EventLog.seal_own)."""
    if not _KEY.fullmatch(request_key) or not _KEY.fullmatch(event_type):
        raise ValueError(f"bad request key {event_type}/{request_key!r}")
    with file_lock(locks_dir / event_type / f"{request_key}.lock"):
        if not store.shared:
            yield
            return
        claim = acquire(store, answered, request_key, event_type)
        try:
            yield
        finally:
            if claim is not None:
                seal_own()  # the answer is visible remotely before anyone else may ask (raises: no .done)
                store.put(claim_key(request_key, claim.gen, "done", event_type),
                          json.dumps({"owner": claim.owner, "done_at": datetime.now(UTC).isoformat()}).encode())
