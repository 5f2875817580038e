"""Every mart has a suite, and each suite says whether it gates inputs or statistics; input gates
must be runnable before any statistic mart is built."""

import importlib.util
import re
from pathlib import Path

import pytest
import yaml

from peerlake.expectations import GATES, INPUT_GATES, STATISTIC_GATES, gates, suite_validity

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "dbt_project" / "models"
REF = re.compile(r"""ref\(\s*['"]([^'"]+)['"]\s*\)""")


def model_files() -> dict[str, Path]:
    return {p.stem: p for p in MODELS.rglob("*") if p.suffix in (".sql", ".py")}


def _judge_refs(text: str) -> list[str]:
    """The refs a model generates over the quality judges (macros/quality_judges.sql: ref('int_quality_' ~ judge)
    and its _repeats), read off dbt_project.yml's quality_judges var."""
    if not re.search(r"quality_judges|per_review_judges|card_score_judges|review_metrics_long", text):
        return []
    judges = yaml.safe_load((MODELS.parent / "dbt_project.yml").read_text())["vars"]["quality_judges"]
    return [f"int_quality_{j['judge']}{suffix}" for j in judges for suffix in ("", "_repeats")]


def ancestors(model: str, files: dict[str, Path]) -> set[str]:
    """Every model `model` reads, directly or through others (from the ref() calls in the files)."""
    seen: set[str] = set()
    todo = [model]
    while todo:
        text = files[todo.pop()].read_text(encoding="utf-8")
        for parent in [*REF.findall(text), *_judge_refs(text)]:
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


def test_every_mart_has_a_suite():
    marts = {p.stem for p in (MODELS / "marts").iterdir() if p.suffix in (".sql", ".py")}
    assert marts, "no marts found"
    assert marts == set(GATES.values())


def test_gates_split_into_input_and_statistic_gates():
    assert INPUT_GATES == {"ai_review_scores": "fct_ai_review_scores", "human_reviews": "fct_human_reviews",
                           "llm_calls": "fct_llm_calls", "papers": "dim_papers"}
    assert STATISTIC_GATES.keys() == GATES.keys() - INPUT_GATES.keys()
    assert {**INPUT_GATES, **STATISTIC_GATES} == GATES


def test_no_input_model_reads_a_statistic_mart():
    # The input gates run between a build of the inputs and a build of the statistics; that only
    # works if building an input never needs a statistic.
    files = model_files()
    for model in INPUT_GATES.values():
        assert not ancestors(model, files) & set(STATISTIC_GATES.values()), model
    # ... and the check sees through refs at all: every statistic reaches back to the events.
    for model in STATISTIC_GATES.values():
        assert any(a.startswith("stg_events__") for a in ancestors(model, files)), model


def test_a_suite_without_a_stage_refuses_to_load(monkeypatch):
    # A suite in neither stage would run in neither build stage: fail at import, not silently.
    monkeypatch.delattr(suite_validity, "STAGE")
    spec = importlib.util.spec_from_file_location("gates_copy", gates.__file__)
    with pytest.raises(ImportError, match=r"need STAGE = 'inputs' or 'statistics'.*'validity': None"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
