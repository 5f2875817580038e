"""The manifests as a hash chain, so a deleted, rewritten or reordered commit shows.

Every manifest carries `seq` (1, 2, 3 … in commit order) and `prev_sha256`, the SHA-256 of the previous
manifest's bytes. Seq 1 is the genesis manifest: it commits no segments, and pins the SHA-256 of every
manifest written before the chain existed (an old lake's), so those cannot be deleted or rewritten unseen
either. `chain_head.json` names the newest manifest (seq, name, SHA-256): deleting the newest manifest
leaves the head pointing past the chain's end. The head is the hash a user publishes:
`peerlake verify --head H` checks the log still holds it. Each head written is also appended to the
witness log (warehouse/heads.py), which `verify` checks the chain against: the head pointer is among the
files a rewrite of the chain redoes, the witness log is not.

Manifests are committed by warehouse/commit.py (numbered, `<seq:012d>.json`); a lake written
before that keeps its manifests named by write-ahead range (the genesis `000000-chain-genesis.json`),
read into the same chain. This module holds what both share: the link, the head pointer, and the check of
the chain's links, gaps, head and pins.
"""

import itertools
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class Link:
    """One position in the chain: the manifest at `seq`, its file stem and the SHA-256 of its bytes."""

    seq: int
    sha256: str
    manifest: str

    def to_json(self) -> bytes:
        return json.dumps({"seq": self.seq, "manifest": self.manifest, "sha256": self.sha256}, indent=1).encode()


@dataclass
class ChainCheck:
    problems: list[str]
    warnings: list[str]
    tip: Link | None  # the newest manifest in the chain (what `verify --head` prints)
    started_at: datetime | None  # when the genesis was written: events before it may predate kept blobs
    seq_of_sha: dict[str, int]  # every chained manifest's SHA-256 -> its seq (for `--head H`)


class Manifest(Protocol):
    """A committed manifest as stored (warehouse.commit.NumberedManifest): seq 0 predates the chain."""

    seq: int
    body: dict

    @property
    def stem(self) -> str: ...
    @property
    def sha256(self) -> str: ...


def check_chain(head_where: str, head: Link | None, manifests: list[Manifest]) -> ChainCheck:
    """Links, gaps, duplicates, the head pointer (`head`, read from `head_where`) and the genesis's pins of
    the pre-chain manifests, over every manifest of either layout."""
    out = ChainCheck([], [], None, None, {})
    by_stem = {m.stem: m for m in manifests}
    by_seq: dict[int, Manifest] = {}
    for m in sorted((m for m in manifests if m.seq > 0), key=lambda m: (m.seq, m.stem)):
        if m.seq in by_seq:
            out.problems.append(f"manifests {by_seq[m.seq].stem}.json and {m.stem}.json both claim chain seq "
                                f"{m.seq}: one of them was copied or forged")
            continue
        by_seq[m.seq] = m
    legacy = [m for m in manifests if m.seq == 0]
    if not by_seq:
        if head is not None:
            out.problems.append(f"the chain head ({head_where}) names {head.manifest}.json (seq {head.seq}) but no "
                                "manifest carries chain fields: the chained manifests were deleted")
        elif legacy:
            out.warnings.append(f"no hash chain yet: the {len(legacy)} manifests were written before peerlake "
                                "chained them (checked one by one only); `peerlake seal` starts the chain")
        return out
    seqs = sorted(by_seq)
    first = by_seq[seqs[0]]
    if seqs[0] != 1 or not first.body.get("genesis"):
        out.problems.append(f"the chain starts at {first.stem}.json (seq {seqs[0]}), not at a genesis manifest "
                            "(seq 1): the start of the chain was deleted or rewritten")
    for prev_seq, seq in itertools.pairwise(seqs):
        prev, m = by_seq[prev_seq], by_seq[seq]
        if seq != prev_seq + 1:
            missing = f"seq {prev_seq + 1}" if seq == prev_seq + 2 else f"seqs {prev_seq + 1}–{seq - 1}"
            out.problems.append(f"manifest(s) {missing} missing between {prev.stem}.json (seq {prev_seq}) and "
                                f"{m.stem}.json (seq {seq}): deleted from the chain")
        elif m.body.get("prev_sha256") != prev.sha256:
            out.problems.append(f"manifest {m.stem}.json (seq {seq}) does not follow {prev.stem}.json (seq "
                                f"{prev_seq}): its prev_sha256 is not the SHA-256 of that file's bytes, so "
                                f"{prev.stem}.json was rewritten (or the manifests reordered)")
    tip = by_seq[seqs[-1]]
    out.tip = Link(tip.seq, tip.sha256, tip.stem)
    out.seq_of_sha = {m.sha256: s for s, m in by_seq.items()}
    problems, warnings = check_head(head_where, head, by_seq)
    out.problems += problems
    out.warnings += warnings
    genesis = by_seq.get(1)
    if genesis is not None and genesis.body.get("genesis"):
        started = genesis.body.get("created_at")
        out.started_at = datetime.fromisoformat(started) if isinstance(started, str) else None
        _check_legacy(genesis, legacy, by_stem, out)
    elif legacy:
        out.problems.append(f"{len(legacy)} manifests have no chain fields and no genesis pins them")
    return out


def check_head(where: str, head: Link | None, by_seq: dict[int, Manifest]) -> tuple[list[str], list[str]]:
    """(problems, warnings) of the head pointer `where` (a file or object name) against the chain `by_seq`
    (seq -> manifest, not empty)."""
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


def _check_legacy(genesis: Manifest, legacy: list[Manifest], by_stem: dict[str, Manifest],
                  out: ChainCheck) -> None:
    pinned = genesis.body.get("legacy_manifests") or {}
    if not isinstance(pinned, dict):
        out.problems.append(f"{genesis.stem}.json: legacy_manifests is not a mapping of manifest -> SHA-256")
        pinned = {}
    for stem, sha in sorted(pinned.items()):
        m = by_stem.get(stem)
        if m is None:
            out.problems.append(f"manifest {stem}.json (written before the chain, pinned by {genesis.stem}.json) "
                                "is missing: deleted")
        elif m.sha256 != sha:
            out.problems.append(f"manifest {stem}.json was rewritten after the chain started ({genesis.stem}.json "
                                f"pinned sha256 {sha[:16]}…, the file now hashes to {m.sha256[:16]}…)")
    for m in legacy:
        if m.stem not in pinned:
            out.problems.append(f"manifest {m.stem}.json has no chain fields and was not there when the chain "
                                "started: it was added afterwards (by hand or by an older peerlake)")
    if pinned:
        out.warnings.append(f"{len(pinned)} manifests predate the hash chain; it starts at {genesis.stem}.json "
                            "(seq 1), which pins their SHA-256s (their commit order was not recorded)")
