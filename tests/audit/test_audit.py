"""`peerlake audit` on a small lake written event by event (tests/audit/audit_lake.py): the tree names
the models and the calls behind a validity row, a budget row and a review score; the evidence bundle
recomputes the validity row from its events with the installed code (the one dbt run of the recompute); a
changed byte fails the check, naming the file (hostile bundles: test_hostile_bundle.py). Expected numbers
are worked out by hand in the comments."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from peerlake.audit.bundle import write_bundle
from peerlake.audit.check import check_bundle, verify
from peerlake.audit.keys import RowNotFound, audit_command, key_spec, parse_figure_id
from peerlake.audit.trace import audit_row
from peerlake.audit.tree import render
from peerlake.dbt_project import PROJECT_DIR
from peerlake.warehouse import EventLog, Lake
from tests.audit.audit_lake import SCORES, TEMPLATE


@pytest.fixture(scope="module")
def built(audit_built):
    """(lake, db, manifest, work): the session's audit lake after `dbt run` (tests/audit/conftest.py); read only."""
    return audit_built


def audit(built, mart, key):
    lake, db, manifest, _ = built
    return audit_row(db, mart, key, EventLog(Lake(lake.root)), manifest)


@pytest.fixture
def tree(built):
    lake = built[0]

    def _render(result, **kwargs) -> str:
        console = Console(record=True, width=250, file=io.StringIO())
        console.print(render(result, EventLog(Lake(lake.root)).blobs, **kwargs))
        return console.export_text()
    return _render


def ok_call_ids(lake, config, papers) -> list[str]:
    return sorted(c.event_id for (k, p, _), c in lake.calls.items() if k == config and p in papers)


def test_validity_row_tree_names_models_and_calls(built, tree):
    lake = built[0]
    r = lake.configs["R"]
    result = audit(built, "reliability_validity", f"test|{r}|all")
    # AI means under R: P0 (6+6+7)/3 = 19/3, P1 (4+5+3)/3 = 4, P2 8, P3 16/3 (no human: left out).
    # Human means: P0 (6+8)/2 = 7, P1 3, P2 (9+7)/2 = 8. MAE = (|19/3 - 7| + |4 - 3| + 0)/3 = (2/3 + 1)/3 = 5/9.
    assert result.row["n_papers"] == 3
    assert result.row["mae"] == pytest.approx(5 / 9, rel=1e-12)
    names = [m.name for m in result.lineage.models]
    assert names[0] == "reliability_validity"
    assert {"int_validity_papers", "int_study_review_scores", "int_paper_context", "stg_events__llm_calls",
            "stg_events__studies", "stg_events__human_reviews"} <= set(names)
    # the answers used: the 12 ok calls of R on the study's papers; never the failed attempt, never
    # S's calls, never P9 (study "other" only)
    assert sorted(result.call_ids) == ok_call_ids(lake, "R", {"P0", "P1", "P2", "P3"})
    sel = result.selection
    assert sel.study == "test" and sel.papers == {"P0", "P1", "P2", "P3"}
    assert {e.study_id for e in sel.of_type("study_resolved")} == {"test"}
    assert {e.reviewer_config for e in sel.of_type("llm_call")} == {r}
    assert len(sel.of_type("llm_call")) == 12 + 1  # + the failed attempt before P1's sample 0
    assert {e.paper_id for e in sel.of_type("human_review_imported")} == {"P0", "P1", "P2"}
    text = tree(result, max_calls=12)
    for name in names:
        assert name in text
    for call_id in result.call_ids:
        assert call_id in text
    assert TEMPLATE.splitlines()[0] in text  # the template's source text, from its blob
    assert "Dagster run run-1" in text and "asset ai_reviews" in text
    assert lake.papers["P0"].pdf_sha256 in text and lake.papers["P0"].package_sha256 in text
    assert "paper_id=P9" not in text and "of P9" not in text


def test_budget_row_tree(built, tree):
    lake = built[0]
    r = lake.configs["R"]
    result = audit(built, "reliability_budgets", f"test|{r}|eps=0.5")
    # Unbiased variances under R: P0 (6,6,7) → (1/9+1/9+4/9)/2 = 1/3; P1 (4,5,3) → 2/2 = 1; P2 0; P3 (5,5,6)
    # 1/3. V̂ = (1/3 + 1 + 0 + 1/3)/4 = 5/12; planning budget = ceil(V̂/(β ε²)) = ceil((5/12)/(0.05·0.25)) =
    # ceil(33.3) = 34.
    assert result.row["variance_hat"] == pytest.approx(5 / 12, rel=1e-12)
    assert result.row["planning_budget"] == 34
    assert [m.name for m in result.lineage.models][:3] == ["reliability_budgets", "int_repeatability_variance",
                                                           "int_study_review_scores"]
    assert sorted(result.call_ids) == ok_call_ids(lake, "R", {"P0", "P1", "P2", "P3"})
    text = tree(result)
    assert "int_repeatability_variance" in text and "9 more" in text  # 3 of 12 calls in full


def test_review_score_tree_and_manuscript_bytes(built, tree, tmp_path):
    lake = built[0]
    r = lake.configs["R"]
    result = audit(built, "fct_ai_review_scores", f"test|peerlake|P1|{r}|0")
    assert result.row["overall_score"] == SCORES[("R", "P1")][0] == 4
    # the ok answer, not the failed attempt before it
    assert result.call_ids == [lake.calls[("R", "P1", 0)].event_id]
    assert {e.paper_id for e in result.selection.of_type("paper_ingested")} == {"P1"}
    text = tree(result, bytes_dir=tmp_path / "bytes")
    assert "int_ai_reviews_parsed" in text and "stg_events__llm_calls" in text
    assert (tmp_path / "bytes" / "P1.pdf").read_bytes() == b"%PDF-1.4 the manuscript of P1"
    assert json.loads((tmp_path / "bytes" / "P1.json").read_text())["title"] == "Paper P1"


def test_bundle_recomputes_the_validity_row(built, tmp_path):
    """The one dbt run of the recompute: the bundle's events alone, in a fresh lake and DuckDB."""
    lake, _, _, _ = built
    result = audit(built, "reliability_validity", f"test|{lake.configs['R']}|all")
    bundle, fingerprint = write_bundle(result, EventLog(Lake(lake.root)).blobs, PROJECT_DIR, tmp_path / "v.zip")
    names = set(zipfile.ZipFile(bundle).namelist())
    assert {"events.jsonl", "row.json", "MANIFEST.json", "dbt/dbt_project.yml", "dbt/profiles.yml",
            "dbt/models/marts/reliability_validity.py", "dbt/models/marts/reliability_validity.yml",
            "dbt/models/intermediate/int_validity_papers.sql", "dbt/macros/relation_column_names.sql",
            # the statistics the Python model calls: evidence; the recompute runs the installed ones
            "python/metrics/stats/validity.py", "python/metrics/stats/keys.py", "python/metrics/__init__.py"} <= names
    assert f"blobs/{lake.papers['P0'].pdf_sha256}" in names
    assert f"templates/review_v1-{lake.prompt_hash[:12]}.txt" in names
    checked = check_bundle(bundle, work=tmp_path / "check")
    assert checked.problems == [] and checked.error is None and checked.mismatches == []
    assert checked.ok and checked.fingerprint == fingerprint
    assert checked.code.startswith("made with the same code as yours (") and checked.code_diffs == []
    assert checked.recomputed["mae"] == pytest.approx(5 / 9, rel=1e-12)  # by hand above


def _rewrite(src: Path, dst: Path, change: str) -> None:
    """Copy the zip with one byte of member `change` flipped (a valid zip: only the content differs)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == change:
                data = bytes([data[0] ^ 1]) + data[1:]
            zout.writestr(info.filename, data)


def test_one_changed_byte_fails_check_naming_the_file(built, tmp_path):
    lake, _, _, _ = built
    result = audit(built, "fct_ai_review_scores", f"test|peerlake|P1|{lake.configs['R']}|0")
    bundle, _ = write_bundle(result, EventLog(Lake(lake.root)).blobs, PROJECT_DIR, tmp_path / "f.zip")
    assert verify(bundle)[1] == []
    response = f"blobs/{lake.calls[('R', 'P1', 0)].response_sha256}"
    for member in (response, "events.jsonl", "dbt/models/marts/fct_ai_review_scores.sql", "row.json"):
        bad = tmp_path / f"bad-{member.replace('/', '_')}.zip"
        _rewrite(bundle, bad, member)
        problems = check_bundle(bad).problems  # fails before any recompute: no dbt here
        assert problems and all(p.startswith(member + ":") for p in problems), problems
    # a flipped byte in the raw zip (inside a member's compressed data) is named too
    raw = bytearray(bundle.read_bytes())
    with zipfile.ZipFile(bundle) as z:
        info = z.getinfo("events.jsonl")
    raw[info.header_offset + 30 + len(info.filename) + 5] ^= 0xFF  # 30: the local header's fixed size
    broken = tmp_path / "raw.zip"
    broken.write_bytes(bytes(raw))
    assert any(p.startswith("events.jsonl:") for p in check_bundle(broken).problems)
    # the CLI exits non-zero and names it
    from peerlake.cli import app

    out = CliRunner().invoke(app, ["audit", "check", str(tmp_path / "bad-events.jsonl.zip")])
    assert out.exit_code == 1 and "events.jsonl" in out.output


def test_cli_audits_a_figure_id(built, monkeypatch, tmp_path):
    lake, _, _, work = built
    from peerlake.cli import app

    monkeypatch.setenv("PEERLAKE_HOME", str(lake.root))
    manifest = str(work / "target" / "manifest.json")  # the build's own: no `dbt parse` of the checkout
    fig = f"reliability_validity:test|{lake.configs['R']}|all"
    out = CliRunner().invoke(app, ["audit", fig, "--calls", "1", "--bundle", str(tmp_path / "b.zip"),
                                   "--manifest", manifest])
    assert out.exit_code == 0, out.output
    assert "int_validity_papers" in out.output and "evidence bundle written" in out.output
    assert verify(tmp_path / "b.zip")[1] == []
    missing = CliRunner().invoke(app, ["audit", "reliability_validity", "test|nope|all", "--manifest", manifest])
    assert missing.exit_code == 1 and "0 rows of reliability_validity" in missing.output


def test_null_paths(built, tmp_path):
    lake = built[0]
    with pytest.raises(RowNotFound, match=r"0 rows of reliability_validity have key .*; e\.g\. 'other\|"):
        audit(built, "reliability_validity", "test|no-such-config|all")
    with pytest.raises(KeyError, match="no dbt model named"):
        audit(built, "no_such_mart", "x")
    with pytest.raises(RowNotFound, match="declares no key"):
        key_spec("some_mart", ())
    with pytest.raises(ValueError, match="not a figure id"):
        parse_figure_id("reliability_validity")
    assert parse_figure_id("reliability_validity:a|b|venue_year:ICLR 2017") == (
        "reliability_validity", "a|b|venue_year:ICLR 2017")  # the key may hold ':' itself
    assert audit_command("m", "it's") == "peerlake audit 'm:it'\\''s'"
    not_zip = tmp_path / "x.zip"
    not_zip.write_text("no zip")
    assert "not a readable zip" in verify(not_zip)[1][0]
    no_manifest = tmp_path / "n.zip"
    with zipfile.ZipFile(no_manifest, "w") as z:
        z.writestr("row.json", "{}")
    assert verify(no_manifest)[1] == ["MANIFEST.json: missing or unreadable"]
    extra = tmp_path / "e.zip"
    with zipfile.ZipFile(extra, "w") as z:
        z.writestr("MANIFEST.json", json.dumps({"format": 1, "files": {"gone.txt": "0" * 64}}))
        z.writestr("added.txt", "x")
    assert verify(extra)[1] == ["gone.txt: listed in MANIFEST.json but missing from the bundle",
                                "added.txt: not listed in MANIFEST.json"]
    # a blob an event names but the lake lacks: shown as missing, listed in the bundle, never invented
    result = audit(built, "fct_ai_review_scores", f"test|peerlake|P1|{lake.configs['R']}|0")
    other = Lake(tmp_path / "empty").ensure()
    console = Console(record=True, width=250, file=io.StringIO())
    console.print(render(result, EventLog(other).blobs))
    assert "missing from the blob store" in console.export_text()
    bundle, _ = write_bundle(result, EventLog(other).blobs, PROJECT_DIR, tmp_path / "m.zip")
    meta = json.loads(zipfile.ZipFile(bundle).read("row.json"))
    assert lake.calls[("R", "P1", 0)].response_sha256 in meta["missing_blobs"]
    assert not any(n.startswith("blobs/") for n in zipfile.ZipFile(bundle).namelist())


def test_report_prints_each_figures_audit_command(built):
    """Under the validity table, budget curve and histograms: commands whose keys `peerlake audit` finds."""
    import html

    from peerlake.report.build import render_report

    lake, db, _, _ = built
    page = html.unescape(render_report(db, "test"))
    r = lake.configs["R"]
    for command in (f"peerlake audit 'reliability_validity:test|{r}|all'",
                    f"peerlake audit 'reliability_budgets:test|{r}|eps=0.5'",
                    # 16 review scores, the first 12 listed in key order: P0 (R 0-2, S 0-1), then P1 …
                    f"peerlake audit 'fct_ai_review_scores:test|peerlake|P1|{r}|0'"):
        assert command in page
        mart, key = parse_figure_id(command.split("'")[1])
        assert audit(built, mart, key).row is not None  # the printed key names exactly one row
    assert "other|" not in page  # a study's page audits only its own rows
    assert "4 more rows of <code>fct_ai_review_scores</code>" in page  # 16 - 12 listed


def test_declared_keys_match_the_manifest(built):
    """keys.PRIMARY_KEYS (used where no manifest is at hand) is what the marts' yml tests `unique`."""
    from peerlake.audit.keys import PRIMARY_KEYS
    from peerlake.audit.lineage import lineage

    manifest = built[2]
    for mart, column in PRIMARY_KEYS.items():
        assert lineage(manifest, mart).models[0].unique_columns == (column,), mart
