"""Semantic consistency between AI reviews: per study, polarity, within- or
cross-configuration comparison and configuration pair, the mean matched-cosine similarity S of the
reviews' item lists (paper first, then overall) with a paper-bootstrap interval. Items are embedded by
llm_calls.embeddings (cached in the lake's vector store); S and the table by metrics.stats.consistency.
A study whose items are unchanged keeps its rows from the last build (metrics.stats.memo): its items are
hashed in DuckDB, and only the changed studies' items are read into pandas and embedded."""

ITEM_COLUMNS = ["study_review_id", "paper_id", "reviewer_config", "reviewer_label", "polarity", "item_index",
                "text_sha256"]


def model(dbt, session):
    dbt.config(materialized="table")
    import pandas as pd

    from llm_calls.embeddings import MODEL_HASH, MODEL_NAME, embed_counted
    from metrics.stats.consistency import consistency_table
    from metrics.stats.memo import previous_table, recompute_changed_relation

    cfg = (dbt.config.get("meta") or {}).get
    n_resamples, seed = int(cfg("n_resamples")), int(cfg("seed"))
    items = dbt.ref("int_review_items")
    # hashed by text_sha256; read without it (at 1 M reviews, ~6 M item rows: every column counts)
    needed = ["study_id", *(c for c in ITEM_COLUMNS if c != "text_sha256"), "text"]
    computed = [0]

    def per_study(part):
        # each distinct text once: repeated reviews repeat items word for word, and a vector per item
        # row would be 1.5 kB × every item of every review
        codes, texts = pd.factorize(part["text"], sort=True)  # codes independent of the row order
        embedded = embed_counted(list(texts))  # the lake root comes from warehouse.settings
        computed[0] += embedded.n_computed
        return consistency_table(part.drop(columns="text"), embedded.vectors, n_resamples=n_resamples, seed=seed,
                                 embedding_model=MODEL_NAME, embedding_model_hash=MODEL_HASH,
                                 vector_of_item=codes, n_computed=0, n_cached=0)

    out = recompute_changed_relation(items.project(", ".join(["study_id", *ITEM_COLUMNS])), ["study_id"], per_study,
                                     previous_table(session, dbt.this), salt=f"{n_resamples}|{seed}|{MODEL_HASH}",
                                     hash_columns=ITEM_COLUMNS, rows=items.project(", ".join(needed)))
    # What this build embedded or found, on every row (kept rows were written by an earlier build). An
    # unchanged study's texts are not looked up: they were embedded when its rows were computed, so they
    # count as found in the store.
    n_distinct = items.aggregate("count(distinct text)").fetchall()[0][0]
    return out.assign(n_embeddings_computed=computed[0], n_embeddings_cached=n_distinct - computed[0])
