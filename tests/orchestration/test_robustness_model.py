"""A mini contradiction benchmark end to end on the real embedded model, through the CLI: a CC BY paper
(../shared/data/cc_by_pdfs) → its knowledge graph → one inserted contradiction at each of the two most
severe distances (the small models tend to quote the title for the main claim, which cannot be rewritten
in place: distance 1 is what gets built) → a reviewer system reviews the original and the modified
papers → the detection judge reads each review (the original's is the specificity audit) → the marts
and their gates, all on the smaller embedded model (tests/embedded.py). Replays are the loopback tests'
and the robustness demo's. It asserts the machinery only: the model detects little, and what it
answers decides how many items exist (a dropped one is recorded with the reason)."""

import json
import shutil

import pytest

from peerlake.studies import save_study
from peerlake.warehouse import EventLog, Lake
from tests.embedded import machinery_model, require_model
from tests.orchestration.conftest import run_cli
from tests.orchestration.test_pipeline import _calls, _sql

MODEL = machinery_model()  # the smaller embedded model: tests/embedded.py
PAPER = "naacl2018_N18-3011_LiteratureGraph.pdf"
STUDY = f"""\
name = "mini-benchmark"
description = "One CC BY paper, one contradiction, one reviewer, the detection judge once."
judges = []

[papers]
ids = ["litgraph"]

[judging]
provider = "local"
model = "{MODEL}"

[[reviewers]]
system = "agentreview"
provider = "local"
model = "{MODEL}"
options = {{ sample_one = true }}

[contradictions]
max_items = 2
max_nodes = 4
manuscript_chars = 3000

[contradictions.judge]
repeats = 1
"""


@pytest.mark.model
def test_a_mini_contradiction_benchmark_on_a_cc_by_paper(shared_data, tmp_path, capsys):
    require_model(MODEL)
    source = shared_data / "cc_by_pdfs" / PAPER
    if not source.exists():
        pytest.skip(f"{source} not found")
    folder = tmp_path / "papers"
    folder.mkdir()
    shutil.copy(source, folder / "litgraph.pdf")
    lake_root = tmp_path / "lake"
    env = {"PEERLAKE_HOME": str(lake_root)}
    assert run_cli(["ingest", "pdf", str(folder)], env).returncode == 0
    save_study(EventLog(Lake(lake_root)), "mini-benchmark", STUDY)

    first = run_cli(["run", "mini-benchmark"], env, timeout=2400)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-4000:]
    log = EventLog(Lake(lake_root))
    judgments = list(log.iter_events("judgment_recorded"))
    [graph] = [j for j in judgments if (j.judge, j.step) == ("contradiction", "graph")]
    assert graph.status == "ok" or graph.null_reason, graph
    variants = list(log.iter_events("paper_variant"))
    assert len(variants) <= 2 and all(v.built or v.reason for v in variants)
    built = [v for v in variants if v.built]
    reviews = {e.paper_id: e for e in log.iter_events("system_review")}
    assert "litgraph" in reviews and all(r.status == "ok" or r.null_reason for r in reviews.values())
    detections = [j for j in judgments if j.judge == "detection"]
    ok = {p for p, r in reviews.items() if r.status == "ok"}
    for v in built:
        item = json.loads(v.details_json)
        assert item["distance"] in (0, 1) and item["original_paragraph"] != item["modified_paragraph"]
        assert v.variant_id in reviews  # the reviewer read the modified paper like any other
        # one judgment per ok review of the variant (detection) and of the original (the audit)
        mine = [j for j in detections if j.subject_key.startswith(f"{v.variant_id}|")]
        assert len(mine) == (v.variant_id in ok) + ("litgraph" in ok), mine
        assert all(j.status == "ok" or j.null_reason for j in mine)
    assert len(detections) == sum((v.variant_id in ok) + ("litgraph" in ok) for v in built)
    measured = sum(1 for v in built if v.variant_id in ok)
    if measured:
        rows = _sql(lake_root, "select n_items, accuracy, wilson_lo, wilson_hi, null_reason "
                               "from contradiction_detection where study_id = 'mini-benchmark' "
                               "and item_set = 'all' and distance = 'all' and k = 1")
        assert rows and rows[0][0] == measured
        _, acc, lo, hi, why = rows[0]
        assert (acc is not None and 0 <= lo <= acc <= hi <= 1) or why, rows
    with capsys.disabled():
        print(f"\nmini benchmark: {len(variants)} items, {len(built)} built "
              f"({', '.join(v.reason for v in variants if not v.built) or 'none dropped'}); "
              f"{len(detections)} detection judgments")
    assert "[contradictions]" in first.stdout
    calls = _calls(lake_root)
    assert all(c.provider == "local" and c.status == "ok" for c in calls), [(c.purpose, c.status) for c in calls]
    with_purpose = {c.purpose for c in calls}
    assert "judge_contradiction_graph" in with_purpose and "system_step" in with_purpose
