"""The one rule for a paper id, and the one way to turn a name into a path under a folder.

A paper id names files (`peerlake audit --bytes DIR` writes `DIR/<paper id>.pdf`), so an id is a
plain file name on every system: 1–200 characters from letters, digits and `.`, `_`, `-`, `~`, not
starting with `.` or `~` (so never `.`, `..`, a hidden file or a home folder) and never holding a
slash, a backslash, a colon, a space or a control character. Every real id fits: OpenReview forum
ids (`rJY0-Kcll`, `-Aw0rrrPUF`), ASAP ids (`ICLR_2017_11`), arXiv ids (`2101.00001v2`), file stems
(`acl2020_main447_S2ORC`), the demo's `demo-001` and variant ids (`demo-001~hidden_text-0123456789`).
"""

import re
from pathlib import Path

MAX_PAPER_ID_CHARS = 200
_PAPER_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._~-]*")
RULE = (f"a paper id is 1–{MAX_PAPER_ID_CHARS} letters, digits, '.', '_', '-' or '~', not starting with "
        "'.' or '~' (it names files)")


class PaperIdError(ValueError):
    """A value that is not a valid paper id, or a name whose path would leave its folder."""


def _why(value: str) -> str:
    if not value:
        return "it is empty"
    if len(value) > MAX_PAPER_ID_CHARS:
        return f"it has {len(value)} characters"
    for ch in value:
        if ch in "/\\":
            return f"it contains {ch!r} (a path separator)"
        if not ch.isprintable():
            return f"it contains the unprintable character {ch!r}"
    if value[0] in ".~":
        return f"it starts with {value[0]!r}"
    bad = next((ch for ch in value if not _PAPER_ID.fullmatch("a" + ch)), None)
    return f"it contains {bad!r}" if bad else "it does not fit the rule"


def check_paper_id(value: object, where: str = "paper id") -> str:
    """`value` if it is a valid paper id; else PaperIdError naming `where`, the value and the cause."""
    if not isinstance(value, str):
        raise PaperIdError(f"{where} must be a string, got {type(value).__name__} {str(value)[:60]!r}")
    if len(value) <= MAX_PAPER_ID_CHARS and _PAPER_ID.fullmatch(value):
        return value
    shown = repr(value if len(value) <= 80 else value[:80] + "…")
    raise PaperIdError(f"{where} {shown} is not valid: {_why(value)}; {RULE}")


def suggest_paper_id(name: str) -> str:
    """A valid id close to `name` (runs of other characters become '_'), for an error's hint only: a
    file is never renamed silently, since two names could then give one id."""
    out = re.sub(r"[^A-Za-z0-9._~-]+", "_", name).lstrip(".~")[:MAX_PAPER_ID_CHARS]
    return out or "paper-1"


def path_under(folder: Path, name: str) -> Path:
    """`folder / name`, refused (PaperIdError) unless the resolved path stays inside the resolved
    folder: a name such as `../x`, an absolute path, or a symlink pointing out is never written."""
    out, root = Path(folder) / name, Path(folder).resolve()
    if out.resolve() == root or not out.resolve().is_relative_to(root):
        raise PaperIdError(f"{name!r} would be written outside {folder}; refused")
    return out
