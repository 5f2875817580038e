"""A typo is refused at the command that names it, with the closest name, and writes nothing: `report`,
`view` and `calls` refuse a --study that names no study of the lake (exit 2, no empty page), `ingest pdf`
a path that names no file or folder (exit 2, no `ingest_rejected` event in the permanent log). A study
known only from the published marts (its file elsewhere) is still accepted."""

import duckdb
import pytest
from typer.testing import CliRunner

from peerlake.cli import app
from peerlake.warehouse import EventLog, Lake


@pytest.fixture
def lake_home(tmp_path, monkeypatch):
    root = tmp_path / "lake"
    monkeypatch.setenv("PEERLAKE_HOME", str(root))
    Lake(root).ensure()
    return root


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", [["report"], ["view", "--no-open"], ["calls"]])
def test_an_unknown_study_is_refused_with_the_closest_name(lake_home, command):
    result = CliRunner().invoke(app, [*command, "--study", "dmeo"])
    out = _flat(result.output)
    assert result.exit_code == 2, out
    assert "--study: no study 'dmeo' in this lake" in out and "did you mean `demo`?" in out
    assert not (lake_home / "reports" / "dmeo.html").exists()


def test_a_study_known_only_from_the_published_marts_is_accepted(lake_home):
    with duckdb.connect(str(lake_home / "peerlake.duckdb")) as con:
        con.execute("create table fct_llm_calls as select 'imported-study' as study_id")
    result = CliRunner().invoke(app, ["calls", "--study", "imported-study"])
    assert "no study" not in _flat(result.output)


def test_a_missing_folder_is_refused_and_the_log_records_nothing(lake_home, tmp_path):
    (tmp_path / "papers").mkdir()
    result = CliRunner().invoke(app, ["ingest", "pdf", str(tmp_path / "paper")])
    out = _flat(result.output)
    assert result.exit_code == 2, out
    assert f"no such file or folder: '{tmp_path / 'paper'}'" in out and f"did you mean '{tmp_path / 'papers'}'?" in out
    assert list(EventLog(Lake(lake_home)).iter_events("ingest_rejected")) == []


def test_a_number_given_to_sample_is_named_as_the_samples_flag_and_nothing_is_written(lake_home):
    result = CliRunner().invoke(app, ["study", "new", "pilot", "--all", "--sample", "2"])
    out = _flat(result.output)
    assert result.exit_code == 2, out
    assert "--sample 2: no such sample in this lake (drawn: none)" in out and "that is --samples 2" in out
    assert not (lake_home / "studies" / "pilot.toml").exists() and "reviewers[0]" not in out


def test_a_drawn_sample_is_accepted(lake_home):
    from peerlake.warehouse.events import SampleDrawn

    log = EventLog(Lake(lake_home))
    log.append(SampleDrawn(sample_id="s-abc", drawn_by="test", seed=1, strata="venue", size=1, venue=None,
                           parent_sample_id=None, quotas_json="{}", paper_ids_json='["P1"]'))
    log.seal()
    result = CliRunner().invoke(app, ["study", "new", "pilot", "--sample", "s-abc"])
    assert result.exit_code == 0, result.output
    missing = CliRunner().invoke(app, ["study", "new", "other", "--sample", "s-abd"])
    assert missing.exit_code == 2 and "(drawn: s-abc)" in _flat(missing.output)
