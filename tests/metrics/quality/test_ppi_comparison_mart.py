"""quality_comparison's PPI columns built by dbt: 12 papers whose judge says premise ratio 1 for the system and
1/2 for the humans, and human span labels on three reviews of each side; every number worked out by hand."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import ReferenceLabelImported
from tests.metrics.quality.test_quality_comparison_mart import (
    CONFIG,
    HUMAN_UNITS,
    PAPERS,
    PROJECT_DIR,
    SYSTEM_UNITS,
    _judgment,
)

# the humans' labels: system reviews of P01 and P03 are half premises (the judge said all), P02's all premises;
# the three human reviews labelled are half premises, as the judge said
LABELS = {"external:sysx:r-P01": ["claim", "premise"], "external:sysx:r-P02": ["premise", "premise"],
          "external:sysx:r-P03": ["premise", "claim"], "human:h-P01": ["claim", "premise"],
          "human:h-P02": ["premise", "claim"], "human:h-P03": ["claim", "premise"]}


def _labels() -> list[ReferenceLabelImported]:
    out, line = [], 0
    for review, roles in LABELS.items():
        for k, role in enumerate(roles):
            line += 1
            out.append(ReferenceLabelImported(
                dataset="hand", subject_key=review, paper_id=None, source_path="labels.jsonl", line_no=line,
                label_json=json.dumps({"start": 10 * k, "end": 10 * k + 8, "label": role, "dimension": "role"})))
    return out


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ppi_comparison")
    log = EventLog(Lake(root / "lake"))
    judgments = [j for p in PAPERS for j in (
        _judgment(f"human:h-{p}", p, "human", "human", HUMAN_UNITS),
        _judgment(f"external:sysx:r-{p}", p, "external", "sysx", SYSTEM_UNITS))]
    judges = [{"judge": "depth", "judge_config": CONFIG, "provider": "fake", "model": "judge-m", "repeats": 1,
               "review_keys": [j.subject_key for j in judgments], "pools": []}]
    log.append_many([*judgments, *_labels(),
                     resolution_event("qc", "e" * 64, PAPERS, [], ["sysx"], paper_source="test", asset="judgments",
                                      judges=judges)])
    log.seal()
    log.close()
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(root / "lake"), PEERLAKE_DUCKDB_PATH=str(root / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", "+quality_comparison",
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(root / "target"), "--log-path", str(root / "logs"), "--vars", "{quality_bootstrap: 200}"],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return root / "marts.duckdb"


def _rows(db: Path) -> dict[str, dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from quality_comparison")
        cols = [d[0] for d in cur.description]
        return {r[0]: dict(zip(cols, r, strict=True)) for r in cur.fetchall()}


def test_ppi_corrects_the_judges_overstatement_by_hand(db):
    ratio = _rows(db)["qc|sysx|premise_ratio"]
    assert ratio["mean_diff"] == pytest.approx(0.5)  # the judge-only columns as before
    # naive: system 1 on 12 reviews, humans 1/2 on 12, no spread → 1/2 with a zero-width interval
    assert (ratio["naive_diff"], ratio["naive_ci_low"], ratio["naive_ci_high"]) == pytest.approx((0.5, 0.5, 0.5))
    # system: 9 unlabelled at 1 (variance 0) + rectifier Y − Ŷ = −1/2, 0, −1/2 → mean −1/3, σ̂² = (1/36 + 1/9
    # + 1/36)/3 = 1/18, over n = 3 → θ̂ = 2/3, se² = 1/54; humans: 9 at 1/2 + rectifier 0, 0, 0 → 1/2, se 0.
    # Difference 1/6 ± z·√(1/54)
    half = 1.959964 * math.sqrt(1 / 54)
    assert ratio["ppi_diff"] == pytest.approx(1 / 6)
    assert (ratio["ppi_ci_low"], ratio["ppi_ci_high"]) == (pytest.approx(1 / 6 - half, abs=1e-6),
                                                           pytest.approx(1 / 6 + half, abs=1e-6))
    assert (ratio["n_human_labels"], ratio["n_judged"], ratio["ppi_null_reason"]) == (6, 24, None)
    # each side's own PPI mean, the two terms of that difference, and its n labelled and N unlabelled reviews
    assert ratio["ppi_mean_system"] == pytest.approx(2 / 3)
    assert (ratio["ppi_mean_system_ci_low"], ratio["ppi_mean_system_ci_high"]) == (
        pytest.approx(2 / 3 - half, abs=1e-6), pytest.approx(2 / 3 + half, abs=1e-6))
    assert (ratio["ppi_mean_human"], ratio["ppi_mean_human_ci_low"], ratio["ppi_mean_human_ci_high"]) == \
        pytest.approx((0.5, 0.5, 0.5))
    assert (ratio["n_labelled_system"], ratio["n_unlabelled_system"], ratio["n_labelled_human"],
            ratio["n_unlabelled_human"]) == (3, 9, 3, 9)
    # plan-labels' inputs over the 6 labelled: Y = 1/2 ×5 and 1 → mean 7/12, σ̂² = (5·(1/12)² + (5/12)²)/6 = 5/144;
    # Y − Ŷ = −1/2, 0, −1/2, 0, 0, 0 → mean −1/6, σ̂² = (2·(1/3)² + 4·(1/6)²)/6 = 1/18;
    # Ŷ over all 24: 1 ×12 and 1/2 ×12 → σ̂² = 1/16
    assert (ratio["ppi_var_human"], ratio["ppi_var_residual"], ratio["ppi_var_judge"]) == pytest.approx(
        (5 / 144, 1 / 18, 1 / 16))


def test_a_metric_without_human_labels_has_no_ppi(db):
    doa = _rows(db)["qc|sysx|doa"]
    assert (doa["n_human_labels"], doa["ppi_diff"], doa["ppi_null_reason"]) == (0, None, "no_human_labels")
    # DoA's human value needs each premise's grounding, which no label gives: every review is unlabelled
    assert (doa["ppi_mean_system"], doa["ppi_mean_human"]) == (None, None)
    assert (doa["n_labelled_system"], doa["n_unlabelled_system"], doa["n_labelled_human"],
            doa["n_unlabelled_human"]) == (0, 12, 0, 12)
    assert doa["naive_diff"] == pytest.approx(1 / 3)
