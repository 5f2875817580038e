"""A model's plain column checks are one dbt node: `unique`, `not_null`, `accepted_values` and `between` on a
model's columns are stated in its `column_checks` test (dbt_project/macros/tests/column_checks.sql), not one
test per column and check. A dbt test node costs ~30-40 ms of fixed overhead whatever it scans; folding 752
such tests into one per model took a full build from 969 dbt nodes to 302. A test with its own `config` (a
severity, a where) stays apart."""

from pathlib import Path

import yaml

MODELS = Path(__file__).resolve().parents[2] / "dbt_project" / "models"
FOLDED = {"unique", "not_null", "accepted_values", "between"}


def _plain(test) -> str | None:
    if isinstance(test, str):
        return test if test in FOLDED else None
    if isinstance(test, dict) and len(test) == 1:
        (kind, spec), = test.items()
        if kind in FOLDED and not set(spec or {}) - {"arguments"}:
            return kind
    return None


def test_plain_column_checks_are_stated_in_the_models_column_checks():
    stray = [f"{path.name}: {model['name']}.{column['name']} {kind}"
             for path in sorted(MODELS.rglob("*.yml"))
             for model in (yaml.safe_load(path.read_text()) or {}).get("models", [])
             for column in model.get("columns", []) or []
             for test in column.get("data_tests", column.get("tests", [])) or []
             if (kind := _plain(test))]
    assert not stray, "state these in the model's column_checks test:\n" + "\n".join(stray)

