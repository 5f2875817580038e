"""Reliability §5: forced-decimal vs integer scores of the same model (the integer control on its
first five rounds) — mean shift, within-paper SD and MAE against humans, with paired paper-bootstrap
95% intervals."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.distribution.granularity import granularity_table

    cfg = (dbt.config.get("meta") or {}).get
    # Pairs, H_i and invalid counts from int_granularity_papers; the scores themselves, so the
    # integer control can be cut to exactly its first five rounds. Only the columns and the
    # configurations granularity_table reads: every column of every score was ~1 GB in pandas at
    # 1 M review calls (the build's memory peak).
    papers = dbt.ref("int_granularity_papers")
    configs = papers.project("integer_config as reviewer_config").union(
        papers.project("decimal_config as reviewer_config")).distinct()
    scores = dbt.ref("int_study_review_scores").project(
        "study_id, reviewer_config, paper_id, sample_index, overall_score, is_parsed").join(
        configs, "reviewer_config", how="semi")
    return granularity_table(papers.df(), scores.df(), n_boot=int(cfg("n_boot")), seed=int(cfg("seed")))
