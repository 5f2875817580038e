"""`peerlake run` ends with the next commands, with this study's real ids: the report page and where it
is written, the audit of its first reviewer configuration's validity row (the id the marts key by, not a
prompt hash), the call viewer."""

from pathlib import Path

from peerlake.commands.study import next_commands


def test_the_next_commands_name_the_study_its_page_and_its_configuration():
    lines = next_commands("pilot", {"reviewer_configs": "fe4e0e11c1131904, 0123456789abcdef"}, Path("/lake"))
    assert lines[0].startswith("peerlake report --study pilot --open") and "/lake/reports/pilot.html" in lines[0]
    assert lines[1].startswith("peerlake audit reliability_validity 'pilot|fe4e0e11c1131904|all'")
    assert lines[2].startswith("peerlake view --study pilot")


def test_a_study_without_single_template_reviewers_gets_no_audit_line():
    lines = next_commands("systems-only", {}, Path("/lake"))
    assert [line.split()[1] for line in lines] == ["report", "view"]


def test_the_terminal_says_test_numbers_when_the_embedded_model_ran(capsys):
    """The report page's caveat, in the terminal: named models that are embedded, nothing for hosted ones."""
    from peerlake.console import embedded_caveat
    from peerlake.warehouse.settings import LOCAL_MODEL_NAME

    embedded_caveat(["gpt-4.1", LOCAL_MODEL_NAME])
    out = capsys.readouterr().out
    assert "Test numbers, not findings" in out and f"embedded local model ({LOCAL_MODEL_NAME})" in out
    embedded_caveat(["gpt-4.1", "claude-sonnet-4-5"])
    assert capsys.readouterr().out == ""
