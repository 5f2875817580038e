"""Semantic consistency between AI reviews: per study, polarity, within- or
cross-configuration comparison and configuration pair, the mean matched-cosine similarity S of the
reviews' item lists (paper first, then overall) with a paper-bootstrap interval. S is summed per paper by
int_consistency_paper_sums (which embeds the items); the table follows from those sums by
metrics.stats.consistency. A study whose per-paper sums are unchanged keeps its rows from the last build
(metrics.stats.memo): the sums are hashed in DuckDB, and only the changed studies' sums are read."""

SUM_COLUMNS = ["polarity", "paper_id", "config_a", "config_b", "label_a", "label_b", "s_sum", "n_pairs",
               "n_reviews_a", "n_items_a", "n_reviews_b", "n_items_b"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.llm_calls.embeddings import MODEL_HASH, MODEL_NAME
    from peerlake.metrics.stats.consistency import table_from_paper_sums
    from peerlake.metrics.stats.memo import coded_frame, previous_table, recompute_changed_relation

    cfg = (dbt.config.get("meta") or {}).get
    n_resamples, seed = int(cfg("n_resamples")), int(cfg("seed"))
    sums = dbt.ref("int_consistency_paper_sums").project(", ".join(["study_id", *SUM_COLUMNS]))

    def load(rows):
        # ~1 M sum rows per study at 1 M reviews: the key columns as categoricals, not a string a row
        frame = coded_frame(rows, categorical=["study_id", "polarity", "paper_id", "config_a", "config_b"])
        labels = dict(rows.query("inputs", "select config_a, label_a from inputs union "
                                           "select config_b, label_b from inputs").fetchall())
        return frame.drop(columns=["label_a", "label_b"]), labels

    def compute(loaded):
        frame, labels = loaded
        return table_from_paper_sums(frame, labels, n_resamples=n_resamples, seed=seed, embedding_model=MODEL_NAME,
                                     embedding_model_hash=MODEL_HASH, n_computed=0, n_cached=0)

    out = recompute_changed_relation(sums, ["study_id"], compute, previous_table(session, dbt.this),
                                     salt=f"{n_resamples}|{seed}|{MODEL_HASH}", load=load, session=session)
    # the embedding counts of this build, which embedded in int_consistency_paper_sums
    counts = dbt.ref("int_consistency_paper_sums").aggregate(
        "coalesce(max(n_embeddings_computed), 0), coalesce(max(n_embeddings_cached), 0)").fetchall()[0]
    return out.project(f"* replace ({counts[0]}::bigint as n_embeddings_computed, "
                       f"{counts[1]}::bigint as n_embeddings_cached)")
