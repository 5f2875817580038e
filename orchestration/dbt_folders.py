"""dbt's target/ on local disk: the per-invocation folders dagster-dbt leaves there.

Kept apart from orchestration.assets.dbt, which needs a parsed manifest at import."""

import shutil
import time
from pathlib import Path

KEEP_RUN_FOLDERS = 20  # the newest per-invocation folders kept in target/ (their compiled SQL and logs)
KEEP_RUN_SECONDS = 3600  # and any younger than this: another lake's build may still be writing it


def prune_run_folders(target_dir: Path) -> None:
    """dagster-dbt writes a folder of compiled SQL per dbt invocation (~1,800 files, ~12 MB) that nothing
    reads once the step has streamed its results: without pruning, target/ grows by gigabytes over a
    few hundred builds. The newest KEEP_RUN_FOLDERS and any under an hour old stay for debugging."""
    folders = sorted((p for p in target_dir.glob("dbt_*-*-*") if p.is_dir()),
                     key=lambda p: p.stat().st_mtime, reverse=True)
    cutoff = time.time() - KEEP_RUN_SECONDS
    for old in folders[KEEP_RUN_FOLDERS:]:
        if old.stat().st_mtime < cutoff:
            shutil.rmtree(old, ignore_errors=True)
