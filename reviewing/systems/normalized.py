"""The normalized review every reviewer system ends in: what the score marts and the PRISM judges
read, so every system is measured the same way. The raw sections keep what the system wrote."""

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# Declared score scales: name -> (lowest, highest). The score marts take scores on a 1-10 scale; a
# system that gives no score declares none (score null, never 0).
SCORE_SCALES: dict[str, tuple[float, float]] = {
    "neurips_1_10": (1.0, 10.0),  # NeurIPS overall: 1 very strong reject ... 10 award quality
    "agentreview_1_10": (1.0, 10.0),  # AgentReview's rubric, anchors 10/8/6/5/3/1
}


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
