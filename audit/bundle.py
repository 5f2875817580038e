"""A self-contained evidence bundle for one mart row (a zip): the events behind it (JSONL, the
write-ahead line format), every blob they name (requests, responses, template texts, study files,
manuscript packages, PDFs and their images), the dbt files of its lineage, the row itself, and
MANIFEST.json with the SHA-256 of every other file in the zip.

Layout:
  row.json                 mart, key, the row, the models and sources of its lineage
  events.jsonl             one {"event_type", "event"} line per event
  blobs/<sha256>           content-addressed, as in the lake
  templates/<name>-<hash12>.txt   the prompt templates' source text (also under blobs/)
  dbt/<path>               dbt_project.yml, profiles.yml, macros/, the chain's models and their yml
  python/metrics/…         the statistics code the chain's dbt Python models import
  MANIFEST.json            {"format": 2, "files": {path: sha256}}

dbt/ and python/ are evidence to read: `peerlake audit check` recomputes with the installed code and
compares it with row.json's "code" (format 2; format 1 bundles have none) and with these files.
"""

import hashlib
import json
import re
import zipfile
from datetime import date, datetime
from pathlib import Path

from peerlake.audit.code import code_version, python_closure
from peerlake.audit.selection import blob_names
from peerlake.audit.trace import Audit
from peerlake.warehouse.blobs import BlobStore
from peerlake.warehouse.events import to_json_line

FORMAT = 2  # 2: row.json records the code version it was made with
MANIFEST = "MANIFEST.json"


def _jsonable(v):
    if isinstance(v, datetime | date):
        return v.isoformat()
    if isinstance(v, float) and v != v:
        return None  # NaN: JSON has none; recompute compares NaN and null alike
    return v if isinstance(v, str | int | float | bool | type(None)) else str(v)


def _manuscript_images(blobs: BlobStore, events) -> dict[str, str]:
    out = {}
    for e in events:
        if e.event_type == "paper_ingested" and blobs.exists(e.package_sha256):
            try:
                images = json.loads(blobs.get_text(e.package_sha256)).get("images") or []
            except ValueError:
                continue  # not a JSON package (a test lake's placeholder): nothing inside to follow
            for img in images:
                if isinstance(img, dict) and img.get("sha256"):
                    out[img["sha256"]] = f"image of package {e.package_sha256[:12]} ({e.paper_id})"
    return out


def bundle_files(audit: Audit, blobs: BlobStore, project_dir: Path) -> dict[str, bytes]:
    """Every file of the bundle but the manifest, by its path in the zip."""
    events = audit.selection.events
    files: dict[str, bytes] = {"events.jsonl": b"".join(to_json_line(e) for e in events)}
    named = {**blob_names(events), **_manuscript_images(blobs, events)}
    present = {sha: role for sha, role in named.items() if blobs.exists(sha)}
    for sha in present:
        files[f"blobs/{sha}"] = blobs.get(sha)  # get() re-checks the hash: a bad blob is not bundled
    for e in audit.selection.of_type("prompt_template_stored"):
        if e.source_sha256 in present:
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", e.prompt_template or "template").lstrip(".")  # a plain member name
            files[f"templates/{name}-{e.prompt_hash[:12]}.txt"] = blobs.get(e.source_sha256)
    dbt_paths = set(audit.lineage.files())
    dbt_paths |= {str(p.relative_to(project_dir)) for p in (project_dir / "macros").rglob("*") if p.is_file()}
    for rel in sorted(dbt_paths):
        files[f"dbt/{rel}"] = (project_dir / rel).read_bytes()
    python_models = [(project_dir / m.path).read_text() for m in audit.lineage.models if m.path.endswith(".py")]
    for rel, data in python_closure(python_models).items():
        files[f"python/{rel}"] = data
    files["row.json"] = json.dumps({
        "format": FORMAT, "mart": audit.mart, "key": audit.key, "key_columns": list(audit.spec.columns),
        "primary_key": audit.spec.primary_key, "row": {k: _jsonable(v) for k, v in audit.row.items()},
        "models": [m.name for m in audit.lineage.models], "sources": audit.lineage.sources,
        "code": code_version(project_dir),
        "study": audit.selection.study, "papers": sorted(audit.selection.papers or []),
        "unscoped_event_types": audit.selection.unscoped, "llm_calls_used": audit.call_ids,
        "blobs": dict(sorted(present.items())),
        # named by an event but absent from the lake (verify reports them); the bundle cannot hold them
        "missing_blobs": dict(sorted((s, r) for s, r in named.items() if s not in present)),
    }, indent=1, ensure_ascii=False).encode()
    return files


def fingerprint(manifest_bytes: bytes) -> str:
    """The bundle's identity: the SHA-256 of its MANIFEST.json (cite it beside the number)."""
    return hashlib.sha256(manifest_bytes).hexdigest()


def write_bundle(audit: Audit, blobs: BlobStore, project_dir: Path, out: Path) -> tuple[Path, str]:
    """Write the zip; return its path and fingerprint."""
    files = bundle_files(audit, blobs, project_dir)
    manifest = json.dumps({"format": FORMAT, "files": {p: hashlib.sha256(b).hexdigest()
                                                       for p, b in sorted(files.items())}}, indent=1).encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path, data in sorted(files.items()):
            z.writestr(path, data)
        z.writestr(MANIFEST, manifest)
    tmp.replace(out)
    return out, fingerprint(manifest)
