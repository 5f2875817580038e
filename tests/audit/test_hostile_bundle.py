"""`peerlake audit check` on bundles an attacker made: one honest validity bundle (tests/audit/audit_lake.py)
changed in memory with MANIFEST.json rewritten so every hash holds, as an attacker would. Code in the zip
is never run (each vector tries to leave a marker file), a forged number is not confirmed, bad member
names and events that do not fit their schema fail before anything is written, and dbt's process gets no
provider key or cloud credential. Three dbt runs: the fixture's build, the hostile bundle, an old one."""

import hashlib
import json
import stat
import warnings
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from peerlake.audit import check
from peerlake.audit.bundle import MANIFEST, write_bundle
from peerlake.audit.check import check_bundle
from peerlake.audit.code import ROOT, code_version, tree_sha256
from peerlake.audit.trace import audit_row
from peerlake.dbt_project import PROJECT_DIR
from peerlake.warehouse import EventLog, Lake, settings

MAE = 5 / 9  # worked out by hand in tests/audit/test_audit.py


@pytest.fixture(scope="module")
def honest(audit_built, tmp_path_factory) -> dict[str, bytes]:
    """The members of an honest bundle of the validity row test|R|all (of the session's audit lake)."""
    lake, db, manifest, _ = audit_built
    log = EventLog(Lake(lake.root))
    result = audit_row(db, "reliability_validity", f"test|{lake.configs['R']}|all", log, manifest)
    bundle, _ = write_bundle(result, log.blobs, PROJECT_DIR, tmp_path_factory.mktemp("hostile") / "honest.zip")
    with zipfile.ZipFile(bundle) as z:
        return {n: z.read(n) for n in z.namelist()}


def repack(files: dict[str, bytes], out: Path, raw: tuple = (), fmt: int = 2) -> Path:
    """A zip of `files` (and of `raw` (ZipInfo or name, bytes) members, written as they are) whose
    MANIFEST.json lists every member with its true SHA-256."""
    members = [(n, d) for n, d in files.items() if n != MANIFEST] + list(raw)
    name = lambda m: m.filename if isinstance(m, zipfile.ZipInfo) else m  # noqa: E731
    manifest = {"format": fmt, "files": {name(m): hashlib.sha256(d).hexdigest() for m, d in members}}
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w") as z:
        warnings.simplefilter("ignore")  # "Duplicate name": the point of one case
        for m, d in members:
            z.writestr(m, d)
        z.writestr(MANIFEST, json.dumps(manifest))
    return out


def edit_row(files: dict[str, bytes], **changes) -> dict[str, bytes]:
    meta = json.loads(files["row.json"])
    for k, v in changes.items():
        if v is None:
            meta.pop(k, None)
        else:
            meta[k] = v
    return {**files, "row.json": json.dumps(meta).encode()}


def test_code_in_the_bundle_is_never_run_and_a_forged_mae_fails(honest, tmp_path):
    """The four vectors that all ran before, in one bundle whose row says MAE 0.001 (the true one is 5/9)
    and whose code record claims the installed code."""
    marker = {v: tmp_path / f"ran-{v}" for v in ("model", "stats", "sitecustomize", "hook")}
    files = dict(honest)
    model = "dbt/models/marts/reliability_validity.py"
    files[model] = files[model].replace(
        b"def model(dbt, session):\n", f"def model(dbt, session):\n    open({str(marker['model'])!r}, 'w')\n".encode())
    assert files[model] != honest[model]
    stats = "python/metrics/stats/validity.py"
    files[stats] += (f"\nopen({str(marker['stats'])!r}, 'w')\nimport dataclasses as _dc\n"
                     "_honest = agreement_with_humans\ndef agreement_with_humans(ai, human):\n"
                     "    return _dc.replace(_honest(ai, human), mae=0.001)\n").encode()
    files["python/sitecustomize.py"] = f"open({str(marker['sitecustomize'])!r}, 'w')\n".encode()
    files["dbt/dbt_project.yml"] += (f"\non-run-start:\n  - \"COPY (SELECT 42 AS x) TO '{marker['hook']}' "
                                     "(FORMAT CSV)\"\n").encode()
    row = json.loads(files["row.json"])["row"]
    files = edit_row(files, row={**row, "mae": 0.001})
    work = tmp_path / "work"
    result = check_bundle(repack(files, tmp_path / "hostile.zip"), work=work)
    assert [v for v, p in marker.items() if p.exists()] == []
    assert not result.ok and result.problems == [] and result.error is None
    assert [m.split(":")[0] for m in result.mismatches] == ["mae"], result.mismatches
    assert result.recomputed["mae"] == pytest.approx(MAE, rel=1e-12)  # the installed statistics' number
    # the claim of the same code is contradicted by the files, each named
    assert result.code.startswith("made with the same code as yours by its own record")
    assert "but its files differ" in result.code
    for name in (model, stats, "python/sitecustomize.py", "dbt/dbt_project.yml"):
        assert any(d.startswith(name) for d in result.code_diffs), (name, result.code_diffs)
    assert len(result.code_diffs) == 4
    assert not (work / "dbt").exists() and not (work / "python").exists()  # the zip's code is never unpacked


def test_an_old_bundle_without_a_code_record_recomputes_with_the_installed_code(honest, tmp_path):
    """Format 1 (before the code record): checked as before, saying it was recomputed with your code."""
    from peerlake.cli import app

    old = repack(edit_row(honest, code=None, format=1), tmp_path / "old.zip", fmt=1)
    out = CliRunner().invoke(app, ["audit", "check", str(old)])
    assert out.exit_code == 0, out.output
    assert "code: the bundle records no code version (format 1" in out.output
    assert "recomputed with your code" in out.output and "the row matches" in out.output


def test_a_bundle_of_other_code_says_which_part_differed(honest):
    theirs = {**code_version(PROJECT_DIR), "statistics_sha256": "0" * 64, "peerlake_version": "0.0.1"}
    line, diffs = check.compare_code(json.loads(edit_row(honest, code=theirs)["row.json"]), honest)
    mine = code_version(PROJECT_DIR)["statistics_sha256"][:12]
    assert line.startswith(f"made with other code (statistics 000000000000, yours {mine}; peerlake 0.0.1, yours ")
    assert line.endswith("recomputed with yours") and diffs == []


def test_code_hash_is_the_hash_of_a_sha256sum_listing():
    """Worked out independently: `sha256sum` prints "<hex>  <path>" per file, sorted by path here."""
    a, b = hashlib.sha256(b"x").hexdigest(), hashlib.sha256(b"").hexdigest()
    listing = f"{b}  models/a.sql\n{a}  models/b.sql\n".encode()
    assert tree_sha256({"models/b.sql": b"x", "models/a.sql": b""}) == hashlib.sha256(listing).hexdigest()
    mine = code_version(PROJECT_DIR)
    assert set(mine) == {"peerlake_version", "dbt_project_sha256", "statistics_sha256"}


def _link(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize(("member", "why"), [
    ("dbt/../../slip.txt", "`..` path component"),
    ("python/../../slip.txt", "`..` path component"),
    ("/tmp/peerlake-slip.txt", "absolute path"),
    ("dbt\\..\\..\\slip.txt", "backslash"),
    ("C:/slip.txt", "drive letter"),
    (_link("dbt/models/link.sql"), "symbolic link"),
    ("row.json", "second member"),
])
def test_a_bad_member_name_fails_naming_it_and_writes_nothing(honest, tmp_path, member, why):
    work = tmp_path / "work"
    result = check_bundle(repack(honest, tmp_path / "bad.zip", raw=((member, b"/etc/passwd"),)), work=work)
    name = member.filename if isinstance(member, zipfile.ZipInfo) else member
    assert len(result.problems) == 1 and result.problems[0].startswith(repr(name)), result.problems
    assert why in result.problems[0] and result.recomputed is None
    assert not (tmp_path / "slip.txt").exists() and not work.exists()


def _line(files: dict[str, bytes], event_type: str) -> tuple[int, dict]:
    lines = files["events.jsonl"].splitlines()
    n = next(i for i, raw in enumerate(lines) if json.loads(raw)["event_type"] == event_type)
    return n, json.loads(lines[n])


def _with_line(files: dict[str, bytes], n: int, payload: dict) -> dict[str, bytes]:
    lines = files["events.jsonl"].splitlines()
    lines[n] = json.dumps(payload).encode()
    return {**files, "events.jsonl": b"\n".join(lines) + b"\n"}


@pytest.mark.parametrize(("change", "expected"), [
    (lambda p: {**p, "event_type": "os_command_ran"}, "unknown event type 'os_command_ran'"),
    (lambda p: {**p, "event": {**p["event"], "cost_usd": "free"}}, "llm_call.cost_usd: 'free' is not"),
    (lambda p: {**p, "event": {**p["event"], "sample_index": True}}, "llm_call.sample_index: True is not"),
    (lambda p: {**p, "event": {**p["event"], "occurred_at": "yesterday"}}, "llm_call.occurred_at"),
    (lambda p: {**p, "event": {**p["event"], "run_this": "rm -rf /"}}, "field(s) run_this not in the schema"),
    (lambda p: {**p, "event": {k: v for k, v in p["event"].items() if k != "model"}}, "field(s) model missing"),
    (lambda p: {**p, "event": {**p["event"], "schema_version": 99}}, "schema_version 99"),
    (lambda p: [p], 'not an {"event_type", "event"} object'),
])
def test_an_event_that_does_not_fit_its_schema_fails_naming_the_line(honest, tmp_path, change, expected):
    n, payload = _line(honest, "llm_call")
    result = check_bundle(repack(_with_line(honest, n, change(payload)), tmp_path / "ev.zip"), work=tmp_path / "w")
    assert len(result.problems) == 1 and result.problems[0].startswith(f"events.jsonl line {n + 1}: ")
    assert expected in result.problems[0] and result.recomputed is None


@pytest.mark.parametrize(("change", "expected"), [
    ({"mart": "reliability_validity\"; COPY (SELECT 1) TO 'x.csv'; --"}, "row.json: mart"),
    ({"mart": "no_such_mart"}, "is not a model of your installed dbt project"),
    ({"format": 9}, "row.json: format 9"),
    ({"code": "trust me"}, "row.json: code is not an object"),
])
def test_row_json_is_checked_before_it_is_used(honest, tmp_path, change, expected):
    result = check_bundle(repack(edit_row(honest, **change), tmp_path / "row.zip"), work=tmp_path / "w")
    assert len(result.problems) == 1 and expected in result.problems[0], result.problems


def test_the_dbt_child_gets_no_provider_key_or_cloud_credential(monkeypatch, tmp_path):
    secrets = {"OPENAI_API_KEY": "sk-fake-openai", "ANTHROPIC_API_KEY": "sk-ant-fake",
               "PEERLAKE_OPENAI_COMPATIBLE_API_KEY": "fake", "SEMANTIC_SCHOLAR_API_KEY": "fake",
               "AWS_SECRET_ACCESS_KEY": "fake-secret", "AWS_ACCESS_KEY_ID": "AKIAFAKE", "AWS_SESSION_TOKEN": "t",
               "OPENREVIEW_PASSWORD": "pw", "SOME_SERVICE_TOKEN": "t"}
    for k, v in secrets.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PEERLAKE_LAKE_URL", "s3://bucket/lake")  # even then: the check reads a local lake
    monkeypatch.setenv("PEERLAKE_MAX_OUTPUT_TOKENS", "700")  # not a secret
    env = check._dbt_env(tmp_path / "lake", tmp_path / "db.duckdb")
    assert sorted(set(secrets) & set(env)) == [] and "PEERLAKE_LAKE_URL" not in env
    assert not any(v in env.values() for v in secrets.values() if len(v) > 2)
    assert env["PATH"] and env["PEERLAKE_MAX_OUTPUT_TOKENS"] == "700"
    assert env["PEERLAKE_HOME"] == str(tmp_path / "lake") and env["PYTHONPATH"].split(":")[0] == str(ROOT)
    # the build's dbt on that object-storage lake keeps the AWS variables it reads the segments with
    kept = settings.child_env()
    assert kept["AWS_SECRET_ACCESS_KEY"] == "fake-secret" and "OPENAI_API_KEY" not in kept
    monkeypatch.delenv("PEERLAKE_LAKE_URL")
    assert not any(k.startswith("AWS_") for k in settings.child_env())


def test_a_bundle_that_would_inflate_past_the_limit_is_not_read(honest, tmp_path, monkeypatch):
    # 3 MB of zeros deflate to a few kB: the declared sizes, not the file's, are what memory pays
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in {**honest, "blobs/zeros": b"\0" * (3 * 2**20)}.items():
            z.writestr(name, data)
    assert bomb.stat().st_size < 2**20
    monkeypatch.setenv("PEERLAKE_BUNDLE_MAX_MB", "2")
    result = check_bundle(bomb, work=tmp_path / "work")
    assert len(result.problems) == 1 and "PEERLAKE_BUNDLE_MAX_MB=2" in result.problems[0], result.problems
    assert result.recomputed is None and not (tmp_path / "work").exists()
