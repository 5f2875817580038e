"""The witness log: every chain head a seal on this machine ended at, one JSON line each in `<root>/events/heads.jsonl`.

The chain only grows, so a head recorded here must stay in it for ever: `verify` checks that each
recorded (seq, SHA-256) is still the manifest at that seq. One that is gone or hashes differently means
the chain was cut back or rewritten from there on, even when the head pointer was rewritten to match.
The file lives beside the manifests but is not one of them (nothing that rewrites the chain rewrites it by
the way), and on a lake on object storage it stays on each machine, out of the bucket's reach. Whoever
rewrites the chain and this file together is caught only by a head kept outside the lake: the one
`peerlake seal`, `run` and `build` print, the run's Dagster metadata and the report footer show, checked
with `peerlake verify --head H`.
"""

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from peerlake.warehouse.lake import Lake


class Head(Protocol):
    """A chain head (warehouse.chain.Link, which imports this module)."""

    seq: int
    sha256: str
    manifest: str


@dataclass(frozen=True)
class Recorded:
    line: int
    seq: int
    sha256: str
    manifest: str
    recorded_at: str


def record(lake: Lake, head: Head) -> None:
    """Append `head` durably, after the commit it names (skipped when it is the last line already)."""
    path = lake.head_witness
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - 1024))
            tail = fh.read()
    except FileNotFoundError:
        tail = b""
    try:
        prev = json.loads(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]) if tail.endswith(b"\n") else None
    except ValueError:
        prev = None
    if isinstance(prev, dict) and (prev.get("seq"), prev.get("sha256"), prev.get("lake")) == (
            head.seq, head.sha256, lake.url):
        return
    line = json.dumps({"seq": head.seq, "manifest": head.manifest, "sha256": head.sha256, "lake": lake.url,
                       "recorded_at": datetime.now(UTC).isoformat(timespec="seconds")}).encode()
    # A torn last line (power lost mid-append) stays a line of its own instead of swallowing this one.
    data = (b"\n" if tail and not tail.endswith(b"\n") else b"") + line + b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)  # one small write: concurrent sealers' lines never interleave
        os.fsync(fd)
    finally:
        os.close(fd)


def read(lake: Lake) -> tuple[list[Recorded], list[int]]:
    """The heads recorded for this lake, and the numbers of the lines that are not a recorded head (a
    write torn by a power loss, or an edit). A last line without its newline is not read."""
    try:
        data = lake.head_witness.read_bytes()
    except FileNotFoundError:
        return [], []
    out, bad = [], []
    lines = data.split(b"\n")
    for i, raw in enumerate(lines[:-1], 1):  # the part after the last newline is torn or empty
        try:
            d = json.loads(raw)
            rec = Recorded(i, int(d["seq"]), str(d["sha256"]), str(d["manifest"]), str(d.get("recorded_at")))
        except (ValueError, KeyError, TypeError):
            bad.append(i)
            continue
        if d.get("lake") == lake.url:  # a machine root reused for another lake keeps that lake's heads apart
            out.append(rec)
    return out, bad


def check(lake: Lake, sha_at_seq: dict[int, str], tip_seq: int, published: bool = False) -> tuple[list[str], list[str]]:
    """(problems, warnings): recorded heads no longer in the chain (`sha_at_seq`: each chained seq's SHA-256),
    and, when there is a chain but neither a recorded head nor a `published` one to check it against, a
    warning saying what that leaves unseen."""
    recorded, bad = read(lake)
    path = lake.head_witness
    warnings = [f"{path} line {i} is not a recorded chain head (a write torn by a power loss, or an edit)"
                for i in bad]
    if not recorded and not published and tip_seq > 0:
        warnings.append(no_head_warning(lake))
    problems = []
    gone = [r for r in recorded if sha_at_seq.get(r.seq) != r.sha256]
    if gone:
        r = min(gone, key=lambda r: (r.seq, r.line))
        if r.seq > tip_seq:
            what = (f"the chain ends at seq {tip_seq}, but seq {r.seq} ({r.manifest}.json) was its head on "
                    f"{r.recorded_at}: the newest manifests were deleted (cut back), with whatever they committed")
        else:
            what = (f"seq {r.seq} was {r.manifest}.json with sha256 {r.sha256[:16]}… when recorded on "
                    f"{r.recorded_at}; the chain now holds other bytes there, so it was rewritten from seq "
                    f"{r.seq} or earlier (a manifest replaced, re-linked or reordered) or cut back and sealed again")
        problems.append(f"{len(gone)} chain head(s) recorded in {path} are no longer in the chain; the oldest: {what}")
    return problems, warnings


def no_head_warning(lake: Lake) -> str:
    return (f"no head to check against (no `--head H` given, no head recorded in {lake.head_witness}): without "
            "one, verify cannot see the newest manifest rewritten together with the head pointer, the chain "
            "re-linked from some manifest on (rewritten or reordered), or cut back by its newest manifests "
            "together with their segments and write-ahead files. Check against a head printed earlier: "
            "`peerlake verify --head H`")
