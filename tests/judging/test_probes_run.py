"""`peerlake probe-judges`' runner on one paper: a study with the constructiveness judge over one human review,
answered at the network edge; originals and variants recorded once, the resolution naming the tolerances."""

import json

from peerlake.orchestration.judge_probes import ASSET, run_probes
from peerlake.studies import parse_study
from peerlake.warehouse.events import HumanReviewImported
from tests.judging.support import JUDGE_MODEL
from tests.judging.test_flaws import _ingest_paper

STUDY = f"""
name = "probed"
judges = ["constructiveness"]
[papers]
ids = ["P1"]
[judging]
sources = ["human"]
provider = "openai"
model = "{JUDGE_MODEL}"
[judging.probes]
run = ["length", "comment_order", "pool_order"]
seed = 0
[judging.probes.tolerance]
"length.mcs" = 0.02
"""
OK = {"actionability": 1, "specificity": 1, "justification": 1, "solution": 1, "tone": 1}


def test_run_probes_records_originals_and_variants_once(judge_log, judge_server, judge_gateway):
    _ingest_paper(judge_log)
    body = {"content": {"summary": {"value": "A gated adapter."},
                        "weaknesses": {"value": "- Only CIFAR-10.\n- One seed.\n- Old baselines."}}}
    judge_log.append(HumanReviewImported(paper_id="P1", review_id="r1", source="openreview", venue=None, rating=None,
                                         rating_scale=None, confidence=None,
                                         body_sha256=judge_log.blobs.put_text(json.dumps(body))))
    judge_server.answer("judge_constructiveness_comments", "A gated adapter", reply={"comments": [
        {"section": "weaknesses", "text": "More data.", "anchor_quote": "Only CIFAR-10.", **OK}]})
    study = parse_study("probed", STUDY)
    rows = run_probes(judge_log, study, judge_gateway, study.judging.probes)
    # pool_order does not apply to constructiveness: two probes, one variant each, nothing failed
    assert rows == [{"judge": "constructiveness", "probe": p, "repeat": 0, "variants": 1, "failed": 0, "null": 0}
                    for p in ("length", "comment_order")]
    judged = {e.subject_key: e for e in judge_log.iter_events("judgment_recorded")}
    assert set(judged) == {"human:r1", "probe:length:human:r1", "probe:comment_order:human:r1"}
    assert len({e.judge_config for e in judged.values()}) == 1  # the same judge configuration throughout
    assert judge_server.requests == 3  # the original and two variants
    (resolved,) = [e for e in judge_log.iter_events("study_resolved") if e.asset == ASSET]
    (row,) = json.loads(resolved.judges_json)
    assert (row["probes"], row["tolerances"]) == (["length", "comment_order"], {"length.mcs": 0.02})
    assert (row["judge_config"], row["model"]) == (judged["human:r1"].judge_config, JUDGE_MODEL)
    assert json.loads(resolved.paper_ids_json) == ["P1"]
    # a second run replays every call and records nothing new
    run_probes(judge_log, study, judge_gateway, study.judging.probes)
    assert judge_server.requests == 3 and judge_log.count("judgment_recorded") == 3
