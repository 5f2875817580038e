"""One row per score probe: r_i(s) over 1..10 from the score token's top logprobs (read from the
blob store), split "1" into 1 and 10 with the forced-10 continuation, or a parse_error."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.distribution.probe import parse_probes
    from peerlake.warehouse import Lake
    from peerlake.warehouse.blobs import blob_store

    blobs = blob_store(Lake.default())  # PEERLAKE_HOME (and PEERLAKE_LAKE_URL), exported by the orchestrator
    calls = dbt.ref("stg_events__llm_calls").filter(
        "purpose in ('score_probe', 'score_probe_continuation') and is_duplicate_success is not true").df()
    return parse_probes(calls, blobs.get_text)
