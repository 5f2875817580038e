"""Semantic consistency between AI reviews: per study, polarity, within- or
cross-configuration comparison and configuration pair, the mean matched-cosine similarity S of the
reviews' item lists (paper first, then overall) with a paper-bootstrap interval. Items are embedded by
llm_calls.embeddings (cached in the lake's vector store); S and the table by metrics.stats.consistency.
A study whose items are unchanged keeps its rows from the last build (metrics.stats.memo)."""

ITEM_COLUMNS = ["study_review_id", "paper_id", "reviewer_config", "reviewer_label", "polarity", "item_index",
                "text_sha256"]


def model(dbt, session):
    dbt.config(materialized="table")
    import pandas as pd

    from llm_calls.embeddings import MODEL_HASH, MODEL_NAME, embed_counted
    from metrics.stats.consistency import consistency_table
    from metrics.stats.memo import previous_table, recompute_changed

    cfg = (dbt.config.get("meta") or {}).get
    n_resamples, seed = int(cfg("n_resamples")), int(cfg("seed"))
    items = dbt.ref("int_review_items").df()
    # each distinct text once: repeated reviews repeat items word for word, and a vector per item
    # row would be 1.5 kB × every item of every review
    codes, texts = pd.factorize(items["text"], sort=True)  # codes independent of the row order
    embedded = embed_counted(list(texts))  # the lake root comes from warehouse.settings
    counts = {"n_embeddings_computed": embedded.n_computed, "n_embeddings_cached": embedded.n_cached}
    inputs = items[["study_id", *ITEM_COLUMNS]].assign(vector=codes)

    def per_study(part):
        return consistency_table(part.drop(columns="vector"), embedded.vectors, n_resamples=n_resamples, seed=seed,
                                 embedding_model=MODEL_NAME, embedding_model_hash=MODEL_HASH,
                                 vector_of_item=part["vector"].to_numpy(), **{
                                     k.replace("n_embeddings_", "n_"): v for k, v in counts.items()})

    out = recompute_changed(inputs, ["study_id"], per_study, previous_table(session, dbt.this),
                            salt=f"{n_resamples}|{seed}|{MODEL_HASH}", hash_columns=ITEM_COLUMNS)
    # what this build embedded or found, on every row (kept rows were written by an earlier build)
    return out.assign(**counts)
