"""The judge's bias probes per (study, judge configuration, probe, dimension): the shift a controlled variant
makes (variant − original, paired) or, for self-preference, same-family − other-family rows, with a 95 %
interval, n, the declared tolerance and pass / fail / inconclusive."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.quality.probes import probe_table

    resolutions = dbt.ref("int_studies_latest").filter("resolved_by_asset = 'judge_probes'") \
        .project("study_id, cast(judges as varchar) as judges").df()
    return probe_table(dbt.ref("int_judge_probe_pairs").df(), dbt.ref("int_judge_probe_self_preference").df(),
                       resolutions)
