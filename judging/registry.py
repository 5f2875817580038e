"""The judges and experiments there are, found in judging/ rather than listed: a module that sets
`JUDGE = "<name>"` is a judge. With `EXPERIMENT = "<name>"` it is the judge of that robustness
experiment (its `BUILDER`, when it has one, names the module that makes the experiment's manuscripts);
without, it is a review-quality judge a study names in `judges = [...]`. Its `ORDER` places it in
those lists, so a study's judges and the experiments keep one order however the files are named.

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
            found.append(module)
    for attr in ("JUDGE", "EXPERIMENT"):  # a name is an asset key and a study key: one module each
        names = [getattr(m, attr) for m in found if hasattr(m, attr)]
        if len(names) != len(set(names)):
            raise ImportError(f"two judge modules declare the same {attr}: {sorted(names)}")
    return tuple(sorted(found, key=lambda m: (hasattr(m, "EXPERIMENT"), m.ORDER, m.__name__)))


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
