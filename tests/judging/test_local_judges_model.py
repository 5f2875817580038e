"""The depth and constructiveness judges on the real embedded model: machinery only (a judgment is
recorded, ok or null with a reason, units verbatim), never what the model happens to answer.
Prints the wall time per call so a demo subset can be sized."""


import pytest

from peerlake.judging import constructiveness, depth, depth_taxonomy
from peerlake.judging.base import JudgeConfig, JudgeContext
from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse import settings
from tests.embedded import require_model
from tests.judging.support import record, units_of

REVIEW = (
    ("summary", "The paper proposes GateNet, a gated adapter for vision transformers, and reports gains on "
                "image classification."),
    ("weaknesses", "The evaluation is weak. Table 3 reports accuracy on CIFAR-10 only, with a single seed, so "
                   "the 0.4 point gain may be noise. The baselines are older methods. Section 4 does not say "
                   "how the gate is initialised; please add this and run at least three seeds."),
)


@pytest.mark.model
def test_real_local_model_runs_depth_and_constructiveness(judge_log, make_review, monkeypatch, capsys):
    require_model()
    review = make_review(*REVIEW, key="human:model-test")
    cfg = JudgeConfig(provider="local", model=settings.LOCAL_MODEL_NAME)
    gateway = Gateway(judge_log)
    for module in (depth, constructiveness):
        ctx = JudgeContext(log=judge_log, gateway=gateway, cfg=cfg,
                           judge_config=cfg.identity(module.JUDGE, module.TEMPLATES), study="model-test",
                           progress=False)
        (j,) = module.judge(ctx, [review])
        assert j.failed_call is None, j.failed_call
        _, (ev,) = record(ctx, module, [j])
        assert ev.status == "ok" or (ev.status == "null" and ev.null_reason), ev
        for u in units_of(ev):
            if module is depth:
                assert review.text[u["start"]:u["start"] + len(u["text"])] == u["text"]
                assert u["role"] in depth.ROLES and u["aspect"] in depth_taxonomy.load().labels
                assert u["grounding"] in (None, 0, 1, 2) and (u["role"] == "premise" or u["grounding"] is None)
            else:
                assert all(u[r] in (0, 1, 2) for r in constructiveness.RATINGS)
        with capsys.disabled():
            print(f"\n{module.JUDGE}: {ev.status} {ev.null_reason or ''} {len(units_of(ev))} units, "
                  f"dropped {ev.dropped_json}")
    with capsys.disabled():
        for call in sorted(judge_log.iter_events("llm_call"), key=lambda e: e.event_id):
            print(f"  {call.purpose:<34} {call.status:<5} {call.latency_ms / 1000:6.1f} s  "
                  f"in {call.input_tokens} / out {call.output_tokens} tokens")
