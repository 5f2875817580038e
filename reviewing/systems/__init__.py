"""Reviewer systems: named, versioned pipelines of steps that each end in one normalized review.

Each is a ReviewerSystem subclass with a `name`, defined in a module of this package and found there
(`peerlake systems` lists them: MLR, LLM-Review, AI Scientist, AgentReview). A study names them in
`[[reviewers]] system = "..."`; base.py has the engine, normalized.py the review every system ends in.
The parameters and their sources are in each module's docstring.
"""

import importlib
import pkgutil
from functools import cache

from reviewing.systems.base import ReviewerSystem, SystemConfig, SystemOptionError

_LOADED: dict[str, ReviewerSystem] = {}
_REGISTERED: dict[str, tuple[str, str]] = {}  # systems of your own (register), name -> (module, class)


@cache
def _builtin() -> dict[str, tuple[str, str]]:
    """System name -> (module, class) of every ReviewerSystem subclass with its own `name` in a module of
    this package, in their `listed` order. Found on first use (each module is imported once then)."""
    found: list[type[ReviewerSystem]] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found += [c for c in vars(module).values() if isinstance(c, type) and issubclass(c, ReviewerSystem)
                  and c.__module__ == module.__name__ and "name" in vars(c)]
    names = [c.name for c in found]
    if len(names) != len(set(names)):  # a study names a system by it: one class each
        raise ImportError(f"two reviewer systems share a name: {sorted(names)}")
    return {c.name: (c.__module__, c.__name__) for c in sorted(found, key=lambda c: (c.listed, c.name))}


def system_names() -> tuple[str, ...]:
    """The reviewer systems of this package (not ones registered at run time), in listing order."""
    return tuple(_builtin())


def __getattr__(name: str):
    if name == "SYSTEMS":  # computed on first use, so importing the package imports no system module
        return system_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_system(name: str) -> ReviewerSystem:
    where = _REGISTERED.get(name) or _builtin().get(name)
    if where is None:
        raise SystemOptionError(f"unknown reviewer system {name!r}; known: {', '.join(system_names())}")
    if name not in _LOADED:
        module, cls = where
        _LOADED[name] = getattr(importlib.import_module(module), cls)()
    return _LOADED[name]


def register(system: ReviewerSystem) -> None:
    """Make a system of your own nameable in a study (call it before the study loads, e.g. in a
    module your Dagster code location imports). Tests register toy systems this way."""
    _LOADED[system.name] = system
    _REGISTERED.setdefault(system.name, (type(system).__module__, type(system).__name__))


__all__ = ["SYSTEMS", "ReviewerSystem", "SystemConfig", "SystemOptionError", "get_system", "register",
           "system_names"]
