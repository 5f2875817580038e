"""The stress cards (#49): per study, reviewer configuration, family and edit (and 'all' per family), the
paired score shift variant − original with a seeded paper-bootstrap interval, in score points and in units
of the reviewer's own noise σ, sensitivity, invariance, discrimination, gameability with a Wilson interval,
detection of soundness edits and a verdict against the study's [stress] tolerances. metrics.stress."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stress import cards_table

    cfg = (dbt.config.get("meta") or {}).get
    return cards_table(dbt.ref("int_stress_pairs").df(), dbt.ref("int_stress_noise").df(),
                       dbt.ref("int_stress_tolerances").df(), seed=int(cfg("seed")))
