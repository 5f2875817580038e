"""From a report figure to its calls: the figure's audit key (MART:KEY) resolved by audit.trace, the
resolution `peerlake audit` prints, and the keys the written report pages link to."""

import hashlib
import re
from pathlib import Path
from urllib.parse import unquote

from peerlake.audit.keys import RowNotFound, parse_figure_id
from peerlake.audit.lineage import ManifestMissing
from peerlake.audit.trace import audit_row
from peerlake.warehouse import EventLog

# report/audit_links.py writes each audit key's link as href='…#key/<quoted figure id>'
LINK = re.compile(r"href='[^']*#key/([^']+)'")


def key_name(figure_id: str) -> str:
    """The data file of a figure id (ids hold '|', spaces, quotes: not a file name)."""
    return hashlib.sha256(figure_id.encode()).hexdigest()[:24]


def linked_keys(reports: list[Path]) -> list[str]:
    """The figure ids the report pages link to, in page order, each once."""
    seen: dict[str, None] = {}
    for page in reports:
        for m in LINK.finditer(page.read_text(encoding="utf-8")):
            seen.setdefault(unquote(m.group(1)))
    return list(seen)


def resolve(figure_id: str, db: Path, log: EventLog, manifest: dict, known_calls: set[str]) -> dict:
    """{figure_id, mart, key, row, models, calls, missing, error}: the calls whose answers the row used."""
    out = {"figure_id": figure_id, "row": None, "models": [], "calls": [], "missing": [], "error": None}
    try:
        mart, key = parse_figure_id(figure_id)
        out.update(mart=mart, key=key)
        result = audit_row(db, mart, key, log, manifest, limit=0)
    except (ValueError, KeyError, RowNotFound, ManifestMissing, OSError) as exc:
        out["error"] = str(exc.args[0] if exc.args else exc)
        return out
    out["row"] = {k: v for k, v in result.row.items() if v is not None}
    out["models"] = [s.model.name for s in result.steps]
    out["calls"] = [i for i in result.call_ids if i in known_calls]
    out["missing"] = [i for i in result.call_ids if i not in known_calls]  # e.g. outside --study
    return out
