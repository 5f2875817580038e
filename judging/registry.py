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

Adding a judge or an experiment is adding its module here, or in a plug-in folder outside the package
($PEERLAKE_PLUGINS: the module with its templates/ and schemas/); nothing else names it. A plug-in quality
judge declares its metrics as SQL over its units (ReviewMetric.sql, UNITS), so no dbt file names it either:
`plugin_declaration()` reaches dbt through the environment of its run (macros/quality_judges.sql)."""

import importlib
import pkgutil
from types import ModuleType

from peerlake import judging
from peerlake.warehouse import settings
from peerlake.warehouse.registry import PLUGIN_PACKAGE, DuplicateName, PluginImportError, Registry, import_folder

_HINT = ("Name one of them in a study's judges = [...], or add one: a module of judging/ that sets JUDGE "
         "(docs/judges/write-a-judge.md).")


def _judge_modules() -> list[ModuleType]:
    """The modules (not subpackages) of judging/, imported by name: one that cannot be imported stops the
    scan with its name and what to do (warehouse.registry.PluginImportError), never skipped."""
    out = []
    for info in sorted(pkgutil.iter_modules(judging.__path__), key=lambda i: i.name):
        if info.ispkg or info.name in ("base", "registry"):
            continue
        name = f"peerlake.judging.{info.name}"
        try:
            out.append(importlib.import_module(name))
        except (DuplicateName, ImportError):
            raise
        except Exception as exc:
            raise PluginImportError(f"{name} cannot be imported ({type(exc).__name__}: {exc}): fix the module, "
                                    "or remove it") from exc
    for folder in settings.plugin_dirs():
        out += import_folder(folder)
    return out


def _scan() -> None:
    """Import every module of judging/ and register those that declare a JUDGE (judge modules import base,
    so this runs on first lookup, not when the package is imported)."""
    for module in _judge_modules():
        if not isinstance(getattr(module, "JUDGE", None), str):
            continue
        if not isinstance(getattr(module, "ORDER", None), int):
            raise ImportError(f"judge module {module.__name__} needs ORDER = <int> beside JUDGE")
        if not hasattr(module, "SECTIONS"):  # what it reads is a choice each judge states
            raise ImportError(f"judge module {module.__name__} needs SECTIONS (a set of review sections, "
                              "or None for every section) beside JUDGE")
        if hasattr(module, "EXPERIMENT"):
            EXPERIMENTS.add(module.EXPERIMENT, module, order=module.ORDER)
        else:
            _check_metrics(module)
            QUALITY.add(module.JUDGE, module, order=module.ORDER)
        # a name is an asset key and a study key: one module each, experiment judges included
        ALL.add(module.JUDGE, module, order=(1_000 if hasattr(module, "EXPERIMENT") else 0) + module.ORDER)


# The review-quality judges a study names in `judges = [...]`, the experiments by name, and every judge
# module (quality and experiment judges alike) by its JUDGE name: one scan fills all three.
QUALITY: Registry[ModuleType] = Registry("judge", hint=_HINT, load=_scan)
EXPERIMENTS: Registry[ModuleType] = Registry("experiment", load=_scan, hint=(
    "Name one of them in a study's [experiments] table, or add one: a judge module of judging/ that sets "
    "EXPERIMENT beside JUDGE (docs/judges/write-a-judge.md)."))
ALL: Registry[ModuleType] = Registry("judge", hint=_HINT, load=_scan)


def _check_metrics(module: ModuleType) -> None:
    from peerlake.judging.base import ReviewMetric

    metrics = getattr(module, "METRICS", None)
    if not metrics or not all(isinstance(m, ReviewMetric) for m in metrics):
        raise ImportError(f"quality judge module {module.__name__} needs METRICS = (ReviewMetric(...), ...): the "
                          "review-level numbers its int_quality_<judge> model yields (docs/judges/write-a-judge.md)")
    card = getattr(module, "CARD_SCORE", None)
    if card is not None and card not in {m.name for m in metrics}:
        raise ImportError(f"{module.__name__}.CARD_SCORE {card!r} is not one of its METRICS")
    units = getattr(module, "UNITS", None)
    if units is None and _is_plugin(module):
        raise ImportError(f"plug-in judge {module.__name__} needs UNITS = {{field: DuckDB type}} and every metric's "
                          "sql: no dbt model of its own computes its metrics (docs/judges/write-a-judge.md)")
    if units is not None:
        if not isinstance(units, dict) or not units or not all(
                isinstance(k, str) and k.isidentifier() and isinstance(v, str) for k, v in units.items()):
            raise ImportError(f"{module.__name__}.UNITS must map each field of a unit to its DuckDB type, "
                              "as {'question': 'VARCHAR'}")
        if getattr(module, "POOLED", False):
            raise ImportError(f"{module.__name__}: a pooled judge needs its own dbt models; UNITS is for judges "
                              "of one review at a time")
        if missing := [m.name for m in metrics if not m.sql]:
            raise ImportError(f"{module.__name__} sets UNITS, so each metric needs its sql; {', '.join(missing)} "
                              "has none")


def _is_plugin(module: ModuleType) -> bool:
    return module.__name__.startswith(f"{PLUGIN_PACKAGE}.")


def judges() -> dict[str, ModuleType]:
    """Review-quality judge name -> its module (the judges a study names in `judges = [...]`), in ORDER."""
    return {name: QUALITY[name] for name in QUALITY}


def experiments() -> dict[str, ModuleType]:
    """Experiment name -> the module of the judge that reads its reviews."""
    return {name: EXPERIMENTS[name] for name in EXPERIMENTS}


def by_judge() -> dict[str, ModuleType]:
    """Every judge module, quality and experiment judges alike, by its JUDGE name."""
    return {name: ALL[name] for name in ALL}


def judge_module(name: str) -> ModuleType:
    """The judge module named `name`; an unknown name fails with the known ones and the closest."""
    return ALL[name]


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
        if getattr(module, "UNITS", None):
            entry["units"] = dict(module.UNITS)
        entry["metrics"] = [m.declaration() for m in module.METRICS]
        out.append(entry)
    return out


def plugin_declaration() -> list[dict]:
    """quality_declaration()'s entries of the plug-in judges ($PEERLAKE_PLUGINS): what dbt_project.yml
    cannot list, handed to dbt as $PEERLAKE_PLUGIN_JUDGES (orchestration.dbt_env)."""
    plugins = {name for name, module in judges().items() if _is_plugin(module)}
    return [entry for entry in quality_declaration() if entry["judge"] in plugins]


def review_metrics() -> list:
    """Every quality judge's ReviewMetric, in judge ORDER then declaration order."""
    return [m for module in judges().values() for m in module.METRICS]


def options_for(judge: str, spec) -> dict:
    """The keyword options the study's [judging] table gives the judge (its `options` hook; none by default)."""
    hook = getattr(judge_module(judge), "options", None)
    return hook(spec) if hook is not None else {}


def resources_for(judge: str, log) -> dict:
    """JudgeContext fields the judge opens once per unit of work (its `resources` hook; none by default)."""
    hook = getattr(judge_module(judge), "resources", None)
    return hook(log) if hook is not None else {}


def coverage_for(judge: str, reviews) -> dict:
    """What the study's resolution records the judge covered (its `coverage` hook; by default every review)."""
    hook = getattr(judge_module(judge), "coverage", None)
    return hook(reviews) if hook is not None else {"review_keys": [r.review_key for r in reviews]}
