"""The revision marts built by real dbt on a lake with no revision study: every mart exists, is empty, has the
columns its gate reads, and the gates pass (the arithmetic is pinned in tests/metrics/revision/)."""

import pytest

from peerlake.expectations import run_gate
from peerlake.expectations.gates import SUITES
from peerlake.warehouse import EventLog, Lake
from tests.dbt.test_marts import dbt_build
from tests.dbt.test_system_marts import rows

MARTS = ("revision_gains", "revision_cells", "revision_scorer_gaps", "revision_directions", "revision_noise_adjusted",
         "revision_selector_agreement", "revision_validation", "revision_cases")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("revision_lake")
    EventLog(Lake(root / "lake")).close()  # only the zero-row schema segments
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DBT_INDIRECT_SELECTION", "cautious")  # only tests whose every parent is built
        db, run_results = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                                    select=" ".join(f"+{m}" for m in MARTS))
    return db, run_results


def test_every_revision_mart_builds_empty(built):
    db, run_results = built
    ran = {r["unique_id"].split(".")[-1]: r["status"] for r in run_results["results"]}
    for mart in MARTS:
        assert ran.get(mart) == "success", (mart, ran.get(mart))
        assert rows(db, f"select count(*) as n from {mart}") == [{"n": 0}]


def test_the_gates_read_their_columns_and_pass(built):
    db, _ = built
    for name, suite in SUITES.items():
        if suite.MODEL in MARTS:
            result = run_gate(name, db)
            assert result.success, result.describe()


def test_the_revision_unit_tests_ran_and_passed(built):
    # one review per slot (the newest) and how an unchanged final is measured: int_revision.yml
    _, run_results = built
    ran = {r["unique_id"].split(".")[-1]: r["status"] for r in run_results["results"]}
    for name in ("test_int_revision_scores_fills_each_slot_with_the_newest_review",
                 "test_int_revision_outcomes_says_how_an_unchanged_final_is_measured"):
        assert ran.get(name) == "pass", (name, ran.get(name))
