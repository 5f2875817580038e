"""Per study, polarity, paper and configuration pair with a review pair: S summed over the paper's review
pairs, their number, and each configuration's reviews and items at the paper — all a paper contributes
to review_consistency, which bootstraps over papers (metrics.stats.consistency.paper_sums). Items are
embedded by llm_calls.embeddings (cached in the lake's vector store). A paper whose items are unchanged
keeps its rows from the last build (metrics.stats.memo): items are hashed per (study, paper) in DuckDB,
and only the changed papers' items are read — as codes, not strings (coded_frame) — and embedded."""

ITEM_COLUMNS = ["study_review_id", "paper_id", "reviewer_config", "reviewer_label", "polarity", "item_index",
                "text_sha256"]


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.llm_calls.embeddings import MODEL_HASH, embed_counted
    from peerlake.metrics.stats.consistency import paper_sums
    from peerlake.metrics.stats.memo import coded_frame, previous_table, recompute_changed_relation

    items = dbt.ref("int_review_items")
    computed = [0]

    def load(rows):
        # at 1 M reviews, ~6 M item rows: as strings they were ~0.5 GB a column; as codes 4 bytes.
        # Text codes follow text order, so the distinct texts are embedded in the order they always were.
        frame = coded_frame(rows.project("study_id, study_review_id, paper_id, reviewer_config, polarity, "
                                         "item_index, text"),
                            categorical=["study_id", "paper_id", "reviewer_config", "polarity"],
                            ordinal=["study_review_id", "text"])
        texts = [r[0] for r in rows.query("inputs", "select distinct text from inputs order by 1").fetchall()]
        labels = dict(rows.query("inputs", "select reviewer_config, any_value(reviewer_label) from inputs "
                                           "group by all").fetchall())
        return frame, texts, labels

    def compute(loaded):
        frame, texts, labels = loaded
        embedded = embed_counted(texts)  # the lake root comes from warehouse.settings
        computed[0] += embedded.n_computed
        sums = paper_sums(frame, embedded.vectors, vector_of_item=frame["text"].to_numpy())
        return sums.assign(label_a=sums["config_a"].map(labels).astype("string"),
                           label_b=sums["config_b"].map(labels).astype("string"),
                           n_embeddings_computed=0, n_embeddings_cached=0)

    out = recompute_changed_relation(items.project(", ".join(["study_id", *ITEM_COLUMNS])), ["study_id", "paper_id"],
                                     compute, previous_table(session, dbt.this), salt=MODEL_HASH,
                                     hash_columns=ITEM_COLUMNS, rows=items, load=load, session=session)
    # What this build embedded or found, on every row (kept rows were written by an earlier build). An
    # unchanged paper's texts are not looked up: they were embedded when its rows were computed, so they
    # count as found in the store.
    n_distinct = items.aggregate("count(distinct text)").fetchall()[0][0]
    return out.project(f"* replace ({computed[0]}::bigint as n_embeddings_computed, "
                       f"{n_distinct - computed[0]}::bigint as n_embeddings_cached)")
