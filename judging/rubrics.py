"""A venue's rating rubric: its scale (the scores a reviewer may give, each with its meaning) and the
venues it applies to. Rubrics are TOML files: the built-in ones in prompts/rubrics/ (demo, ICLR
2022-2025 and 2026, NeurIPS, ICML), or any file a study names.

File format: `name`, `title`, `venues` (regexes searched case-insensitively in a paper's venue), and
`[[level]]` tables with `score` (a number) and `meaning` (a line of the venue's form)."""

import hashlib
import itertools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

RUBRIC_DIR = Path(__file__).resolve().parents[1] / "prompts" / "rubrics"


class RubricError(ValueError):
    pass


@dataclass(frozen=True)
class Rubric:
    name: str
    title: str
    venues: tuple[str, ...]
    levels: tuple[tuple[float, str], ...]  # (score, meaning), ascending
    sha256: str  # of the file's text: a changed rubric is a changed prompt

    @property
    def scale_min(self) -> float:
        return self.levels[0][0]

    @property
    def scale_max(self) -> float:
        return self.levels[-1][0]

    @property
    def scores(self) -> tuple[float, ...]:
        return tuple(s for s, _ in self.levels)

    def matches(self, venue: str | None) -> bool:
        return bool(venue) and any(re.search(p, venue, re.IGNORECASE) for p in self.venues)


def _number(v) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def load_rubric(path: str | Path) -> Rubric:
    """A rubric file, checked: levels with numeric scores, strictly ascending, each with a meaning."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        doc = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RubricError(f"rubric {path}: cannot read it ({exc})") from None
    levels = []
    for lv in doc.get("level") or []:
        score = _number(lv.get("score")) if isinstance(lv, dict) else None
        meaning = lv.get("meaning") if isinstance(lv, dict) else None
        if score is None or not isinstance(meaning, str) or not meaning.strip():
            raise RubricError(f"rubric {path}: every [[level]] needs a numeric score and a meaning")
        levels.append((score, meaning.strip()))
    if len(levels) < 2 or any(a[0] >= b[0] for a, b in itertools.pairwise(levels)):
        raise RubricError(f"rubric {path}: needs at least two [[level]]s with strictly ascending scores")
    venues = doc.get("venues", [])
    if not isinstance(venues, list) or not all(isinstance(v, str) for v in venues):
        raise RubricError(f"rubric {path}: venues must be a list of regexes")
    for v in venues:
        try:
            re.compile(v)
        except re.error as exc:
            raise RubricError(f"rubric {path}: venue pattern {v!r} is not a regex ({exc})") from None
    name = doc.get("name") or path.stem
    return Rubric(name=str(name), title=str(doc.get("title") or name), venues=tuple(venues), levels=tuple(levels),
                  sha256=hashlib.sha256(text.encode()).hexdigest())


def resolve(ref: str) -> Rubric:
    """A built-in rubric's name (prompts/rubrics/<name>.toml) or a path to a rubric file."""
    if ref.endswith(".toml") or "/" in ref:
        return load_rubric(ref)
    path = RUBRIC_DIR / f"{ref}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in RUBRIC_DIR.glob("*.toml")))
        raise RubricError(f"no built-in rubric {ref!r} (known: {known}); or give a path to a .toml file")
    return load_rubric(path)


def builtin() -> list[Rubric]:
    return [load_rubric(p) for p in sorted(RUBRIC_DIR.glob("*.toml"))]
