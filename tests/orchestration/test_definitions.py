"""The Dagster entry point loads, and its lineage is one connected graph from PDFs to the report."""

from dagster import AssetKey


def _graph():
    from orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()
    from orchestration.definitions import defs

    return defs, defs.resolve_asset_graph()


def test_lineage_runs_from_papers_to_the_report(lake):
    _, graph = _graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"papers", "manuscripts", "human_reviews", "ai_reviews", "fct_ai_review_scores",
            "reliability_repeatability", "cost_by_model", "fct_llm_calls", "review_summary"} <= keys
    # dbt sources are the ingest assets themselves, not separate nodes
    assert AssetKey("ai_reviews") in graph.get(AssetKey("stg_events__llm_calls")).parent_keys
    assert AssetKey("manuscripts") in graph.get(AssetKey("stg_events__papers")).parent_keys
    assert not any(k.path[0] == "events" for k in graph.get_all_asset_keys())
    upstream = graph.get(AssetKey("review_summary")).parent_keys
    assert AssetKey("reliability_repeatability") in upstream


def test_reviews_code_version_is_the_reviewer_configuration(lake):
    from reviewing.scoring import ReviewerConfig

    _, graph = _graph()
    assert graph.get(AssetKey("ai_reviews")).code_version == ReviewerConfig.default().code_version()


def test_gates_are_blocking_checks_on_the_marts(lake):
    _, graph = _graph()
    checks = {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys}
    assert ("fct_ai_review_scores", "gx_ai_review_scores") in checks
    assert ("fct_llm_calls", "gx_llm_calls") in checks
    from orchestration.definitions import CHECKS

    assert all(spec.blocking for c in CHECKS for spec in c.check_specs)
