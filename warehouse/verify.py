"""Re-derive every hash in the lake: blobs, sealed segments, the WAL ranges they came from, and the
prompt template sources stored under their prompt_hash."""

import json
from dataclasses import dataclass, field

from warehouse.blobs import sha256_hex
from warehouse.log import EventLog


@dataclass
class VerifyReport:
    checked_blobs: int = 0
    checked_segments: int = 0
    checked_wal_ranges: int = 0
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_lake(log: EventLog) -> VerifyReport:
    lake = log.lake
    report = VerifyReport()
    listed: set[str] = set()
    for mpath in sorted(lake.manifests_dir.glob("*.json")):
        try:
            manifest = json.loads(mpath.read_text())
        except ValueError as exc:
            report.problems.append(f"manifest {mpath}: not valid JSON ({exc})")
            continue
        for seg in manifest["segments"]:
            listed.add(seg["path"])
            p = lake.root / seg["path"]
            report.checked_segments += 1
            if not p.exists():
                report.problems.append(f"segment {p} is listed in {mpath.name} but missing")
            elif (got := sha256_hex(p.read_bytes())) != seg["sha256"]:
                report.problems.append(
                    f"segment {p} was modified: sha256 {got[:16]}… but manifest {mpath.name} "
                    f"recorded {seg['sha256'][:16]}…")
        if manifest.get("wal"):
            wal = lake.wal_dir / manifest["wal"]
            report.checked_wal_ranges += 1
            if not wal.exists():
                report.problems.append(f"write-ahead file {wal} is missing")
                continue
            with open(wal, "rb") as fh:
                fh.seek(manifest["start"])
                data = fh.read(manifest["end"] - manifest["start"])
            if sha256_hex(data) != manifest["wal_sha256"]:
                report.problems.append(
                    f"write-ahead file {wal} bytes {manifest['start']}–{manifest['end']} changed "
                    f"after they were sealed (manifest {mpath.name})")
    for p in sorted(lake.segments_dir.rglob("*.parquet")):
        rel = str(p.relative_to(lake.root))
        if rel not in listed:
            report.warnings.append(f"segment {p} is in no manifest (an interrupted seal; "
                                   "`peerlake seal` commits it)")
    for p in log.blobs.iter_all():
        report.checked_blobs += 1
        if sha256_hex(p.read_bytes()) != p.name:
            report.problems.append(f"blob {p} does not match its SHA-256 name")
    for ev in log.iter_events("prompt_template_stored"):
        # The stored source must be the very text whose hash versioned the calls.
        if ev.source_sha256 != ev.prompt_hash:
            report.problems.append(f"prompt_template_stored {ev.event_id}: source blob {ev.source_sha256[:16]}… "
                                   f"is not the text of prompt_hash {ev.prompt_hash[:16]}…")
        elif not log.blobs.exists(ev.source_sha256):
            report.problems.append(f"prompt template {ev.prompt_template} ({ev.prompt_hash[:16]}…): "
                                   "source blob is missing")
    return report
