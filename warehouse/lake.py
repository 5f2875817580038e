"""Where things live under the lake root. One object, so no module builds paths by hand."""

from dataclasses import dataclass
from pathlib import Path

from peerlake.warehouse import settings


@dataclass(frozen=True)
class Lake:
    root: Path  # this machine's part: write-ahead files, DuckDB files, Dagster, locks (all of it when local)
    url: str | None = None  # s3://bucket/prefix: the shared part (events, blobs, claims) on object storage

    @classmethod
    def default(cls) -> "Lake":
        return cls(settings.lake_root(), settings.lake_url())

    @property
    def events(self) -> Path:
        return self.root / "events"

    @property
    def wal_dir(self) -> Path:
        return self.events / "wal"

    @property
    def segments_dir(self) -> Path:
        return self.events / "segments"

    @property
    def manifests_dir(self) -> Path:
        return self.events / "manifests"

    @property
    def chain_head(self) -> Path:
        """The newest manifest's seq and SHA-256: the head of the manifests' hash chain (warehouse/chain.py)."""
        return self.events / "chain_head.json"

    @property
    def head_witness(self) -> Path:
        """Every chain head this machine committed, appended (warehouse/heads.py); kept on this machine
        when the lake is on object storage."""
        return self.events / "heads.jsonl"

    @property
    def seal_lock(self) -> Path:
        return self.events / "seal.lock"

    @property
    def blobs_dir(self) -> Path:
        return self.root / "blobs"

    @property
    def locks_dir(self) -> Path:
        return self.root / "locks"

    @property
    def duckdb_path(self) -> Path:
        """The published marts (only warehouse.publish writes it, by one atomic rename)."""
        return self.root / "peerlake.duckdb"

    @property
    def candidate_duckdb_path(self) -> Path:
        """What dbt builds into before the gates pass. Same file name as the published one, so the
        catalog name (DuckDB takes the file stem) that dbt qualifies relations with is the same."""
        return self.root / "candidate" / "peerlake.duckdb"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    @property
    def remote_cache_dir(self) -> Path:
        """With a lake URL: this machine's copies of remote manifests, segments and blobs (immutable)."""
        return self.root / "cache" / "remote"

    def segment_glob(self, event_type: str) -> str:
        return str(self.segments_dir / f"event_type={event_type}" / "*.parquet")

    def ensure(self) -> "Lake":
        for d in (self.wal_dir, self.segments_dir, self.manifests_dir, self.blobs_dir, self.locks_dir):
            d.mkdir(parents=True, exist_ok=True)
        return self
