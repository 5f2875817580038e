"""Semantic consistency between AI reviews (issue #12 section 3): per study, polarity, within- or
cross-configuration comparison and configuration pair, the mean matched-cosine similarity S of the
reviews' item lists (paper first, then overall) with a paper-bootstrap interval. Items are embedded by
llm_calls.embeddings (cached in the lake's vector store); S and the table by metrics.stats.consistency."""


def model(dbt, session):
    dbt.config(materialized="table")
    from llm_calls.embeddings import MODEL_HASH, MODEL_NAME, embed_counted
    from metrics.stats.consistency import consistency_table

    cfg = (dbt.config.get("meta") or {}).get
    items = dbt.ref("int_review_items").df()
    embedded = embed_counted(items["text"].tolist())  # the lake root comes from warehouse.settings
    return consistency_table(items, embedded.vectors, n_resamples=int(cfg("n_resamples")), seed=int(cfg("seed")),
                             embedding_model=MODEL_NAME, embedding_model_hash=MODEL_HASH,
                             n_computed=embedded.n_computed, n_cached=embedded.n_cached)
