"""Per (study, reviewer configuration): σ, the within-paper noise the stress cards measure shifts in — seed 001's
sqrt(V̂) (metrics.stats.repeatability.variance_table: the root of the mean over papers with ≥ 2 parsed scores
of each paper's unbiased variance), on the study's original papers only: a variant's scores are what the
suite tests, and an edit that makes a reviewer unsure would otherwise widen the band it is judged by."""

SCORE_COLUMNS = ["study_id", "reviewer_config", "paper_id", "sample_index", "overall_score"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.repeatability import variance_table

    # only the studies with a stress pair: the scores of every study would all pass through pandas (a million
    # reviews at scale) for the few that run an experiment with variants
    pairs = dbt.ref("int_stress_pairs").df()
    variants = dbt.ref("stg_events__paper_variants").filter("is_built").df()
    studies = ", ".join("'" + s.replace("'", "''") + "'" for s in sorted(set(pairs["study_id"]))) or "null"
    scores = dbt.ref("int_study_review_scores").filter(
        f"is_parsed and source = 'peerlake' and study_id in ({studies})").df()[SCORE_COLUMNS]
    return variance_table(scores[~scores["paper_id"].isin(variants["variant_id"])])
