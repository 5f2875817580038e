"""A label mapping: how a human-labelled dataset's labels become a judge's labels, read from a TOML file
(`prompts/label_mappings/<dataset>.toml`; see one for the shape). Like a taxonomy, its name and SHA-256
(of the file's bytes) name it: every imported label row records them (`human_label_imported.mapping`,
`.mapping_sha256`), and the bytes are kept as a blob, so a card row can show exactly what mapped it.

Each dimension maps one field of the dataset (`source`) onto one field of a judge's unit (`target`):
`values` (dataset label → judge label), `unmapped` (labels with no judge label: null, not compared),
an optional `when` (the dimension applies only to items whose fields have those values) and an optional
`judge_values` (how the judge's own labels are read on it, when the two scales differ in width).
Dataset labels are matched lower-cased and trimmed; a label in neither list is unknown (`UnknownLabel`),
so a label the mapping never considered is set aside by name, never mapped by accident.
"""

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

JUDGES = ("depth", "novelty", "flaws", "constructiveness")
Label = str | int | bool


class UnknownLabel(ValueError):
    pass


def shipped_dir() -> Path:
    # prompts/ is a sibling package of ingest/ (same layer: no import), beside it in a checkout and a wheel
    return Path(__file__).resolve().parent.parent / "prompts" / "label_mappings"


def key(value) -> str:
    """A dataset label as the mapping's keys spell it: text, trimmed, lower case."""
    return str(value).strip().lower()


@dataclass(frozen=True)
class Dimension:
    name: str
    judge: str
    source: str
    target: str
    values: tuple[tuple[str, Label], ...]
    unmapped: frozenset[str]
    when: tuple[tuple[str, str], ...] = ()
    judge_values: tuple[tuple[str, Label], ...] = ()

    def map(self, labels: dict) -> Label | None:
        """This dimension's judge label for one item's dataset labels (None: not mapped / not applicable)."""
        if any(key(labels.get(field)) != want for field, want in self.when):
            return None
        raw = labels.get(self.source)
        if raw is None:
            return None
        k = key(raw)
        values = dict(self.values)
        if k in values:
            return values[k]
        if k in self.unmapped:
            return None
        raise UnknownLabel(f"{self.source} {raw!r} is not in label mapping dimension {self.name!r} "
                           f"(known: {', '.join(sorted([*values, *self.unmapped]))})")


@dataclass(frozen=True)
class LabelMapping:
    name: str
    dataset: str
    sha256: str
    path: str
    raw: bytes
    dimensions: tuple[Dimension, ...]

    def apply(self, labels: dict) -> dict[str, Label | None]:
        """{dimension: judge label or None} for one item's labels; UnknownLabel names an unknown one."""
        return {d.name: d.map(labels) for d in self.dimensions}


def _table(path: Path, name: str, doc, field: str) -> tuple[tuple[str, Label], ...]:
    table = doc.get(field, {})
    if not isinstance(table, dict) or not all(isinstance(v, str | int | bool) for v in table.values()):
        raise ValueError(f"label mapping {path}: dimension {name!r}: {field} must be a table of labels")
    return tuple((key(k), v) for k, v in table.items())


def _dimension(path: Path, name: str, doc) -> Dimension:
    if not isinstance(doc, dict):
        raise ValueError(f"label mapping {path}: dimension {name!r} must be a table")
    for field in ("judge", "source", "target"):
        if not isinstance(doc.get(field), str) or not doc[field].strip():
            raise ValueError(f"label mapping {path}: dimension {name!r} needs {field} = \"…\"")
    if doc["judge"] not in JUDGES:
        raise ValueError(f"label mapping {path}: dimension {name!r}: judge {doc['judge']!r} is not one of "
                         f"{', '.join(JUDGES)}")
    values = _table(path, name, doc, "values")
    unmapped = doc.get("unmapped", [])
    if not isinstance(unmapped, list) or not all(isinstance(v, str) for v in unmapped):
        raise ValueError(f"label mapping {path}: dimension {name!r}: unmapped must be a list of labels")
    both = {k for k, _ in values} & {key(v) for v in unmapped}
    if both:
        raise ValueError(f"label mapping {path}: dimension {name!r}: {', '.join(sorted(both))} both mapped "
                         "and unmapped")
    when = doc.get("when", {})
    if not isinstance(when, dict) or not all(isinstance(v, str) for v in when.values()):
        raise ValueError(f"label mapping {path}: dimension {name!r}: when must be a table of field = \"label\"")
    return Dimension(name=name, judge=doc["judge"], source=doc["source"], target=doc["target"], values=values,
                     unmapped=frozenset(key(v) for v in unmapped),
                     when=tuple((f, key(v)) for f, v in when.items()),
                     judge_values=_table(path, name, doc, "judge_values"))


def load(ref: str) -> LabelMapping:
    """Read and check a label mapping: a bare name is a shipped file, else a path. ValueError says what
    is wrong with the file."""
    path = shipped_dir() / f"{ref}.toml" if "/" not in ref and not ref.endswith(".toml") else Path(ref)
    try:
        raw = path.read_bytes()
        doc = tomllib.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise ValueError(f"label mapping {path} cannot be read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"label mapping {path} is not valid TOML ({exc})") from None
    dims = doc.get("dimensions")
    if not isinstance(dims, dict) or not dims:
        raise ValueError(f"label mapping {path}: needs [dimensions.<name>] tables")
    if not isinstance(doc.get("dataset"), str):
        raise ValueError(f"label mapping {path}: needs dataset = \"…\"")
    return LabelMapping(name=str(doc.get("name", path.stem)), dataset=doc["dataset"],
                        sha256=hashlib.sha256(raw).hexdigest(), path=str(path), raw=raw,
                        dimensions=tuple(_dimension(path, n, d) for n, d in dims.items()))
