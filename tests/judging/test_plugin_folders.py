"""Plug-in folders ($PEERLAKE_PLUGINS): a judge found in one, and each mistake refused at the first lookup
with the file and what to do. Each case runs in a fresh process: the judge registry scans once per process."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

PLUGIN = Path(__file__).resolve().parent / "plugin_questions"
LIST = ("from peerlake.judging.registry import judges, plugin_declaration; "
        "print(list(judges())); print(plugin_declaration())")


def scan(*folders: Path, code: str = LIST) -> subprocess.CompletedProcess:
    env = {**os.environ, "PEERLAKE_PLUGINS": os.pathsep.join(map(str, folders))}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def _copy(tmp_path: Path, edit=None) -> Path:
    folder = tmp_path / "judges"
    shutil.copytree(PLUGIN, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if edit:
        module = folder / "questions.py"
        module.write_text(edit(module.read_text()))
    return folder


def test_a_plugin_judge_is_listed_after_the_builtin_ones_with_its_declaration():
    out = scan(PLUGIN)
    assert out.returncode == 0, out.stderr
    names, declaration = out.stdout.splitlines()
    assert names == "['depth', 'novelty', 'flaws', 'constructiveness', 'questions']"
    assert "'units': {'question': 'VARCHAR', 'quoted': 'BOOLEAN'}" in declaration
    assert "'sql': 'count(unit)'" in declaration and "'card_score': 'share_quoted'" in declaration


def test_its_template_is_found_in_the_folder_and_never_shadows_a_builtin_one(tmp_path):
    folder = _copy(tmp_path)
    shutil.copy(folder / "templates" / "judge_questions_items.j2", folder / "templates" / "reviewer_scoring.j2")
    code = ("from peerlake.prompts import load_template; "
            "print(load_template('judge_questions_items').path); print(load_template('reviewer_scoring').path)")
    out = scan(folder, code=code)
    assert out.returncode == 0, out.stderr
    own, builtin = out.stdout.splitlines()
    assert own == str(folder / "templates" / "judge_questions_items.j2")
    assert Path(builtin).parent.parent.name == "prompts"


def test_a_folder_that_does_not_exist_is_named(tmp_path):
    out = scan(tmp_path / "nowhere")
    assert out.returncode != 0 and f"plug-in folder {tmp_path / 'nowhere'} does not exist" in out.stderr


def test_a_plugin_judge_without_units_is_refused(tmp_path):
    folder = _copy(tmp_path, lambda s: s.replace('UNITS = {"question": "VARCHAR", "quoted": "BOOLEAN"}', ""))
    out = scan(folder)
    assert out.returncode != 0 and "plug-in judge peerlake_plugins.questions needs UNITS" in out.stderr


def test_a_metric_without_sql_is_refused(tmp_path):
    folder = _copy(tmp_path, lambda s: s.replace(', sql="count(unit)"', ""))
    out = scan(folder)
    assert out.returncode != 0 and "each metric needs its sql; n_questions has none" in out.stderr


def test_a_plugin_cannot_take_a_builtin_judge_name(tmp_path):
    folder = _copy(tmp_path, lambda s: s.replace('JUDGE = "questions"', 'JUDGE = "depth"'))
    out = scan(folder)
    assert out.returncode != 0
    assert ("judge 'depth' is registered twice: by peerlake.judging.depth and by peerlake_plugins.questions"
            in out.stderr)


def test_a_module_that_fails_to_import_is_named(tmp_path):
    folder = _copy(tmp_path, lambda s: s + "\nraise RuntimeError('broken on purpose')\n")
    out = scan(folder)
    assert out.returncode != 0
    assert f"plug-in {folder / 'questions.py'} cannot be imported (RuntimeError: broken on purpose)" in out.stderr
