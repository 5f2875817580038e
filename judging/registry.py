"""The judges and experiments there are, found in judging/ rather than listed: a module that sets
`JUDGE = "<name>"` is a judge. With `EXPERIMENT = "<name>"` it is the judge of that robustness
experiment (its `BUILDER`, when it has one, names the module that makes the experiment's manuscripts);
without, it is a review-quality judge a study names in `judges = [...]`. Its `ORDER` places it in
those lists, so a study's judges and the experiments keep one order however the files are named.

A review-quality judge also declares what the quality marts read of it: `METRICS` (judging.base.
ReviewMetric: the review-level numbers of its per-review model int_quality_<judge>, which are headline
ones), `CARD_SCORE` (the score a judge card retests, or none) and `POOLED` (judged in a paper's pool of
reviews, as the flaws judge is). `quality_declaration()` is that list as dbt reads it: the
`quality_judges` var in dbt_project.yml, which a test holds equal to it. Optional hooks the `judgments`
asset calls instead of naming a judge: `options(spec)` (keyword options from the study's [judging]
table), `resources(log)` (JudgeContext fields opened once per unit, as novelty's retrieval client) and
`coverage(reviews)` (what the study's resolution records the judge covered).

Adding a judge or an experiment is adding its module here; nothing else names it."""

import importlib
import pkgutil
from functools import cache
from types import ModuleType

import judging


@cache
def _modules() -> tuple[ModuleType, ...]:
    """Every judge module of judging/, in ORDER (imported on first use: judge modules import base)."""
    found = []
    for info in pkgutil.iter_modules(judging.__path__):
        if info.ispkg or info.name in ("base", "registry"):
            continue
        module = importlib.import_module(f"judging.{info.name}")
        if isinstance(getattr(module, "JUDGE", None), str):
            if not isinstance(getattr(module, "ORDER", None), int):
                raise ImportError(f"judge module {module.__name__} needs ORDER = <int> beside JUDGE")
            if not hasattr(module, "SECTIONS"):  # what it reads is a choice each judge states
                raise ImportError(f"judge module {module.__name__} needs SECTIONS (a set of review sections, "
                                  "or None for every section) beside JUDGE")
            if not hasattr(module, "EXPERIMENT"):
                _check_metrics(module)
            found.append(module)
    for attr in ("JUDGE", "EXPERIMENT"):  # a name is an asset key and a study key: one module each
        names = [getattr(m, attr) for m in found if hasattr(m, attr)]
        if len(names) != len(set(names)):
            raise ImportError(f"two judge modules declare the same {attr}: {sorted(names)}")
    return tuple(sorted(found, key=lambda m: (hasattr(m, "EXPERIMENT"), m.ORDER, m.__name__)))


def _check_metrics(module: ModuleType) -> None:
    from judging.base import ReviewMetric

    metrics = getattr(module, "METRICS", None)
    if not metrics or not all(isinstance(m, ReviewMetric) for m in metrics):
        raise ImportError(f"quality judge module {module.__name__} needs METRICS = (ReviewMetric(...), ...): the "
                          "review-level numbers its int_quality_<judge> model yields (docs/judges/write-a-judge.md)")
    card = getattr(module, "CARD_SCORE", None)
    if card is not None and card not in {m.name for m in metrics}:
        raise ImportError(f"{module.__name__}.CARD_SCORE {card!r} is not one of its METRICS")


@cache
def judges() -> dict[str, ModuleType]:
    """Review-quality judge name -> its module (the judges a study names in `judges = [...]`)."""
    return {m.JUDGE: m for m in _modules() if not hasattr(m, "EXPERIMENT")}


@cache
def experiments() -> dict[str, ModuleType]:
    """Experiment name -> the module of the judge that reads its reviews."""
    return {m.EXPERIMENT: m for m in _modules() if hasattr(m, "EXPERIMENT")}


@cache
def by_judge() -> dict[str, ModuleType]:
    """Every judge module, quality and experiment judges alike, by its JUDGE name."""
    return {m.JUDGE: m for m in _modules()}


def judge_names() -> tuple[str, ...]:
    return tuple(judges())


def experiment_names() -> tuple[str, ...]:
    return tuple(experiments())


def variant_experiments() -> tuple[str, ...]:
    """The experiments that make new manuscripts (their judge module names a BUILDER)."""
    return tuple(e for e, m in experiments().items() if getattr(m, "BUILDER", None))


def builder_module(experiment: str) -> str | None:
    """The dotted name of the module that builds the experiment's manuscripts, or None."""
    return getattr(experiments()[experiment], "BUILDER", None)


def quality_declaration() -> list[dict]:
    """The review-quality judges as the dbt models read them (dbt_project.yml's `quality_judges` var),
    in ORDER: judge, the step of its per-review judgment (none when it judges pools), its card score
    and its metrics."""
    out = []
    for name, module in judges().items():
        entry = {"judge": name}
        if getattr(module, "POOLED", False):
            entry["pooled"] = True
        else:
            entry["review_step"] = module.REVIEW_STEP
        if getattr(module, "CARD_SCORE", None):
            entry["card_score"] = module.CARD_SCORE
        entry["metrics"] = [m.declaration() for m in module.METRICS]
        out.append(entry)
    return out


def review_metrics() -> list:
    """Every quality judge's ReviewMetric, in judge ORDER then declaration order."""
    return [m for module in judges().values() for m in module.METRICS]


def options_for(judge: str, spec) -> dict:
    """The keyword options the study's [judging] table gives the judge (its `options` hook; none by default)."""
    hook = getattr(by_judge()[judge], "options", None)
    return hook(spec) if hook is not None else {}


def resources_for(judge: str, log) -> dict:
    """JudgeContext fields the judge opens once per unit of work (its `resources` hook; none by default)."""
    hook = getattr(by_judge()[judge], "resources", None)
    return hook(log) if hook is not None else {}


def coverage_for(judge: str, reviews) -> dict:
    """What the study's resolution records the judge covered (its `coverage` hook; by default every review)."""
    hook = getattr(by_judge()[judge], "coverage", None)
    return hook(reviews) if hook is not None else {"review_keys": [r.review_key for r in reviews]}
