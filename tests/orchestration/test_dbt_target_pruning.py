"""dbt's per-invocation folders in target/ are pruned: the newest 20 and any under an hour old stay."""

import os
import time

from peerlake.orchestration.dbt_folders import KEEP_RUN_FOLDERS, prune_run_folders


def test_old_run_folders_go_and_recent_or_newest_stay(tmp_path):
    now = time.time()
    made = []
    for i in range(KEEP_RUN_FOLDERS + 5):  # 25 folders, the i-th one i hours old (+1 minute)
        folder = tmp_path / f"dbt_statistics-{i:07d}-abcdef0"
        (folder / "compiled").mkdir(parents=True)
        age = now - i * 3600 - 60
        os.utime(folder, (age, age))
        made.append(folder)
    young = tmp_path / "dbt_inputs-young00-abcdef0"  # beyond the newest 20 by name order, but 10 s old
    young.mkdir()
    os.utime(young, (now - 10, now - 10))
    other = tmp_path / "manifest.json"
    other.write_text("{}")
    prune_run_folders(tmp_path)
    # 26 folders: the 20 newest stay (young + the 19 youngest of the others), the other 6 are older
    # than an hour and go
    assert young.exists() and other.exists()
    assert [f.exists() for f in made] == [True] * 19 + [False] * 6
