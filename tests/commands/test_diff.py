"""`peerlake diff --build`: an unknown build or mart is refused with the known ones listed; `--format json`
is one JSON document a script can read; the default is tables."""

import json

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.diff import register
from peerlake.warehouse import builds
from tests.warehouse.builds_support import publish_sql


@pytest.fixture
def invoke():
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # a second command keeps `diff` a subcommand
    return lambda *args: CliRunner().invoke(app, ["diff", *args], terminal_width=200)


def _publish(lake, sql: str) -> None:
    publish_sql(lake, sql)
    assert builds.keep_build(lake, chain_head_seq=7) is not None


@pytest.fixture
def two_builds(lake):
    _publish(lake, """create table revision_cells as
        select 'c' || i as revision_cell_id, i * 1.0 as mean_gain, i - 0.5 as ci_low, i + 0.5 as ci_high
        from range(3) t(i); create table dim_papers as select 'p1' as paper_version_id, 'A title' as title""")
    _publish(lake, "update revision_cells set mean_gain = 9 where revision_cell_id = 'c1'; "
                   "insert into revision_cells values ('c7', 0, 0, 0)")
    return lake


def test_an_unknown_build_is_refused_with_the_kept_ones(two_builds, invoke):
    result = invoke("--build", "b12")
    assert result.exit_code == 2
    assert "no kept build 'b12'; kept builds: 1, 2" in result.output
    result = invoke("--build", "-2")
    assert result.exit_code == 2 and "no build -2: 1 kept before the published one (kept: 1, 2)" in result.output


def test_an_unknown_mart_is_refused_with_the_marts(two_builds, invoke):
    result = invoke("--build", "prev", "--mart", "revision_cell")
    assert result.exit_code == 2 and "no mart revision_cell in build 1 or the published file; marts: " \
                                      "dim_papers, revision_cells" in result.output


def test_json_output_parses(two_builds, invoke):
    result = invoke("--build", "prev", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["old"]["build_id"] == "1" and report["old"]["chain_head_seq"] == 7
    assert report["new"]["build_id"] == "2"
    papers, cells = report["marts"]
    assert papers == {"mart": "dim_papers", "status": "compared", "key": ["paper_version_id"], "key_note": None,
                      "rows_old": 1, "rows_new": 1, "added": 0, "removed": 0, "changed": 0, "moved": 0,
                      "not_compared": [], "bookkeeping": [], "studies": [], "templates": [], "calls": [],
                      "explained_by": [], "lake_wide": False,
                      "examples": {"added": [], "removed": [], "changed": [], "moved": []}}
    assert report["since"]["groups"] == [] and "fct_llm_calls" in report["since"]["note"]
    assert (cells["mart"], cells["added"], cells["removed"], cells["changed"], cells["moved"]) == \
        ("revision_cells", 1, 0, 1, 1)
    assert cells["examples"]["moved"] == [{"key": "c1", "moves": [{"column": "mean_gain", "old": 1.0, "new": 9.0,
                                                                   "old_low": 0.5, "old_high": 1.5}]}]


def test_tables_by_default(two_builds, invoke):
    result = invoke("--build", "1")
    assert result.exit_code == 0, result.output
    assert "against build 1" in result.output and "revision_cells" in result.output
    assert "1 of 2 marts unchanged" in result.output
    assert "mean_gain 1 → 9, outside [0.5, 1.5]" in result.output


def test_no_kept_build_says_how_to_get_one(lake, invoke):
    result = invoke("--build", "prev")
    assert result.exit_code == 2 and "snapshots start with the next publish" in result.output
