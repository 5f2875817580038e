"""What a build must rebuild: the dbt models downstream of what changed since the published build.

A build is a function of three inputs: the committed events (per event type), the code of every model
(its SQL or Python, config and macros, and for a Python model the packages it imports) and the gates
(each Great Expectations suite). The published file's build records a fingerprint of all three
(warehouse.publish, `published_build.json`); the next build compares and selects

- the models downstream of each event type whose committed segments grew (dbt's selection by source,
  `source:events.<type>+`),
- each model whose code changed, and what is downstream of it (dbt's `state:modified+`, computed from
  the manifest's checksums, configs and macros),
- each mart whose gate changed (so the gate runs again on it),

and nothing else: the candidate starts as a copy of the published file, so every relation not rebuilt
is the published one, already audited. When nothing changed there is no build at all.

Run records: `calls_replayed` and `run_estimated` say that a run replayed calls or what it expected to
spend; every run writes them, even one that made no call. They feed the cost tallies only, so after
`peerlake run` they alone do not trigger a build (a rerun that made no call builds nothing); the next
build that runs for any reason includes them, and `peerlake build` always does. A `study_resolved` that
repeats the newest definition of its study (same text, papers, reviewers and judges) changes nothing the
marts scope by, so it counts as a change only when a study's definition did change.
"""

import ast
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

# Bumped when the fingerprint's shape or meaning changes: a fingerprint of another version rebuilds all.
VERSION = 1
RUN_RECORDS = ("calls_replayed", "run_estimated")
STUDY_TYPE = "study_resolved"
# The study fields the marts scope by (not the event's id or time: a repeat of the definition is no change)
STUDY_FIELDS = ("study_sha256", "paper_ids_json", "reviewers_json", "external_systems_json", "paper_source",
                "judges_json")

AUTO, EXPLICIT, FORCE = "auto", "explicit", "force"


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


# ---- events -------------------------------------------------------------------------------------------
def event_fingerprint(log) -> dict[str, str]:
    """Per event type, a hash of its committed segments (keys and rows); for study_resolved, of the newest
    definition per (study, asset)."""
    out = {t: _sha(json.dumps(segs)) for t, segs in log.committed_segments().items()}
    if STUDY_TYPE in out:
        newest: dict[str, dict] = {}
        for ev in log.iter_events(STUDY_TYPE):  # a few per run: cheap to read whole
            key = f"{ev.study_id}\x00{ev.asset}"
            if key not in newest or (ev.occurred_at, ev.event_id) >= (newest[key]["at"], newest[key]["id"]):
                newest[key] = {"at": ev.occurred_at, "id": ev.event_id,
                               "body": {f: getattr(ev, f, None) for f in STUDY_FIELDS}}
        out[STUDY_TYPE] = _sha(json.dumps({k: v["body"] for k, v in sorted(newest.items())}, sort_keys=True))
    return out


# ---- code ---------------------------------------------------------------------------------------------
REPO = Path(__file__).resolve().parent.parent


def _package_hash(package: str, cache: dict[str, str]) -> str:
    """Every .py file of a top-level package (a Python model's imports), hashed by content."""
    if package not in cache:
        root = REPO / package
        files = sorted(root.rglob("*.py")) if root.is_dir() else []
        cache[package] = _sha("".join(f"{p.relative_to(REPO)}\x00{_sha(p.read_bytes())}\n" for p in files))
    return cache[package]


def _python_imports(source: str) -> list[str]:
    """The top-level packages a Python model imports (parsed, not run)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if (REPO / n / "__init__.py").is_file())


def code_fingerprint(manifest: dict) -> dict[str, str]:
    """Per dbt model, a hash of what decides its rows besides the events: its body's checksum, its config,
    the macros it calls (transitively), for a Python model the packages it imports, and the tests
    attached to it (a changed test must run again)."""
    macros = manifest.get("macros", {})
    memo: dict[str, str] = {}

    def macro_hash(uid: str, seen: frozenset = frozenset()) -> str:
        if uid not in memo:
            m = macros.get(uid, {})
            deps = [macro_hash(d, seen | {uid}) for d in m.get("depends_on", {}).get("macros", [])
                    if d not in seen and d != uid]
            memo[uid] = _sha(m.get("macro_sql", uid) + "".join(deps))
        return memo[uid]

    packages: dict[str, str] = {}
    tests: dict[str, list[str]] = {}
    for node in manifest["nodes"].values():
        if node["resource_type"] == "test":
            body = _sha(json.dumps([node.get("checksum"), node.get("raw_code"), node.get("test_metadata"),
                                    node.get("config")], sort_keys=True, default=str))
            for parent in node.get("depends_on", {}).get("nodes", []):
                tests.setdefault(parent, []).append(body)
    out = {}
    for uid, node in manifest["nodes"].items():
        if node["resource_type"] != "model":
            continue
        parts = [json.dumps([node.get("checksum"), node.get("config"), node.get("language")],
                            sort_keys=True, default=str)]
        parts += [macro_hash(m) for m in node.get("depends_on", {}).get("macros", [])]
        if node.get("language") == "python":
            parts += [f"{p}:{_package_hash(p, packages)}" for p in _python_imports(node.get("raw_code", ""))]
        parts += sorted(tests.get(uid, []))
        out[uid] = _sha("\n".join(parts))
    return out


def _dbt_version() -> str:
    """dbt.version.__version__, read as it reads it: importing dbt.version costs ~1.5 s (it loads dbt)."""
    from importlib import metadata

    try:
        return metadata.version("dbt-core")
    except metadata.PackageNotFoundError:  # dbt from a source tree
        from dbt.__version__ import version

        return version


def project_fingerprint(project_dir: Path, location: str = "") -> str:
    """What changes every model at once: dbt_project.yml (vars, materializations), the profile, dbt's version,
    and where the segments are (the staging views name it: a lake moved to another folder or bucket must
    rebuild them all, even with no new event)."""
    parts = [_dbt_version(), location]
    for name in ("dbt_project.yml", "profiles.yml"):
        p = project_dir / name
        parts.append(_sha(p.read_bytes()) if p.is_file() else "-")
    return _sha("\n".join(parts))


# ---- gates --------------------------------------------------------------------------------------------
def gate_fingerprint(expectations_dir: Path) -> dict[str, tuple[str, str]]:
    """Per suite, (the mart it gates, a hash of its module and of the gate machinery it runs on). The
    mart is read from the module's `MODEL = "…"` (parsed, not imported: importing GX costs seconds)."""
    engine = _sha("".join(f"{p.name}\x00{_sha(p.read_bytes())}\n" for p in sorted(expectations_dir.glob("*.py"))
                          if not p.name.startswith("suite_")))
    out = {}
    for p in sorted(expectations_dir.glob("suite_*.py")):
        source = p.read_text()
        model = None
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MODEL" for t in node.targets):
                model = ast.literal_eval(node.value)
        if isinstance(model, str):
            out[p.stem.removeprefix("suite_")] = (model, _sha(engine + _sha(source)))
    return out


# ---- the plan -----------------------------------------------------------------------------------------
@dataclass
class BuildPlan:
    models: list[str]  # the dbt models to rebuild (names), sorted
    total_models: int
    reasons: list[str] = field(default_factory=list)  # why, one line each
    fingerprint: dict = field(default_factory=dict)  # what the build will have seen, stored when it publishes
    full: bool = False
    pending: list[str] = field(default_factory=list)  # run-record types left for a later build (auto mode)
    unit_tests: bool = False  # run the dbt unit tests of the rebuilt models (code changed, or asked for)
    # Incremental models rebuilt from every event (dbt --full-refresh), not only the keys with new events: their
    # version (macros/incremental_version.sql) covers their SQL and their upstream models, not dbt_project.yml's
    # vars, the macros or dbt's version, so a change there, or `--force`, must not keep their old rows.
    full_refresh: bool = False

    @property
    def empty(self) -> bool:
        return not self.models

    def summary(self) -> str:
        if self.empty:
            line = "Nothing to build: no new events for the marts and no changed model or gate since the last publish"
            if self.pending:
                line += (f" ({', '.join(self.pending)} of this run are tallied in the cost marts at the next "
                         "`peerlake build`)")
            return line + "."
        if self.full:
            return f"Building all {self.total_models} models ({'; '.join(self.reasons)})."
        shown = ", ".join(self.models[:8]) + (f", … {len(self.models) - 8} more" if len(self.models) > 8 else "")
        return (f"Rebuilding {len(self.models)} of {self.total_models} models ({'; '.join(self.reasons)}): "
                f"{shown}.")


def current_fingerprint(log, manifest: dict, project_dir: Path, expectations_dir: Path, location: str = "") -> dict:
    return {"version": VERSION, "project": project_fingerprint(project_dir, location),
            "events": event_fingerprint(log), "models": code_fingerprint(manifest),
            "gates": {k: list(v) for k, v in gate_fingerprint(expectations_dir).items()}}


def reachable(edges: dict[str, list[str]], roots: set[str]) -> set[str]:
    """Every node reachable from `roots` along `edges` (the manifest's child_map: descendants; its
    parent_map: ancestors), the roots themselves only if reachable from another."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        for nxt in edges.get(todo.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def plan(current: dict, previous: dict | None, manifest: dict, mode: str = EXPLICIT,
         unit_tests: str = "changed") -> BuildPlan:
    """Compare the fingerprint of now with the published build's and select what to rebuild.

    `unit_tests` (settings.dbt_unit_tests): with `changed`, the dbt unit tests run only where code may have
    changed since the published build (a changed model, a changed project or fingerprint, `--force`). A
    first build has nothing to compare the code with and runs none: they test the code, which `make test`
    checks, not the lake's data."""
    models = {uid: n["name"] for uid, n in manifest["nodes"].items() if n["resource_type"] == "model"}
    total = len(models)

    def decide(build: BuildPlan, code_changed: bool) -> BuildPlan:
        build.unit_tests = unit_tests == "all" or (unit_tests == "changed" and code_changed)
        return build

    def full(reason: str, code_changed: bool, refresh: bool = True) -> BuildPlan:
        return decide(BuildPlan(sorted(models.values()), total, [reason], current, full=True,
                                full_refresh=refresh), code_changed)

    if mode == FORCE:
        return full("asked to rebuild everything", True)
    if not previous:
        return full("no published build yet", False, refresh=False)  # nothing to keep: every table is new
    if previous.get("version") != VERSION or previous.get("project") != current["project"]:
        return full("dbt_project.yml, the profile, dbt's version or the lake's location changed", True)

    before, now = previous.get("events", {}), current["events"]
    grown = sorted(t for t in set(before) | set(now) if before.get(t) != now.get(t))
    old_models, new_models = previous.get("models", {}), current["models"]
    changed = sorted(uid for uid, h in new_models.items() if old_models.get(uid) != h)
    old_gates, new_gates = previous.get("gates", {}), current["gates"]
    gated = sorted(s for s, v in new_gates.items() if old_gates.get(s) != v)
    if mode == AUTO and not changed and not gated and all(t in RUN_RECORDS for t in grown):
        return BuildPlan([], total, [], current, pending=grown)  # run records alone wait for a build

    reasons: list[str] = []
    roots: set[str] = set()
    if grown:
        reasons.append("new events: " + ", ".join(grown))
        roots |= {uid for uid, n in manifest.get("sources", {}).items() if n.get("name") in grown}
    if changed:
        reasons.append("changed code: " + ", ".join(models.get(u, u) for u in changed[:5])
                       + (f", … {len(changed) - 5} more" if len(changed) > 5 else ""))
        roots |= set(changed)
    if gated:
        reasons.append("changed gates: " + ", ".join(gated))
        by_name = {n: uid for uid, n in models.items()}
        roots |= {by_name[new_gates[s][0]] for s in gated if new_gates[s][0] in by_name}
    selected = {uid for uid in roots | reachable(manifest.get("child_map", {}), roots) if uid in models}
    return decide(BuildPlan(sorted(models[u] for u in selected), total, reasons, current), bool(changed))


def load_manifest(path: Path) -> dict:
    with open(path) as fh:
        return json.load(fh)


def plan_for_lake(lake, mode: str = EXPLICIT) -> BuildPlan:
    """Seal what the runs wrote (dbt reads sealed segments only), then plan against the published build."""
    from peerlake.orchestration.dbt_manifest import prepare_dbt_manifest
    from peerlake.warehouse import EventLog

    prepare_dbt_manifest()
    log = EventLog(lake)
    log.seal()
    return _plan_now(lake, log, mode)


def plan_as_parsed(lake, log, mode: str = AUTO) -> BuildPlan | None:
    """The plan from the dbt manifest as last parsed and the sealed events, sealing and parsing nothing, and
    without importing Dagster or dbt (a no-op `peerlake run` decides with it: orchestration.noop_run). None
    when a file of the dbt project is newer than the manifest: then only a parse can say what changed."""
    from peerlake.orchestration.dbt_manifest import manifest_current

    if not manifest_current(manifest_path()):
        return None
    return _plan_now(lake, log, mode)


def manifest_path() -> Path:
    """Where dbt writes the manifest: orchestration.project's DbtProject says the same (it imports Dagster)."""
    from peerlake.dbt_project import PROJECT_DIR
    from peerlake.warehouse import settings

    return Path(PROJECT_DIR).joinpath(settings.dbt_target_dir(), "manifest.json")


def _plan_now(lake, log, mode: str) -> BuildPlan:
    from peerlake.dbt_project import PROJECT_DIR
    from peerlake.orchestration.dbt_manifest import plugin_judges
    from peerlake.warehouse import settings
    from peerlake.warehouse.publish import published_fingerprint

    manifest = load_manifest(manifest_path())
    # where the segments are, and the plug-in judges (what the quality models loop over beside dbt_project.yml)
    location = settings.lake_url() or str(lake.root.resolve())
    if (plugins := plugin_judges()) != "[]":
        location += "\n" + plugins
    current = current_fingerprint(log, manifest, Path(PROJECT_DIR), REPO / "expectations", location)
    return plan(current, published_fingerprint(lake), manifest, mode, settings.dbt_unit_tests())


# ---- handing the plan to the run that publishes ---------------------------------------------------------
PLAN_TAG = "peerlake/build_plan"
# "skip": the dbt steps leave the unit tests out (BuildPlan.unit_tests); a run without it (the UI's) runs them.
UNIT_TESTS_TAG = "peerlake/dbt_unit_tests"
# "yes": the dbt steps run with --full-refresh (BuildPlan.full_refresh).
FULL_REFRESH_TAG = "peerlake/dbt_full_refresh"


def _plan_path(lake) -> Path:
    return lake.candidate_duckdb_path.parent / "plan.json"


def stash_plan(lake, build: BuildPlan) -> str:
    """Keep the fingerprint for the run that will publish; returns the token its tag carries."""
    from peerlake.warehouse.fsutil import atomic_write

    body = json.dumps(build.fingerprint, sort_keys=True)
    token = _sha(body)[:16]
    _plan_path(lake).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(_plan_path(lake), json.dumps({"token": token, "fingerprint": build.fingerprint}).encode())
    return token


def take_plan(lake, token: str | None) -> dict | None:
    """The fingerprint of the run's plan, if the run was planned (a UI run is not: it publishes without
    one, and the next planned build rebuilds everything, which is always right)."""
    try:
        stashed = json.loads(_plan_path(lake).read_text())
    except (OSError, ValueError):
        return None
    if not (isinstance(stashed, dict) and token and stashed.get("token") == token):
        return None
    return stashed.get("fingerprint") if isinstance(stashed.get("fingerprint"), dict) else None
