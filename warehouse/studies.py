"""Study definitions on disk: `<lake>/studies/<name>.toml`, written atomically, read as text.

The text is the study's identity (its SHA-256 is recorded with every resolution, and the text goes
to the blob store), so this module only stores and lists files; what a study means is
the studies package's business."""

import re
from pathlib import Path

from peerlake.warehouse.fsutil import atomic_write
from peerlake.warehouse.lake import Lake

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")


def check_name(name: str) -> str:
    """`name` when it can name a study, and so a file (its study file, its report page); else ValueError.
    fullmatch: `$` would let a trailing newline through."""
    if not NAME.fullmatch(name):
        raise ValueError(f"study name {name!r}: use 1-63 lowercase letters, digits, '-' or '_' "
                         "(no '/', '.' or spaces)")
    return name


class StudyFiles:
    def __init__(self, lake: Lake):
        self.dir = lake.root / "studies"

    def path(self, name: str) -> Path:
        return self.dir / f"{check_name(name)}.toml"

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def read(self, name: str) -> str:
        path = self.path(name)
        if not path.is_file():
            known = ", ".join(self.names()) or "none yet"
            raise FileNotFoundError(f"no study {name!r} in this lake (known: {known}); "
                                    f"create one with `peerlake study new {name} ...`")
        return path.read_text(encoding="utf-8")

    def write(self, name: str, text: str) -> Path:
        path = self.path(name)
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8"))
        return path

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.dir.glob("*.toml")) if self.dir.is_dir() else []
