"""What a study's run needs before its first call: every provider/model it resolves to (its reviewers and
reviewer systems, each judge of its panel, its experiments' judges and builder, its revision roles),
checked by llm_calls.preflight.

A blocking finding is forgiven for a model none of whose calls is new: the log answers them all, and
they replay without a key, a model file or a server (the estimate of costs.plan says which calls are
new). Experiments are not in that estimate, so a model an experiment uses is never forgiven. The
estimate is made only when something blocks: a run whose models are all ready pays nothing for it.
"""

from collections.abc import Callable

from peerlake.costs.plan import study_estimate
from peerlake.llm_calls.preflight import Finding, ModelUse, check_uses
from peerlake.studies import Study

REPLAYS = " (not needed now: every call of it is in the log and replays)"


def study_uses(study: Study) -> tuple[list[ModelUse], set[tuple[str, str]]]:
    """The study's model uses, and the (provider, model) pairs its experiments use (not in the estimate)."""
    uses = [ModelUse(c.provider, c.model, c.base_url, f"reviewer {c.template}") for c in study.reviewer_configs()]
    uses += [ModelUse(c.provider, c.model, c.base_url, f"reviewer system {c.system}") for c in study.system_configs()]
    if study.judges:
        for m in study.judging.members():
            s = m.settings
            uses.append(ModelUse(s["provider"], s["model"], s["base_url"],
                                 "judges" if m.label is None else f"judge panel {m.label}"))
    if (revision := study.revision()) is not None:
        uses += [ModelUse(r.provider, r.model, r.base_url, f"revision {r.letter}") for r in revision.models]
    experiment_uses = []
    if study.experiments:
        from peerlake.studies.experiments import builder, experiments

        for exp in experiments(study):
            cfg = exp.judge_config(study)
            experiment_uses.append(ModelUse(cfg.provider, cfg.model, cfg.base_url, f"[{exp.name}] judge"))
            # a builder with prompts calls a model (contradictions, stress: orchestration.assets.experiments)
            if exp.builder_spec is not None and getattr(builder(exp.name), "TEMPLATES", ()):
                cfg = exp.builder_config(study)
                experiment_uses.append(ModelUse(cfg.provider, cfg.model, cfg.base_url, f"[{exp.name}] builder"))
    return uses + experiment_uses, {(u.provider, u.model) for u in experiment_uses}


def study_findings(log, study: Study, gateway, *, estimate=None, probe: bool = True, today=None,
                   judged_reviews: Callable[[], list] | None = None) -> list[Finding]:
    """The pre-flight findings of a run of the study now, those of models with no new call made warnings.
    `estimate`: the run's costs.plan estimate when the caller has it (the dry run); else made on demand,
    with `judged_reviews()` the reviews in the log its judges would read (orchestration's judged_reviews)."""
    uses, in_experiments = study_uses(study)
    findings = check_uses(uses, probe=probe, today=today)
    if not any(f.blocking for f in findings):
        return findings
    if estimate is None:
        judged = judged_reviews() if judged_reviews is not None and study.judges else []
        estimate = study_estimate(log, study, gateway, judged_reviews=judged)
    new = {(r["provider"], r["model"]) for r in estimate.rows if r["new"] and r["calls"] > 0}
    out = []
    for f in findings:
        # a provider's missing key is said once, on its first model: any new call of the provider needs it
        needed = (any(p == f.provider for p, _ in new | in_experiments) if f.kind == "not_ready"
                  else (f.provider, f.model) in new | in_experiments)
        out.append(f if needed or not f.blocking else Finding(f.kind, f.provider, f.model, f.message + REPLAYS, False))
    return out
