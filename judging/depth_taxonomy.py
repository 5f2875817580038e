"""A depth taxonomy: the aspects the depth judge labels a review's units with and the grounding scale
0/1/2 of its premises, read from a TOML file (`prompts/taxonomies/prism-reference.toml` by default; see
that file for the shape). Its name and SHA-256 (of the file's bytes) are part of the depth judge's
identity and of every depth judgment's inputs_json; the prompts render its definitions, the schema's
aspect enum is its labels.

Two ship: prism-reference (the PRISM reference code's Soundness/Clarity/Contribution/Other and
0 vague / 1 partly specific / 2 exact pointer: what produced PRISM's published numbers, hence the
default) and prism-paper (the paper's Novelty/Methodology/Experiments/Clarity and 0 vague /
1 internal / 2 external)."""

import hashlib
import re
import tomllib
from dataclasses import dataclass

from peerlake.judging.taxonomy import _LABEL, MAX_LABELS, resolve

DEFAULT = "prism-reference"  # prompts/taxonomies/prism-reference.toml: what PRISM's code ran
LEVELS = (0, 1, 2)  # S = mean grounding / 2: the scale's top must be 2


@dataclass(frozen=True)
class DepthTaxonomy:
    name: str
    sha256: str
    path: str
    aspects: tuple[tuple[str, str], ...]  # (label, definition) in file order
    grounding: tuple[tuple[int, str], ...]  # (level, definition), levels 0, 1, 2

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.aspects)

    def normalize(self, value) -> str | None:
        """The aspect label a model meant ("Soundness" → soundness), or None when it is not one."""
        if not isinstance(value, str):
            return None
        label = re.sub(r"[\s\-]+", "_", value.strip().lower())
        return label if label in self.labels else None


def load(ref: str | None = None) -> DepthTaxonomy:
    """Read and check a depth taxonomy: a bare name is a shipped file, else a path. ValueError says
    what is wrong with the file."""
    path = resolve(ref or DEFAULT)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"depth taxonomy {path} cannot be read ({exc.strerror or exc}); give a shipped name "
                         f"(prism-reference, prism-paper) or a TOML file with [aspects] and [grounding]") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"depth taxonomy {path} is not valid TOML ({exc})") from None
    aspects = doc.get("aspects")
    if not isinstance(aspects, dict) or not 2 <= len(aspects) <= MAX_LABELS:
        raise ValueError(f"depth taxonomy {path}: [aspects] must be a table of 2..{MAX_LABELS} labels "
                         "(label = \"one-line definition\")")
    for label, definition in aspects.items():
        if not _LABEL.match(label):
            raise ValueError(f"depth taxonomy {path}: aspect {label!r} must be lower case letters, digits and "
                             "underscores, starting with a letter (≤ 40 characters)")
        if not isinstance(definition, str) or not definition.strip():
            raise ValueError(f"depth taxonomy {path}: aspect {label!r} needs a one-line definition")
    grounding = doc.get("grounding")
    if not isinstance(grounding, dict) or sorted(grounding) != [str(level) for level in LEVELS] \
            or not all(isinstance(d, str) and d.strip() for d in grounding.values()):
        raise ValueError(f"depth taxonomy {path}: [grounding] must define exactly the levels 0, 1 and 2, each "
                         "with a one-line definition (DoA's S divides the mean grounding by 2)")
    return DepthTaxonomy(
        name=str(doc.get("name", path.stem)), sha256=hashlib.sha256(raw).hexdigest(), path=str(path),
        aspects=tuple((label, " ".join(d.split())) for label, d in aspects.items()),
        grounding=tuple((level, " ".join(grounding[str(level)].split())) for level in LEVELS))
