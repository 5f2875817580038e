"""Reviewer systems: named, versioned pipelines of steps that each end in one normalized review.

    mlr            Multi-Layered Review: appendix agent, optional literature agent, three-pass review agent
    mlr-combined   MLR with the review agent's three passes in one prompt (the paper's ablation)
    llm-review     the "LLM scientific feedback" pipeline: one outline, no score
    ai-scientist   the AI Scientist reviewer: ensemble, reflection, area-chair meta-review
    agentreview    AgentReview's first phase: three persona reviewers

A study names them in `[[reviewers]] system = "..."`; base.py has the engine, normalized.py the
review every system ends in. The parameters and their sources are in each module's docstring.
"""

import importlib

from reviewing.systems.base import ReviewerSystem, SystemConfig, SystemOptionError

# system name -> (module, class): imported on first use, so a study naming one system loads only it
_REGISTRY = {
    "mlr": ("reviewing.systems.mlr", "MultiLayeredReview"),
    "mlr-combined": ("reviewing.systems.mlr", "MultiLayeredReviewCombined"),
    "llm-review": ("reviewing.systems.llm_review", "LlmReview"),
    "ai-scientist": ("reviewing.systems.ai_scientist", "AiScientistReviewer"),
    "agentreview": ("reviewing.systems.agentreview", "AgentReview"),
}
SYSTEMS = tuple(_REGISTRY)
_LOADED: dict[str, ReviewerSystem] = {}


def get_system(name: str) -> ReviewerSystem:
    if name not in _REGISTRY:
        raise SystemOptionError(f"unknown reviewer system {name!r}; known: {', '.join(SYSTEMS)}")
    if name not in _LOADED:
        module, cls = _REGISTRY[name]
        _LOADED[name] = getattr(importlib.import_module(module), cls)()
    return _LOADED[name]


def register(system: ReviewerSystem) -> None:
    """Make a system of your own nameable in a study (call it before the study loads, e.g. in a
    module your Dagster code location imports). Tests register toy systems this way."""
    _LOADED[system.name] = system
    _REGISTRY.setdefault(system.name, (type(system).__module__, type(system).__name__))


__all__ = ["SYSTEMS", "ReviewerSystem", "SystemConfig", "SystemOptionError", "get_system", "register"]
