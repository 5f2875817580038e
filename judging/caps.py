"""What a judge may keep: caps on the items a judge extracts, with defaults that depend on the model.
Read by the judges and checked in study files (studies sits above judging, so both reach it here).

PRISM's prompts say "NO LIMIT" / "extract ALL": a hosted judge keeps everything a review says (no cap),
so its numbers stand beside PRISM's tables. The embedded 1.5B model needs caps: its 4,096-token context
and ~15 tokens/s on 2 cores bound how long an answer can be, so on the `local` provider each cap keeps
the value it had when every judge ran there. A cap never selects: the prompts ask for the items in the
review's order, so a cap cuts the tail, and each judgment counts what a cap cut in `dropped`
(over_max_*), which the quality marts show.

A study sets a cap in its [judging.caps] table (0 = no cap); `max_claims` in [judging] is the
novelty cap's older name.
"""

from collections.abc import Mapping

# The embedded model's caps: the values every judge had before they were settings.
LOCAL_CAPS: dict[str, int] = {
    "depth_units": 12,  # argumentative units per review
    "flaws": 6,  # distinct flaws per pool
    "flaw_raisers": 6,  # raising reviewers (quotes) kept per flaw
    "constructiveness_comments": 6,  # actionable comments per review
    "novelty_claims": 5,  # novelty claims verified per review
}
CAP_NAMES = tuple(LOCAL_CAPS)
LOCAL_PROVIDER = "local"


def default_caps(provider: str) -> dict[str, int | None]:
    """The caps a judge on this provider starts from: the embedded model's values, none for a hosted one."""
    if provider == LOCAL_PROVIDER:
        return dict(LOCAL_CAPS)
    return dict.fromkeys(CAP_NAMES)


def check_caps(table: Mapping, where: str = "judging.caps") -> dict[str, int | None]:
    """A study's [judging.caps] table checked: known names, whole numbers >= 0 (0 = no cap -> None).
    Raises ValueError naming the key."""
    if unknown := sorted(set(table) - set(CAP_NAMES)):
        raise ValueError(f"{where}: unknown cap(s) {', '.join(unknown)}; known: {', '.join(CAP_NAMES)}")
    out: dict[str, int | None] = {}
    for name, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{where}.{name} = {value!r}: a whole number >= 0 (0 = no cap)")
        out[name] = value or None
    return out


def resolve_caps(provider: str, overrides: Mapping[str, int | None] | None = None) -> dict[str, int | None]:
    """The caps in force: the provider's defaults, then the study's own (None = no cap)."""
    caps = default_caps(provider)
    caps.update(overrides or {})
    return caps


def cut(items: list, cap: int | None) -> tuple[list, int]:
    """The first `cap` items (all when cap is None) and how many the cap cut."""
    if cap is None or len(items) <= cap:
        return items, 0
    return items[:cap], len(items) - cap
