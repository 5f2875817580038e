"""The seeds' judges on the seeds' OpenAI reasoning models (o3 detection and withdrawal judges, the
o3-mini focus labeller, and the PRISM judges on o3), through the real gateway, against a loopback server
that answers as OpenAI does for those models (tests/doubles/fake_model_rules.py): a temperature or a
max_tokens is a 400, and a budget without room to reason comes back empty. Every judge runs without a
refused request, every answer arrives whole, and each event records what the rules dropped.

The server answers each step with a small instance of the step's own output schema, so the judges'
parsers run on well-formed answers; the science of the answers is the judges' own tests' business."""

import json

import pytest

from peerlake.ingest.withdrawals import import_arxiv_comments
from peerlake.judging import constructiveness, depth, detection, flaws, focus, withdrawal_match
from peerlake.warehouse.events import PaperVariantRecorded
from tests.judging.support import ScriptedJudgeServer, schema_instance
from tests.judging.test_flaws import _ingest_paper

WEAKNESS = "The evaluation uses too few seeds."
PARAGRAPH = "Our method improves accuracy by 4.1 points over the strongest baseline."


def instance(schema: dict):
    return schema_instance(schema, WEAKNESS)


class SchemaServer(ScriptedJudgeServer):
    def _rule(self, body: dict):
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        return instance(schema) if schema else WEAKNESS


@pytest.fixture
def judge_server():
    with SchemaServer() as srv:
        yield srv


def review(make_review, key, paper_id, **kw):
    return make_review(("summary", "A method paper."), ("strengths", "Clear writing."), ("weaknesses", WEAKNESS),
                       ("questions", "Why five datasets?"), key=key, paper_id=paper_id, **kw)


def setup_detection(log, make_review):
    details = {"item_id": "base-1:d0", "node_id": "n1", "node_type": "claim", "node_level": "main", "distance": 0,
               "original_paragraph": PARAGRAPH, "modified_paragraph": PARAGRAPH.replace("improves", "lowers"),
               "record_id": "r7", "page": 2, "seed": 1}
    vid = "base-1~contradiction-aaaaaaaaaa"
    log.append(PaperVariantRecorded(variant_key="a" * 60, variant_id=vid, kind="contradiction", base_paper_id="base-1",
                                    base_package_sha256="b" * 64, experiment_config="e" * 16, built=True, reason=None,
                                    pdf_sha256="p" * 64, package_sha256="k" * 64, details_json=json.dumps(details)))
    return [review(make_review, "peerlake:v", vid, source="peerlake", system="cfg", sample_index=0)], detection.Spec()


def setup_withdrawal(log, make_review, tmp_path):
    path = tmp_path / "w.jsonl"
    path.write_text(json.dumps({"paper_id": "P1", "comment": "Lemma 3 is wrong.", "arxiv_id": "2401.1"}) + "\n")
    import_arxiv_comments(log, path)
    return ([review(make_review, "peerlake:w", "P1", source="peerlake", system="cfg", sample_index=0)],
            withdrawal_match.Spec())


CASES = {  # judge module, the seed's model, how the judge is called
    "detection": (detection, "o3"),
    "withdrawal_match": (withdrawal_match, "o3"),
    "focus": (focus, "o3-mini"),
    "depth": (depth, "o3"),
    "flaws": (flaws, "o3"),
    "constructiveness": (constructiveness, "o3"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_judge_runs_on_its_reasoning_model_without_a_refused_request(
        name, make_judge_ctx, judge_server, judge_log, make_review, tmp_path):
    module, model = CASES[name]
    ctx = make_judge_ctx(module, model=model)  # temperature 0, the judge's own answer caps: as configured
    if name == "detection":
        reviews, spec = setup_detection(judge_log, make_review)
        out = module.judge(ctx, reviews, spec)
    elif name == "withdrawal_match":
        reviews, spec = setup_withdrawal(judge_log, make_review, tmp_path)
        out = module.judge(ctx, reviews, spec)
    elif name == "focus":
        out = module.judge(ctx, [review(make_review, "peerlake:f", "paper-1", source="peerlake", system="cfg",
                                        sample_index=0)], focus.Spec.from_table({}))
    else:
        # the paper's human reviews and one system's review: a flaw pool (a paper no system reviewed has none),
        # validated against the paper's text
        _ingest_paper(judge_log, "paper-1")
        pool = [review(make_review, f"human:h{i}", "paper-1") for i in range(2)]
        pool.append(review(make_review, "peerlake:s", "paper-1", source="peerlake", system="cfg", sample_index=0))
        out = module.judge(ctx, pool)

    assert out and all(j.failed_call is None for j in out)
    assert judge_server.refused == [] and judge_server.bodies
    for body in judge_server.bodies:
        assert "temperature" not in body and "max_tokens" not in body
        assert body["max_completion_tokens"] > 25_000  # the answer cap plus the reasoning reserve
    calls = list(judge_log.iter_events("llm_call"))
    assert calls and {e.status for e in calls} == {"ok"} and {e.finish_reason for e in calls} == {"stop"}
    assert all(json.loads(e.param_changes_json)["dropped"] == {"temperature": 0.0} for e in calls)
