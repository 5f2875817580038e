"""A focus taxonomy: the targets and aspects a review's points are labelled with, read from a TOML file
(`prompts/taxonomies/focus.toml` by default; see that file for the shape). Its SHA-256 (of the file's
bytes, like a prompt template's) names it in every judgment made with it."""

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from peerlake import prompts

DEFAULT = "focus"  # prompts/taxonomies/focus.toml
DIMENSIONS = ("target", "aspect")
# Labels go into the prompt, the schema's enums and SQL string literals: keep them plain.
_LABEL = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_LABELS = 20  # per dimension: each costs ~20 prompt tokens on a 4k-token local context


def shipped_dir() -> Path:
    return Path(prompts.__file__).resolve().parent / "taxonomies"


@dataclass(frozen=True)
class Taxonomy:
    name: str
    sha256: str
    path: str
    targets: tuple[tuple[str, str], ...]  # (label, definition) in file order
    aspects: tuple[tuple[str, str], ...]

    def labels(self, dimension: str) -> tuple[str, ...]:
        return tuple(label for label, _ in (self.targets if dimension == "target" else self.aspects))

    def normalize(self, dimension: str, value) -> str | None:
        """The taxonomy's label a model meant ("Communication Clarity" → communication_clarity), or None
        when it is outside the taxonomy."""
        if not isinstance(value, str):
            return None
        label = re.sub(r"[\s\-]+", "_", value.strip().lower())
        return label if label in self.labels(dimension) else None


def resolve(ref: str | None) -> Path:
    """A taxonomy file: None or a bare name → prompts/taxonomies/<name>.toml; otherwise a path (relative
    paths from the working directory)."""
    ref = ref or DEFAULT
    if "/" not in ref and "\\" not in ref and not ref.endswith(".toml"):
        return shipped_dir() / f"{ref}.toml"
    return Path(ref).expanduser()


def load(ref: str | None = None) -> Taxonomy:
    """Read and check a taxonomy; ValueError says what is wrong with the file."""
    path = resolve(ref)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"taxonomy file {path} cannot be read ({exc.strerror or exc}); give a TOML file with "
                         "[targets] and [aspects] tables, or leave taxonomy unset for the default") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"taxonomy file {path} is not valid TOML ({exc})") from None
    tables = {}
    for key in ("targets", "aspects"):
        table = doc.get(key)
        if not isinstance(table, dict) or len(table) < 2:
            raise ValueError(f"taxonomy file {path}: [{key}] must be a table of at least 2 labels "
                             "(label = \"one-line definition\")")
        if len(table) > MAX_LABELS:
            raise ValueError(f"taxonomy file {path}: [{key}] has {len(table)} labels; at most {MAX_LABELS}")
        for label, definition in table.items():
            if not _LABEL.match(label):
                raise ValueError(f"taxonomy file {path}: label {label!r} in [{key}] must be lower case letters, "
                                 "digits and underscores, starting with a letter (≤ 40 characters)")
            if not isinstance(definition, str) or not definition.strip():
                raise ValueError(f"taxonomy file {path}: label {label!r} in [{key}] needs a one-line definition")
        tables[key] = tuple((label, " ".join(definition.split())) for label, definition in table.items())
    name = doc.get("name", path.stem)
    return Taxonomy(name=str(name), sha256=hashlib.sha256(raw).hexdigest(), path=str(path),
                    targets=tables["targets"], aspects=tables["aspects"])
