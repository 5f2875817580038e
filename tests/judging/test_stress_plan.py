"""The stress suite's dry run after a run: the builder ran its paraphrase (answers scripted at the network
edge, as tests/judging/test_stress_build.py scripts them), so the dry run finds every rewrite and validation
in the log and counts them as replays, none for the paraphrase refused before its validation, and the mention
judge only on the reviews of the soundness variants that were built."""

from peerlake.costs.plan import study_estimate
from peerlake.judging import stress
from peerlake.judging.base import JudgeContext
from peerlake.studies import parse_study
from peerlake.studies.experiments import experiments
from tests.judging.support import JUDGE_MODEL
from tests.judging.test_stress_build import PARAPHRASE, VALIDATE, _script, papers  # noqa: F401 (fixture)

STUDY = f"""name = "s"
judges = []
[papers]
ids = ["demo-001", "demo-002", "demo-003"]
[[reviewers]]
template = "reviewer_scoring"
samples = 2
provider = "openai"
model = "{JUDGE_MODEL}"
[stress]
edits = ["remove_main_table", "remove_ablation", "paraphrase"]
paraphrase_max_sections = 2
[stress.builder]
provider = "openai"
model = "{JUDGE_MODEL}"
[stress.judge]
provider = "openai"
model = "{JUDGE_MODEL}"
"""


def _calls(est, template: str) -> tuple[float, float]:
    rows = [r for r in est.rows if r["prompt_template"] == template]
    return sum(r["calls"] for r in rows if r["new"]), sum(r["calls"] for r in rows if not r["new"])


def test_after_the_build_the_paraphrase_replays_and_only_built_soundness_variants_are_judged(
        judge_log, judge_server, judge_gateway, papers):  # noqa: F811
    study = parse_study("s", STUDY)
    (exp,) = experiments(study)
    before = study_estimate(judge_log, study, judge_gateway)
    assert _calls(before, PARAPHRASE) == (6, 0) and _calls(before, VALIDATE) == (6, 0)  # 3 papers x 2 sections
    assert _calls(before, "stress_mention_judge") == (3 * 2 * 2, 0)  # 2 soundness edits each, 2 samples

    _script(judge_server, judge_log, papers)
    cfg = exp.builder_config(study)
    ctx = JudgeContext(log=judge_log, gateway=judge_gateway, cfg=cfg, study="s",
                       judge_config=cfg.identity(stress.JUDGE, stress.TEMPLATES))
    report = stress.build(ctx, list(papers.values()), exp.builder_spec)
    judge_log.seal()
    made = judge_server.requests
    after = study_estimate(judge_log, study, judge_gateway)
    assert judge_server.requests == made  # the dry run called nothing
    # demo-003's Setup rewrite dropped a number: refused before its validation, so 4 validations were made
    assert _calls(after, PARAPHRASE) == (0, 6) and _calls(after, VALIDATE) == (0, 4)
    # built soundness variants: remove_main_table on each paper; remove_ablation on none (no such section)
    built = [e for e in report.variants if e.built and '"soundness"' in e.details_json]
    assert len(built) == 3
    assert _calls(after, "stress_mention_judge") == (3 * 2, 0)  # their reviews, to be written: 2 samples each
