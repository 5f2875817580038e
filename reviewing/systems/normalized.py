"""The normalized review every reviewer system ends in: what the score marts and the PRISM judges
read, so every system is measured the same way. The raw sections keep what the system wrote."""

import importlib.util
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml


def _declared_scales() -> dict[str, tuple[float, float]]:
    """dbt_project.yml's score_scales, the one table of them (int_system_reviews reads it too). Found
    without importing dbt_project, which sits above the reviewers: its folder ships with the package."""
    spec = importlib.util.find_spec("peerlake.dbt_project")
    folder = Path(next(iter(spec.submodule_search_locations)))
    scales = yaml.safe_load((folder / "dbt_project.yml").read_text(encoding="utf-8"))["vars"]["score_scales"]
    return {name: (float(s["min"]), float(s["max"])) for name, s in scales.items()}


# Declared score scales: name -> (lowest, highest). The score marts take scores on a 1-10 scale; a
# system that gives no score declares none (score null, never 0).
SCORE_SCALES: dict[str, tuple[float, float]] = _declared_scales()


@dataclass(frozen=True)
class NormalizedReview:
    summary: str | None
    strengths: tuple[str, ...] = ()
    weaknesses: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    recommendation: str | None = None  # the system's own words: "Accept", "Reject", "weak accept" ...
    score: float | None = None  # on score_scale; None when the system gives none
    score_scale: str | None = None
    confidence: float | None = None  # 1-5 where the system gives one
    sub_scores: dict[str, float] = field(default_factory=dict)  # originality, soundness ... (as the system scales them)
    sections: dict[str, str] = field(default_factory=dict)  # the raw sections, as the system wrote them
    extra: dict[str, Any] = field(default_factory=dict)  # system-specific: to-do list, limitations, persona ...

    def __post_init__(self):
        if self.score is not None and self.score_scale not in SCORE_SCALES:
            raise ValueError(f"score {self.score} on an undeclared scale {self.score_scale!r}")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "NormalizedReview":
        d = json.loads(text)
        for key in ("strengths", "weaknesses", "questions"):
            d[key] = tuple(d.get(key) or ())
        return cls(**d)


def as_list(value: Any) -> tuple[str, ...]:
    """A model's list answer as strings: a list of strings (or of {text}-like objects), or one string
    split on bullet lines."""
    if value is None:
        return ()
    if isinstance(value, str):
        lines = [ln.strip().lstrip("-*•").strip() for ln in value.splitlines()]
        return tuple(ln for ln in lines if ln)
    if isinstance(value, list | tuple):
        out = []
        for item in value:
            if isinstance(item, str) and item.strip():
                out.append(item.strip())
            elif isinstance(item, dict):
                text = " ".join(str(v) for v in item.values() if isinstance(v, str | int | float))
                if text.strip():
                    out.append(text.strip())
        return tuple(out)
    return ()
