"""Suites are found, not listed: every expectations/suite_<name>.py is the gate <name>, and nothing else is."""

from pathlib import Path

from peerlake.expectations import gates
from peerlake.expectations.gates import GATES, SUITES

FOLDER = Path(gates.__file__).parent


def test_every_suite_module_is_a_gate_under_its_file_name():
    assert set(SUITES) == {p.stem.removeprefix("suite_") for p in FOLDER.glob("suite_*.py")}
    for name, module in SUITES.items():
        assert module.__name__ == f"peerlake.expectations.suite_{name}"
        assert {"MODEL", "KEY", "COLUMNS", "STAGE", "expectations"} <= set(vars(module)), name
        assert module.KEY in module.COLUMNS, name
        assert GATES[name] == module.MODEL


def test_helper_modules_are_not_suites():
    # Shapes several suites share live in modules without the suite_ prefix, so they never register.
    helpers = {p.stem for p in FOLDER.glob("*.py")} - {f"suite_{n}" for n in SUITES}
    assert {"shared", "quality_reviews", "gates", "__init__"} <= helpers
    assert not any(h.startswith("suite_") for h in helpers)


def test_one_suite_per_mart():
    # Two suites on one mart would be two blocking checks with one meaning; a gate is named by its mart's suite.
    assert len(set(GATES.values())) == len(GATES)
