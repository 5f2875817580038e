"""The manifests as a hash chain, so a deleted, rewritten or reordered commit shows.

Every manifest committed since the chain started carries `seq` (1, 2, 3 … in commit order) and
`prev_sha256`, the SHA-256 of the previous manifest's bytes. Seq 1 is the genesis manifest
(`000000-chain-genesis.json`): it commits no segments, and pins the SHA-256 of every manifest written
before the chain existed (a legacy lake's), so those cannot be deleted or rewritten unseen either.
`chain_head.json` names the newest manifest (seq, file, SHA-256): deleting the newest manifest leaves
the head pointing at nothing, and the next commit links to the head, so the gap stays visible.

Commits happen only under the seal lock (`EventLog.seal`, `EventLog._ensure_schema_segments`), so any
number of processes build one chain. The head moves once per commit batch, after its manifests: a crash
in between leaves manifests past the head that link correctly, which `verify` reports as an
interrupted seal (a warning) and the next commit batch adopts. The head is the hash a user publishes:
`peerlake verify --head H` checks the log still holds it. Each head written is also appended to the
witness log (warehouse/heads.py), which `verify` checks the chain against: the head pointer is among the
files a rewrite of the chain redoes, the witness log is not.
"""

import itertools
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from warehouse import heads
from warehouse.blobs import sha256_hex
from warehouse.fsutil import atomic_write
from warehouse.lake import Lake

GENESIS = "000000-chain-genesis"


@dataclass(frozen=True)
class Link:
    """One position in the chain: the manifest at `seq`, its file stem and the SHA-256 of its bytes."""

    seq: int
    sha256: str
    manifest: str

    def to_json(self) -> bytes:
        return json.dumps({"seq": self.seq, "manifest": self.manifest, "sha256": self.sha256}, indent=1).encode()


@dataclass(frozen=True)
class ManifestFile:
    """A manifest as stored: its stem, its exact bytes and what they parse to (None: not JSON)."""

    stem: str
    raw: bytes
    body: dict | None

    @property
    def sha256(self) -> str:
        return sha256_hex(self.raw)

    @property
    def seq(self) -> int | None:
        seq = self.body.get("seq") if isinstance(self.body, dict) else None
        return seq if isinstance(seq, int) else None


def read_manifests(lake: Lake) -> list[ManifestFile]:
    out = []
    for p in sorted(lake.manifests_dir.glob("*.json")):
        raw = p.read_bytes()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        out.append(ManifestFile(p.stem, raw, body if isinstance(body, dict) else None))
    return out


def read_head(lake: Lake) -> Link | None:
    """The head pointer, or None before the first commit batch finished (or if it was removed)."""
    try:
        d = json.loads(lake.chain_head.read_bytes())
        return Link(int(d["seq"]), str(d["sha256"]), str(d["manifest"]))
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        return Link(-1, "", "unreadable")


def manifest_bytes(body: dict) -> bytes:
    return json.dumps(body, indent=1).encode()


class ChainWriter:
    """Appends manifests to the chain. Open it with the seal lock held and keep holding it."""

    def __init__(self, lake: Lake, manifests: list[ManifestFile]):
        self.lake = lake
        self.tip = self._tip(read_head(lake), manifests)
        self._moved = False
        if self.tip is None:
            # First commit on this lake (new, or written before the chain existed): pin what exists.
            legacy = {m.stem: m.sha256 for m in manifests if m.seq is None}
            self.commit(GENESIS, {"wal": None, "segments": [], "events": 0, "genesis": True,
                                  "created_at": datetime.now(UTC).isoformat(), "legacy_manifests": legacy})

    @staticmethod
    def _tip(head: Link | None, manifests: list[ManifestFile]) -> Link | None:
        chained = [m for m in manifests if m.seq is not None]
        newest = max(chained, key=lambda m: m.seq, default=None)
        if head is not None and head.seq > 0 and (newest is None or head.seq >= newest.seq):
            # Equal: the usual case. Greater: the newest manifest(s) were deleted; continuing after the
            # head (not after the newest file left) keeps that gap in the chain for `verify` to name.
            return head
        if newest is not None:
            # Manifests past the head: a commit batch crashed before moving the head. Adopt them.
            return Link(newest.seq, newest.sha256, newest.stem)
        return None

    def commit(self, stem: str, body: dict) -> None:
        """Write one manifest linked to the tip (the caller moves the head with `finish`)."""
        body = {**body, "seq": 1 if self.tip is None else self.tip.seq + 1,
                "prev_sha256": None if self.tip is None else self.tip.sha256}
        data = manifest_bytes(body)
        atomic_write(self.lake.manifests_dir / f"{stem}.json", data)
        self.tip = Link(body["seq"], sha256_hex(data), stem)
        self._moved = True

    def finish(self) -> None:
        """Move the head to the newest manifest (once per batch: one small write, not one per manifest)."""
        if self.tip is not None and (self._moved or read_head(self.lake) != self.tip):
            atomic_write(self.lake.chain_head, self.tip.to_json())
            heads.record(self.lake, self.tip)
            self._moved = False


@dataclass
class ChainCheck:
    problems: list[str]
    warnings: list[str]
    tip: Link | None  # the newest manifest in the chain (what `verify --head` prints)
    started_at: datetime | None  # when the genesis was written: events before it may predate kept blobs
    seq_of_sha: dict[str, int]  # every chained manifest's SHA-256 -> its seq (for `--head H`)


def check_chain(lake: Lake, manifests: list[ManifestFile]) -> ChainCheck:
    """Links, gaps, duplicates, the head pointer and the genesis's pins of the pre-chain manifests."""
    out = ChainCheck([], [], None, None, {})
    by_stem = {m.stem: m for m in manifests}
    by_seq: dict[int, ManifestFile] = {}
    for m in sorted((m for m in manifests if m.seq is not None), key=lambda m: (m.seq, m.stem)):
        if m.seq in by_seq:
            out.problems.append(f"manifests {by_seq[m.seq].stem}.json and {m.stem}.json both claim chain seq "
                                f"{m.seq}: one of them was copied or forged")
            continue
        by_seq[m.seq] = m
    head = read_head(lake)
    legacy = [m for m in manifests if m.body is not None and m.seq is None]
    if not by_seq:
        if head is not None:
            out.problems.append(f"the chain head ({lake.chain_head.name}) names {head.manifest}.json (seq "
                                f"{head.seq}) but no manifest carries chain fields: the chained manifests were "
                                "deleted")
        elif legacy:
            out.warnings.append(f"no hash chain yet: the {len(legacy)} manifests were written before peerlake "
                                "chained them (checked one by one only); `peerlake seal` starts the chain")
        return out
    seqs = sorted(by_seq)
    first = by_seq[seqs[0]]
    if seqs[0] != 1 or first.stem != GENESIS:
        out.problems.append(f"the chain starts at {first.stem}.json (seq {seqs[0]}), not at {GENESIS}.json "
                            "(seq 1): the start of the chain was deleted or rewritten")
    for prev_seq, seq in itertools.pairwise(seqs):
        prev, m = by_seq[prev_seq], by_seq[seq]
        if seq != prev_seq + 1:
            missing = f"seq {prev_seq + 1}" if seq == prev_seq + 2 else f"seqs {prev_seq + 1}–{seq - 1}"
            out.problems.append(f"manifest(s) {missing} are missing between {prev.stem}.json (seq {prev_seq}) and "
                                f"{m.stem}.json (seq {seq}): deleted from the chain")
        elif m.body.get("prev_sha256") != prev.sha256:
            out.problems.append(f"manifest {m.stem}.json (seq {seq}) does not follow {prev.stem}.json (seq "
                                f"{prev_seq}): its prev_sha256 is not the SHA-256 of that file's bytes, so "
                                f"{prev.stem}.json was rewritten (or the manifests reordered)")
    tip = by_seq[seqs[-1]]
    out.tip = Link(tip.seq, tip.sha256, tip.stem)
    out.seq_of_sha = {m.sha256: s for s, m in by_seq.items()}
    problems, warnings = check_head(lake.chain_head.name, head, by_seq)
    out.problems += problems
    out.warnings += warnings
    genesis = by_seq.get(1)
    if genesis is not None and genesis.stem == GENESIS:
        started = genesis.body.get("created_at")
        out.started_at = datetime.fromisoformat(started) if isinstance(started, str) else None
        _check_legacy(genesis, legacy, by_stem, out)
    return out


def check_head(where: str, head: Link | None, by_seq: dict[int, ManifestFile]) -> tuple[list[str], list[str]]:
    """(problems, warnings) of the head pointer `where` (a file or object name) against the chain `by_seq`
    (seq -> manifest, not empty). Shared by the local and the remote verify."""
    tip = by_seq[max(by_seq)]
    if head is None:
        return [], [f"no chain head pointer ({where}): a seal was interrupted before writing it, or it was "
                    f"removed; the chain up to {tip.stem}.json (seq {tip.seq}) is checked by its links only. "
                    "`peerlake seal` writes it"]
    if head.seq < 1:
        return [f"the chain head {where} is unreadable"], []
    if head.seq > tip.seq:
        missing = f"seq {head.seq}" if head.seq == tip.seq + 1 else f"seqs {tip.seq + 1}–{head.seq}"
        return [f"the newest manifest(s) ({missing}) were deleted: the chain head names {head.manifest}.json "
                f"(seq {head.seq}), but the chain ends at {tip.stem}.json (seq {tip.seq})"], []
    at_head = by_seq.get(head.seq)
    if at_head is not None and (at_head.sha256 != head.sha256 or at_head.stem != head.manifest):
        return [f"manifest {at_head.stem}.json (seq {head.seq}) is not the one the chain head recorded "
                f"({head.manifest}.json, sha256 {head.sha256[:16]}…): it was rewritten or replaced"], []
    if tip.seq > head.seq:
        # Linked manifests past the head: a commit batch that crashed before moving the head.
        return [], [f"manifests seq {head.seq + 1}–{tip.seq} are past the chain head (a seal was interrupted "
                    "before moving it; they link correctly). The next `peerlake seal` moves the head"]
    return [], []


def _check_legacy(genesis: ManifestFile, legacy: list[ManifestFile], by_stem: dict[str, ManifestFile],
                  out: ChainCheck) -> None:
    pinned = genesis.body.get("legacy_manifests") or {}
    if not isinstance(pinned, dict):
        out.problems.append(f"{GENESIS}.json: legacy_manifests is not a mapping of manifest -> SHA-256")
        pinned = {}
    for stem, sha in sorted(pinned.items()):
        m = by_stem.get(stem)
        if m is None:
            out.problems.append(f"manifest {stem}.json (written before the chain, pinned by {GENESIS}.json) "
                                "is missing: deleted")
        elif m.sha256 != sha:
            out.problems.append(f"manifest {stem}.json was rewritten after the chain started ({GENESIS}.json "
                                f"pinned sha256 {sha[:16]}…, the file now hashes to {m.sha256[:16]}…)")
    for m in legacy:
        if m.stem not in pinned:
            out.problems.append(f"manifest {m.stem}.json has no chain fields and was not there when the chain "
                                "started: it was added afterwards (by hand or by an older peerlake)")
    if pinned:
        out.warnings.append(f"{len(pinned)} manifests predate the hash chain; it starts at {GENESIS}.json "
                            "(seq 1), which pins their SHA-256s (their commit order was not recorded)")
