"""A mart's lineage from dbt's own manifest: the models a row went through, down to the event
sources, and the files that define them. Read from `manifest.json` directly (never through
orchestration): the manifest is parsed with `dbt parse` when missing or older than the project."""

import json
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from peerlake.warehouse import settings

# Files a model's SQL does not name but that decide what it computes: the profile, the project (vars,
# materializations), every macro, and the event sources' definition.
PROJECT_FILES = ("dbt_project.yml", "profiles.yml")
SOURCES_YML = "models/staging/_events__sources.yml"


@dataclass(frozen=True)
class Model:
    name: str
    path: str  # relative to the project: models/marts/x.sql
    patch_path: str | None  # its yml, relative to the project
    depth: int  # 0 = the mart itself
    parents: tuple[str, ...]  # model names
    sources: tuple[str, ...]  # event types read directly (staging models only)
    unique_columns: tuple[str, ...]  # columns with a `unique` data test (the primary key)


@dataclass
class Lineage:
    mart: str
    models: list[Model] = field(default_factory=list)  # breadth-first from the mart

    @property
    def sources(self) -> list[str]:
        """Every event type the chain reads."""
        return sorted({s for m in self.models for s in m.sources})

    def files(self) -> list[str]:
        """Project-relative paths of every file that defines the chain: models, their yml, macros
        (all of them: a macro call is not always in the manifest's depends_on), project and profile."""
        out = set(PROJECT_FILES) | {SOURCES_YML}
        for m in self.models:
            out.add(m.path)
            if m.patch_path:
                out.add(m.patch_path)
        return sorted(out)


class ManifestMissing(RuntimeError):
    pass


def _stale(manifest: Path, project_dir: Path) -> bool:
    if not manifest.is_file():
        return True
    built = manifest.stat().st_mtime
    for sub in ("models", "macros"):
        if any(p.stat().st_mtime > built for p in (project_dir / sub).rglob("*") if p.is_file()):
            return True
    return any((project_dir / f).stat().st_mtime > built for f in PROJECT_FILES)


def load_manifest(project_dir: Path, target_dir: Path, env: dict | None = None) -> tuple[dict, str | None]:
    """dbt's manifest for the project, and a note when it may be out of date. `dbt parse` (about 7 s,
    partial parse after that) runs when the manifest in `target_dir` is missing or older than a model,
    macro or project file; when that parse fails, an older manifest is still used, with a note."""
    manifest = target_dir / "manifest.json"
    note = None
    if _stale(manifest, project_dir):
        dbt = Path(sys.executable).with_name("dbt")
        proc = subprocess.run([str(dbt), "parse", "--project-dir", str(project_dir), "--profiles-dir",
                               str(project_dir), "--target-path", str(target_dir)],
                              env=settings.child_env() if env is None else env, capture_output=True, text=True,
                              timeout=300)
        if proc.returncode != 0:
            why = (proc.stdout[-2000:] + proc.stderr[-1000:]).strip()
            if not manifest.is_file():
                raise ManifestMissing(f"dbt parse failed:\n{why}")
            note = f"dbt parse failed, so the lineage comes from the older manifest {manifest}:\n{why}"
    return json.loads(manifest.read_text()), note


def _unique_columns(manifest: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node in manifest["nodes"].values():
        meta = node.get("test_metadata") or {}
        if node["resource_type"] != "test" or not node.get("attached_node"):
            continue
        if meta.get("name") == "unique":
            out.setdefault(node["attached_node"], []).append(node.get("column_name"))
        elif meta.get("name") == "column_checks":  # dbt_project/macros/tests/column_checks.sql
            out.setdefault(node["attached_node"], []).extend((meta.get("kwargs") or {}).get("unique") or [])
    return out


def lineage(manifest: dict, mart: str) -> Lineage:
    """The mart and every model upstream of it, nearest first."""
    uid = f"model.{manifest['metadata'].get('project_name', 'peerlake')}.{mart}"
    if uid not in manifest["nodes"]:
        raise KeyError(f"no dbt model named {mart!r}")
    unique = _unique_columns(manifest)
    out, seen, queue = Lineage(mart), {uid}, deque([(uid, 0)])
    while queue:
        node_id, depth = queue.popleft()
        node = manifest["nodes"][node_id]
        parents = manifest["parent_map"].get(node_id, [])
        models = [p for p in parents if p.startswith("model.")]
        patch = node.get("patch_path")
        out.models.append(Model(
            name=node["name"], path=node["original_file_path"],
            patch_path=patch.split("://", 1)[1] if patch else None, depth=depth,
            parents=tuple(manifest["nodes"][p]["name"] for p in models),
            sources=tuple(manifest["sources"][p]["name"] for p in parents if p.startswith("source.")),
            unique_columns=tuple(c for c in unique.get(node_id, []) if c)))
        for p in models:
            if p not in seen:
                seen.add(p)
                queue.append((p, depth + 1))
    return out
