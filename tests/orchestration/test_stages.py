"""The two dbt stages: no statistic is built before every input gate passed on the candidate."""

from dagster import AssetKey


def test_every_statistic_waits_for_the_input_gates(lake):
    from peerlake.orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()
    from peerlake.orchestration.assets.dbt import AUDITED_INPUTS, INPUT_MARTS, MART_KEYS, dbt_statistics
    from peerlake.orchestration.definitions import defs

    graph = defs.resolve_asset_graph()
    inputs = {AssetKey(m) for m in INPUT_MARTS}
    assert {"fct_ai_review_scores", "fct_llm_calls", "fct_human_reviews", "dim_papers"} <= set(INPUT_MARTS)
    # audited_inputs runs after the input marts, hence after their blocking gates...
    assert graph.get(AUDITED_INPUTS).parent_keys == inputs
    checked = {k.asset_key for k in graph.asset_check_keys if k.name.startswith("gx_")}
    assert inputs <= checked
    # ... and every statistic mart is downstream of it, even those reading intermediate models
    # rather than the gated marts (lineage alone would not hold them back).
    downstream, todo = set(), [AUDITED_INPUTS]
    while todo:
        for child in graph.get(todo.pop()).child_keys:
            if child not in downstream:
                downstream.add(child)
                todo.append(child)
    statistics = [k for k in MART_KEYS if k not in inputs]
    assert AssetKey("reliability_repeatability") in statistics
    assert [k.to_user_string() for k in statistics if k not in downstream] == []
    assert set(statistics) <= set(dbt_statistics.keys)
    assert AssetKey("published_marts") in downstream


def test_no_dbt_test_spans_the_two_stages(lake):
    """A test on models of both stages would run in stage 1 (dbt selects a test when any model it
    reads is selected) before its stage-2 table exists: a fresh lake's first build would fail."""
    import json

    from peerlake.orchestration.runner import prepare_dbt_manifest

    prepare_dbt_manifest()
    from peerlake.orchestration.assets.dbt import _stage_one_ids
    from peerlake.orchestration.project import peerlake_dbt

    manifest = json.loads(peerlake_dbt.manifest_path.read_text())
    stage_one = _stage_one_ids(manifest)
    spanning = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "test":
            continue
        models = {p for p in node["depends_on"]["nodes"] if p.startswith("model.")}
        if models & stage_one and models - stage_one:
            spanning.append(node["name"])
    assert spanning == []
