"""quality_comparison built by dbt from real depth judgments of 12 papers (one imported system's review
and one human review each), every expected number worked out by hand below; then its gate."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from peerlake.expectations import run_gate
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import JudgmentRecorded

PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
CONFIG = "cfgq000000000001"
PAPERS = [f"P{i:02d}" for i in range(1, 13)]
# Human review: a claim and a premise grounded 2 → R = 1/2, S = 2/2 = 1, DoA = 2·(1/2)·1 / (3/2) = 2/3.
# System review: two premises grounded 2 → R = 1, S = 1, DoA = 1. On every paper: DoA difference 1/3,
# premise ratio difference 1/2, grounding difference 0.
HUMAN_UNITS = [("claim", None), ("premise", 2)]
SYSTEM_UNITS = [("premise", 2), ("premise", 2)]


def _judgment(subject: str, paper: str, source: str, system: str, units) -> JudgmentRecorded:
    rows = [{"unit_index": k, "text": f"unit {k}", "start": 10 * k, "field": "weaknesses", "role": role,
             "aspect": "soundness", "grounding": grounding} for k, (role, grounding) in enumerate(units)]
    return JudgmentRecorded(
        judgment_key=hashlib.sha256(subject.encode()).hexdigest(), judge="depth", step="units", judge_config=CONFIG,
        subject_key=subject, paper_id=paper, repeat=0, status="ok", null_reason=None, units_json=json.dumps(rows),
        dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps({"source": source, "system": system, "fields": ["weaknesses"]}), study="qc")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("quality_comparison")
    log = EventLog(Lake(root / "lake"))
    judgments = [j for p in PAPERS for j in (
        _judgment(f"human:h-{p}", p, "human", "human", HUMAN_UNITS),
        _judgment(f"external:sysx:r-{p}", p, "external", "sysx", SYSTEM_UNITS))]
    judges = [{"judge": "depth", "judge_config": CONFIG, "provider": "fake", "model": "judge-m", "repeats": 1,
               "review_keys": [j.subject_key for j in judgments], "pools": []}]
    log.append_many([*judgments, resolution_event("qc", "e" * 64, PAPERS, [], ["sysx"], paper_source="test",
                                                  asset="judgments", judges=judges)])
    log.seal()
    log.close()
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(root / "lake"), PEERLAKE_DUCKDB_PATH=str(root / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", "+quality_comparison",
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(root / "target"), "--log-path", str(root / "logs"),
         "--vars", "{quality_bootstrap: 1000}"],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return root / "marts.duckdb"


def _rows(db: Path) -> dict[str, dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from quality_comparison")
        cols = [d[0] for d in cur.description]
        return {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}


def test_one_row_per_metric_of_the_system(db):
    rows = _rows(db)
    assert sorted(rows) == ["qc|sysx|doa", "qc|sysx|grounding_norm", "qc|sysx|premise_ratio"]
    assert {(r["source"], r["judge"], r["judge_config"], r["n_pairs"], r["bootstrap_seed"], r["n_resamples"])
            for r in rows.values()} == {("external", "depth", CONFIG, 12, 42, 1000)}


def test_depth_differences_by_hand(db):
    rows = _rows(db)
    doa, ratio, grounding = rows["qc|sysx|doa"], rows["qc|sysx|premise_ratio"], rows["qc|sysx|grounding_norm"]
    assert (doa["mean_system"], doa["mean_human"], doa["mean_diff"]) == pytest.approx((1, 2 / 3, 1 / 3))
    assert doa["ci_low"] == doa["ci_high"] == pytest.approx(1 / 3)  # the same difference on every paper
    assert ratio["mean_diff"] == pytest.approx(0.5)
    # 12 equal positive differences (tied ranks): scipy's exact signed-rank test (n ≤ 50, no zeros) flips
    # signs; only "all +" and "all −" are as extreme as the data → p = 2 / 2^12
    p0 = 2 / 2 ** 12
    assert doa["wilcoxon_p"] == pytest.approx(p0, rel=1e-6) and ratio["wilcoxon_p"] == pytest.approx(p0, rel=1e-6)
    assert (grounding["wilcoxon_p"], grounding["wilcoxon_note"]) == (1.0, "all_differences_zero")
    # Holm over 3: sorted p0, p0, 1 → 3·p0, 2·p0 → monotone 3·p0, then 1
    assert doa["holm_p"] == pytest.approx(3 * p0, rel=1e-6) and ratio["holm_p"] == pytest.approx(3 * p0, rel=1e-6)
    assert grounding["holm_p"] == 1.0
    assert (doa["cliffs_delta"], doa["magnitude"]) == (1.0, "large")
    assert (grounding["cliffs_delta"], grounding["magnitude"]) == (0.0, "negligible")
    # paired δ: 12 positive differences → 12/12; 12 zero differences → 0
    assert (doa["cliffs_delta_paired"], grounding["cliffs_delta_paired"]) == (1.0, 0.0)


def test_gate_passes_on_the_built_mart(db):
    result = run_gate("quality_comparison", db)
    assert result.success, result.describe()
