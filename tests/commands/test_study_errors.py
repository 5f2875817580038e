"""A study's mistakes said where they are made: a missing papers folder at `study new`, a folder's
non-PDF files named, a typo'd key answered with the close known one, an unknown study with the
built-in ones listed, and a running study not called "never run"."""

import os

import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.study import study_app


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    app = typer.Typer()
    app.add_typer(study_app, name="study")
    app.command("noop")(lambda: None)
    return lambda *args: CliRunner().invoke(app, ["study", *args])


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_papers_folder_that_does_not_exist_is_refused_at_creation(invoke, tmp_path):
    result = invoke("new", "mine", "--papers", str(tmp_path / "nope"))
    assert result.exit_code == 2
    out = _flat(result.output)
    assert f"--papers {tmp_path / 'nope'}: does not exist" in out and "give a folder holding the PDFs" in out
    assert not list(tmp_path.rglob("*.toml"))
    (tmp_path / "file.pdf").write_bytes(b"%PDF")
    result = invoke("new", "mine", "--papers", str(tmp_path / "file.pdf"))
    assert result.exit_code == 2 and "is a file, not a folder" in result.output


def test_study_new_names_the_files_of_a_papers_folder_that_are_not_pdfs(invoke, tmp_path):
    papers = tmp_path / "papers"
    papers.mkdir()
    for name in ("a.pdf", "b.pdf", "notes.txt", "draft.docx", "fig.png", "z.md", ".DS_Store"):
        (papers / name).write_bytes(b"x")
    result = invoke("new", "mine", "--papers", str(papers))
    assert result.exit_code == 0, result.output
    # sorted names, the first three shown; the hidden file is nobody's paper
    assert "2 PDFs; 4 files skipped: not PDFs (draft.docx, fig.png, notes.txt, …)" in _flat(result.output)


def test_an_unknown_key_says_did_you_mean_before_the_known_keys(invoke, tmp_path):
    from peerlake.studies import StudyError, parse_study

    with pytest.raises(StudyError) as exc:
        parse_study("x", '[papers]\nids = ["a"]\n\n[[reviewers]]\ntemplate = "reviewer_scoring"\nsampels = 2\n')
    message = str(exc.value)
    assert "unknown key(s) reviewers[0].sampels; did you mean `reviewers[0].samples`? known:" in message
    with pytest.raises(StudyError) as exc:  # nothing close: no guess
        parse_study("x", '[papers]\nids = ["a"]\nzzzzzz = 1\n')
    assert "did you mean" not in str(exc.value) and "known: papers.all_ingested" in str(exc.value)


def test_an_unknown_study_lists_the_built_in_ones_and_the_close_name(tmp_path, monkeypatch):
    from peerlake.cli import app

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    result = CliRunner().invoke(app, ["run", "demoo"])
    out = _flat(result.output)
    assert result.exit_code == 1 and "no study 'demoo' in this lake; did you mean `demo`?" in out
    for builtin in ("demo", "judging-demo", "systems-demo", "robustness-demo", "revision-demo"):
        assert builtin in out.split("known:")[1]
    assert not (tmp_path / "lake" / "studies" / "demoo.toml").exists()


def test_study_list_says_running_for_a_started_run_whose_process_lives(invoke, tmp_path):
    from dagster import DagsterEventType
    from dagster._core.events import DagsterEvent
    from dagster._core.test_utils import create_run_for_test

    from peerlake.orchestration.runner import dagster_instance

    assert invoke("new", "mine", "--ids", "a").exit_code == 0
    assert "never run" in invoke("list").output
    instance = dagster_instance()
    for pid, study in ((os.getpid(), "mine"), (2**22 + 1, "ghost")):  # 2**22+1: above Linux's pid_max
        run = create_run_for_test(instance, job_name="j", tags={"peerlake/study": study})
        instance.report_dagster_event(DagsterEvent(
            event_type_value=DagsterEventType.RUN_START.value, job_name="j", pid=pid), run.run_id)
    assert invoke("new", "ghost", "--ids", "a").exit_code == 0
    lines = {line.split()[0]: line for line in invoke("list").output.splitlines()}
    assert lines["mine"].split(None, 1)[1].startswith("running (run ") and "never run" not in lines["mine"]
    assert "never run" in lines["ghost"]  # killed without stopping: its dead pid tells
    assert "built in, written on first run: demo" in invoke("list").output
