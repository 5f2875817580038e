"""`peerlake ui`: the Dagster instance peerlake writes opens without the "Join the Dagster community"
modal (the UI shows it while the instance's nux is enabled and this browser has not seen it) and
sends no telemetry."""


def test_the_lakes_dagster_instance_has_the_community_modal_and_telemetry_off(tmp_path, monkeypatch):
    from peerlake.orchestration.runner import dagster_instance

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    instance = dagster_instance()
    # dagster_graphql's shouldShowNux is `instance.nux_enabled and not get_has_seen_nux()`
    assert instance.nux_enabled is False
    assert instance.telemetry_enabled is False
