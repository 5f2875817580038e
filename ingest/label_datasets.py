"""The human-labelled datasets `peerlake ingest labels --format NAME PATH` reads, each an importer with
the same signature (log, path, mapping=None) → labelled_reviews.Imported; mappings in
prompts/label_mappings/<name>.toml."""

from collections.abc import Callable
from pathlib import Path

from peerlake.ingest.disapere import import_disapere
from peerlake.ingest.labelled_reviews import STATUSES, Imported
from peerlake.ingest.reviewcritique import import_reviewcritique
from peerlake.ingest.revutil import import_revutil
from peerlake.warehouse.log import EventLog

FORMATS: dict[str, Callable[..., Imported]] = {
    "disapere": import_disapere,  # sentences: review action, aspect, polarity → depth, novelty
    "revutil": import_revutil,  # comments rated 1–5 → constructiveness D1, D2, D3, D5
    "reviewcritique": import_reviewcritique,  # LLM review segments marked deficient → flaw validity
}
__all__ = ["FORMATS", "STATUSES", "import_labels"]


def import_labels(log: EventLog, fmt: str, path: Path) -> Imported:
    """Import one dataset; ValueError for an unknown format or a path that is not that dataset."""
    if fmt not in FORMATS:
        raise ValueError(f"--format {fmt!r}: use one of {', '.join(FORMATS)}")
    return FORMATS[fmt](log, Path(path))
