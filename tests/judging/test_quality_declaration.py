"""A review-quality judge is declared once, in its module: the dbt models read the same declaration
(dbt_project.yml's `quality_judges` var, which the union models are generated from), and the registry
refuses a quality judge that does not say which metrics it yields."""

import types
from pathlib import Path

import pytest
import yaml

from peerlake.judging import registry
from peerlake.judging.base import ReviewMetric

PROJECT = Path(__file__).resolve().parents[2] / "dbt_project"


def test_dbt_reads_the_judges_own_declaration():
    declared = yaml.safe_load((PROJECT / "dbt_project.yml").read_text())["vars"]["quality_judges"]
    assert declared == registry.quality_declaration(), (
        "dbt_project.yml's quality_judges var no longer matches the judge modules: write it from "
        "peerlake.judging.registry.quality_declaration()")


def test_every_quality_judge_has_an_int_quality_model_per_review_and_per_repeat():
    # the names the generated SQL refs (macros/quality_judges.sql): int_quality_<judge>{,_repeats}
    models = {p.stem for p in (PROJECT / "models" / "intermediate").glob("int_quality_*.sql")}
    for entry in registry.quality_declaration():
        assert {f"int_quality_{entry['judge']}", f"int_quality_{entry['judge']}_repeats"} <= models


def test_the_prism_headline_metrics_in_prism_order():
    assert [m.name for m in registry.review_metrics() if m.headline] == ["doa", "ns", "recall_critical", "ncps",
                                                                          "mcs"]


def test_a_quality_judge_without_metrics_is_refused_with_what_to_do():
    module = types.ModuleType("peerlake.judging.counting")
    module.JUDGE, module.ORDER, module.SECTIONS = "counting", 9, None
    with pytest.raises(ImportError, match=r"needs METRICS = \(ReviewMetric"):
        registry._check_metrics(module)
    module.METRICS = (ReviewMetric("n_questions", "Questions: count"),)
    module.CARD_SCORE = "n_asked"
    with pytest.raises(ImportError, match="CARD_SCORE 'n_asked' is not one of its METRICS"):
        registry._check_metrics(module)
    module.CARD_SCORE = "n_questions"
    registry._check_metrics(module)  # declared: accepted


def test_hooks_replace_the_branches_on_judge_names():
    from peerlake.studies import JudgingSpec

    spec = JudgingSpec()
    assert registry.options_for("novelty", spec) == {"retrieval": spec.retrieval, "verify_top": spec.verify_top,
                                                     "claims_without_paper": spec.claims_without_paper}
    assert registry.options_for("depth", spec) == {}
    review = types.SimpleNamespace(review_key="human:a")
    assert registry.coverage_for("depth", [review]) == {"review_keys": ["human:a"]}
