"""int_quality_ppi_labels on the real DISAPERE (skipped when ../shared/data is absent): the human premise ratio
of every review built by dbt from the imported sentences, against the same ratio counted here from the
dataset's own files (review_action: evaluative and request sentences are claims, fact sentences premises,
the rest no argument unit), and one review counted by hand."""

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from peerlake.ingest.disapere import import_disapere
from peerlake.warehouse import EventLog, Lake
from tests.conftest import SHARED_DATA

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
ROOT = SHARED_DATA / "disapere"
ROLE = {"arg_evaluative": "claim", "arg_request": "claim", "arg_fact": "premise"}


@pytest.fixture(scope="module")
def ratios(tmp_path_factory) -> dict[str, tuple[float, int]]:
    if not (ROOT / "final_dataset").is_dir():
        pytest.skip(f"DISAPERE not present at {ROOT}")
    tmp = tmp_path_factory.mktemp("ppi_disapere")
    log = EventLog(Lake(tmp / "lake"))
    import_disapere(log, ROOT)
    log.seal()
    log.close()
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(tmp / "lake"), PEERLAKE_DUCKDB_PATH=str(tmp / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", "+int_quality_ppi_labels",
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(tmp / "target"), "--log-path", str(tmp / "logs")],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    with duckdb.connect(str(tmp / "marts.duckdb"), read_only=True) as con:
        rows = con.execute("select review_key, human_value, n_spans from int_quality_ppi_labels "
                           "where metric = 'premise_ratio' and datasets = 'disapere'").fetchall()
    return {key: (value, n) for key, value, n in rows}


def test_one_review_by_hand(ratios):
    # HyedILfT2X: three summary sentences (structuring: no unit), claims at 3, 4 and 7, facts at 5 and 6
    assert ratios["external:disapere:HyedILfT2X"] == (pytest.approx(2 / 5), 5)
    # Skx9YZG-qB: two evaluations and a request, no fact; its second annotator's labels are a rater's, not counted
    assert ratios["external:disapere:Skx9YZG-qB"] == (0.0, 3)


def test_every_review_as_its_files_count_it(ratios):
    expected = {}
    for path in sorted(ROOT.glob("final_dataset/*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        roles = collections.Counter(ROLE.get(s["review_action"]) for s in doc["review_sentences"])
        units = roles["claim"] + roles["premise"]
        if units:
            expected[f"external:disapere:{doc['metadata']['review_id']}"] = (roles["premise"] / units, units)
    assert len(expected) == 506  # every review of the final dataset argues something
    assert set(ratios) == set(expected)
    wrong = {k: (ratios[k], v) for k, v in expected.items()
             if ratios[k][1] != v[1] or abs(ratios[k][0] - v[0]) > 1e-12}
    assert wrong == {}
