"""`peerlake … --help`: every help text keeps its square brackets (study-file tables such as
[[reviewers]] and [judging], ranges such as [x>=0.0]) instead of losing them to Rich markup, and
every command sits in one of the workflow panels."""

import re

import pytest
import typer.main
from typer.testing import CliRunner

from peerlake.cli import PANELS, app

ROOT = typer.main.get_command(app)


def _commands(command, path=()):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _bracketed(command) -> set[str]:
    """The bracketed words of the command's own help and of its parameters' help, as written."""
    texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
    return {m for t in texts for m in re.findall(r"\[+[^\[\]\s]+\]+", t.replace("\\[", "["))}


COMMANDS = list(_commands(ROOT))


def test_the_help_texts_hold_brackets_to_render():  # else the test below would check nothing
    found = set().union(*(_bracketed(c) for _, c in COMMANDS))
    assert {"[[reviewers]]", "[judging]", "[costs]"} <= found


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "peerlake")
def test_every_help_renders_its_brackets(path):
    command = dict(COMMANDS)[path]
    result = CliRunner().invoke(app, [*path, "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    shown = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
    # a bracketed word at the end of a help line may wrap, but Rich never splits one (no spaces)
    missing = [b for b in sorted(_bracketed(command)) if b not in shown]
    assert missing == [], f"`peerlake {' '.join(path)} --help` lost {missing}"


def test_every_command_is_in_a_workflow_panel_and_the_panels_come_in_workflow_order():
    ctx = ROOT.context_class(ROOT, info_name="peerlake")
    panels = [getattr(ROOT.commands[n], "rich_help_panel", None) for n in ROOT.list_commands(ctx)]
    assert set(panels) <= set(PANELS), [n for n in ROOT.commands if ROOT.commands[n].rich_help_panel not in PANELS]
    assert panels == sorted(panels, key=PANELS.index)
    out = CliRunner().invoke(app, ["--help"], terminal_width=200).output
    assert [out.index(f"─ {p} ─") for p in PANELS] == sorted(out.index(f"─ {p} ─") for p in PANELS)


def test_peerlake_systems_shows_the_study_table_it_names():
    result = CliRunner().invoke(app, ["systems"], terminal_width=200)
    assert result.exit_code == 0 and 'In a study: [[reviewers]] system = "mlr"' in result.output
