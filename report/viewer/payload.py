"""Data files the page loads with <script>: `PL.put(name, data);` with the JSON made inert in HTML."""

import json
import math
import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

# What a data file may be named after: ULIDs, hex digests, small integers. An id read from an event
# (maybe a forged one) names a file only when it matches.
SAFE_NAME = re.compile(r"[0-9A-Za-z_-]{1,80}")
# Characters that could end a <script> or start a comment inside it, and the two line separators
# that older JavaScript parsers refuse inside a string: written as \u escapes, which JSON reads back.
_INERT = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_INERT_RE = re.compile("[<>&\u2028\u2029]")


def _plain(v):
    """A value JSON can hold: timestamps as ISO text, NaN as null (the marts hold both)."""
    if isinstance(v, datetime | date):
        return v.isoformat()
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple | set):
        return [_plain(x) for x in v]
    if v is None or isinstance(v, str | int | float | bool):
        return v
    return str(v)


def inert_json(obj) -> str:
    """JSON that is also safe inside an HTML <script> element."""
    text = json.dumps(_plain(obj), ensure_ascii=False, separators=(",", ":"))
    return _INERT_RE.sub(lambda m: _INERT[m.group()], text)


def script(name: str, obj) -> str:
    return f"PL.put({inert_json(name)},{inert_json(obj)});\n"


def check_name(name: str) -> str:
    if not SAFE_NAME.fullmatch(name):
        raise ValueError(f"{name!r} cannot name a data file")
    return name


def write(root: Path, kind: str, name: str, obj) -> Path:
    """data/<kind>/<name>.js, written whole or not at all (a reader never loads half a file)."""
    path = root / "data" / kind / f"{check_name(name)}.js"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(script(f"{kind}/{name}", obj), encoding="utf-8")
    tmp.replace(path)
    return path
