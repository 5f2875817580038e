"""Reviewer systems: named, versioned pipelines of steps that each end in one normalized review.

Each is a ReviewerSystem subclass with a `name`, defined in a module of this package and registered there
with @reviewer_system (`peerlake systems` lists them: MLR, LLM-Review, AI Scientist, AgentReview). A study
names them in `[[reviewers]] system = "..."`; base.py has the engine, normalized.py the review every system
ends in. The parameters and their sources are in each module's docstring.
"""

import math
from functools import cache

from peerlake.reviewing.systems.base import ReviewerSystem, SystemConfig, SystemOptionError
from peerlake.warehouse.registry import Registry, import_modules


def _import_systems() -> None:
    import_modules(__name__, __path__)  # each module's @reviewer_system classes register as it is imported


# name -> a system's class (this package's) or instance (register()). The package's modules are imported
# on the first lookup or listing, so importing the package imports no system module.
REGISTRY: Registry[type[ReviewerSystem] | ReviewerSystem] = Registry(
    "reviewer system", error=SystemOptionError, load=_import_systems,
    hint='Name one of them in [[reviewers]] system = "...", or add one: a ReviewerSystem subclass decorated '
         "@reviewer_system in a module of reviewing/systems/ (docs/reference/plugins.md).")


def reviewer_system(cls: type[ReviewerSystem]) -> type[ReviewerSystem]:
    """Class decorator: make a system of this package nameable by its `name`, listed at its `listed`."""
    return REGISTRY.add(cls.name, cls, order=cls.listed)


def system_names() -> tuple[str, ...]:
    """The reviewer systems of this package (not ones registered at run time), in listing order."""
    return tuple(n for n in REGISTRY if _class(REGISTRY[n]).__module__.startswith(f"{__name__}."))


def __getattr__(name: str):
    if name == "SYSTEMS":  # computed on first use, so importing the package imports no system module
        return system_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_system(name: str) -> ReviewerSystem:
    system = REGISTRY[name]
    return _instance(system) if isinstance(system, type) else system


def register(system: ReviewerSystem) -> None:
    """Make a system of your own nameable in a study (call it before the study loads, e.g. in a
    module your Dagster code location imports); it lists after this package's. Tests register toy
    systems this way, once per test: the same class registering again replaces its instance."""
    REGISTRY.add(system.name, system, order=math.inf)


def _class(system: type[ReviewerSystem] | ReviewerSystem) -> type[ReviewerSystem]:
    return system if isinstance(system, type) else type(system)


@cache
def _instance(cls: type[ReviewerSystem]) -> ReviewerSystem:
    return cls()


__all__ = ["REGISTRY", "SYSTEMS", "ReviewerSystem", "SystemConfig", "SystemOptionError", "get_system", "register",
           "reviewer_system", "system_names"]
