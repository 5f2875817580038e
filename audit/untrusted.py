"""What a bundle from someone else may hold, checked as data before anything is read or replayed: zip
member names (no absolute paths, `..`, backslashes, drive letters, links or duplicates), each
events.jsonl line against its event type's frozen dataclass (no unknown type, missing or extra field,
wrong type), and row.json's fields. Each problem names the member or the line."""

import dataclasses
import json
import re
import stat
import zipfile

from peerlake.warehouse.events import EVENT_TYPES, UPCASTERS, Event, field_types, fits

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FORMATS = (1, 2)  # 1: before the code record; 2: row.json has "code"
CODE_KEYS = ("peerlake_version", "dbt_project_sha256", "statistics_sha256")


def member_problems(infos: list[zipfile.ZipInfo]) -> list[str]:
    """Every zip member whose name or kind could reach outside a folder it were written to."""
    problems, seen = [], set()
    for info in infos:
        name = info.filename
        parts = name.split("/")
        if not name or name.startswith("/") or "\\" in name or ":" in name or "\0" in name:
            why = "an absolute path, a backslash or a drive letter"
        elif any(p in ("", ".", "..") for p in parts):
            why = "an empty, `.` or `..` path component"
        elif stat.S_ISLNK(info.external_attr >> 16):
            why = "a symbolic link"
        elif name in seen:
            why = "a second member of that name"
        else:
            seen.add(name)
            continue
        problems.append(f"{name!r}: refused zip member ({why}); a bundle holds plain files with relative names")
    return problems


def _line_problem(payload) -> str | None:
    if not isinstance(payload, dict) or set(payload) != {"event_type", "event"}:
        return 'not an {"event_type", "event"} object'
    cls = EVENT_TYPES.get(payload["event_type"]) if isinstance(payload["event_type"], str) else None
    if cls is None:
        return f"unknown event type {payload['event_type']!r}"
    record = payload["event"]
    if not isinstance(record, dict):
        return "its event is not an object"
    version = record.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= cls.schema_version:
        return f"{cls.event_type}: schema_version {version!r} is not one of 1…{cls.schema_version}"
    record = {k: v for k, v in record.items() if k != "schema_version"}
    for upcast in UPCASTERS.get((cls.event_type, version), []):
        record = upcast(record)
    hints = field_types(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    if extra := sorted(set(record) - names):
        return f"{cls.event_type}: field(s) {', '.join(extra)} not in the schema"
    if missing := sorted(names - set(record)):
        return f"{cls.event_type}: field(s) {', '.join(missing)} missing"
    for name in sorted(names):
        if not fits(record[name], hints[name], as_record=True):
            hint = hints[name]
            return f"{cls.event_type}.{name}: {record[name]!r} is not {getattr(hint, '__name__', hint)}"
    return None


def parse_events(data: bytes) -> tuple[list[Event], list[str]]:
    """The events of events.jsonl, each line checked against its schema first; problems name the line."""
    events, problems = [], []
    for n, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            payload = json.loads(raw)
            why = _line_problem(payload)
            if why is None:
                events.append(EVENT_TYPES[payload["event_type"]].from_record(payload["event"]))
        except (ValueError, TypeError) as exc:  # not JSON, or a value the dataclass itself refuses
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if why is not None:
            problems.append(f"events.jsonl line {n}: {why}")
    return events, problems


def row_problems(meta) -> list[str]:
    """row.json's fields that the recompute reads, each of the type it needs."""
    if not isinstance(meta, dict):
        return ["row.json: not a JSON object"]
    out = []
    if meta.get("format", 1) not in FORMATS:
        out.append(f"row.json: format {meta.get('format')!r} is not one this peerlake reads ({FORMATS}); "
                   "upgrade peerlake")
    if not isinstance(meta.get("mart"), str) or not IDENTIFIER.fullmatch(meta["mart"]):
        out.append(f"row.json: mart {meta.get('mart')!r} is not a model name")
    if not isinstance(meta.get("key"), str):
        out.append(f"row.json: key {meta.get('key')!r} is not a string")
    if not isinstance(meta.get("row"), dict):
        out.append("row.json: row is not an object")
    code = meta.get("code")
    if code is not None and (not isinstance(code, dict) or
                             not all(isinstance(code.get(k), str | type(None)) for k in CODE_KEYS)):
        out.append(f"row.json: code is not an object of {', '.join(CODE_KEYS)}")
    return out
