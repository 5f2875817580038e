"""tests/lanes.py puts each test in its lane by what it reaches; these are the doors it must see, each
reached the way real tests reach it, and a plain unit test that must stay in the fast lane. (The
functions are named by strings: a name these tests used directly would be followed, and would put
them in the slow lane themselves.)"""

import importlib

from tests import lanes


def reached(where: str) -> frozenset[str]:
    module, name = where.split(":")
    return lanes.reached(getattr(importlib.import_module(module), name))


def test_a_dbt_subprocess_a_cli_run_and_a_dagster_materialization_are_pipeline():
    assert reached("tests.dbt.test_marts:dbt_build") == {"pipeline"}  # with_name("dbt") in subprocess.run
    assert reached("tests.orchestration.conftest:run_cli") == {"pipeline"}  # a module constant: peerlake
    assert reached("tests.orchestration.test_publish_guard:"
                   "test_publish_refuses_a_candidate_whose_gates_did_not_run") == {"pipeline"}  # materialize()


def test_a_helper_imported_inside_the_test_or_called_by_a_shared_fixture_is_followed():
    assert reached("tests.ingest.test_judgment_import:test_quality_marts_give_prisms_per_review_figures") == {
        "pipeline"}  # `from tests.dbt.test_marts import dbt_build` in its body
    assert reached("tests.audit.audit_lake:build_and_run") == {"pipeline"}  # the session's audit lake


def test_a_fixture_that_needs_the_model_files_is_model():
    assert reached("tests.llm_calls.test_tokens:llama_vocab") == {"model"}  # tests.embedded.require_model()


def test_a_unit_test_stays_in_the_fast_lane():
    assert reached("tests.llm_calls.test_tokens:"
                   "test_the_approximation_counts_four_characters_per_token_rounding_up") == frozenset()
