"""One row per (study, source, reviewer): ROUGE-1, ROUGE-L and BLEU-4 of its reviews against the human
reviews of the same papers (metrics.text.overlap says how pairs are made and averaged);
BERTScore null, flagged 'weights unavailable'. Texts from the blob store and the events. A study whose
reviews (immutable events, content-addressed blobs) are unchanged keeps its rows (metrics.stats.memo)."""

REVIEW_COLUMNS = ["review_key", "paper_id", "source", "reviewer", "review_event_id"]


def model(dbt, session):
    dbt.config(materialized="table")
    import judging.reviews
    from metrics.stats.memo import previous_table, recompute_changed, source_version
    from metrics.text import overlap, review_texts
    from warehouse import Lake
    from warehouse.blobs import blob_store

    blobs = blob_store(Lake.default())  # PEERLAKE_HOME (and PEERLAKE_LAKE_URL), exported by the orchestrator
    reviews = dbt.ref("int_score_prediction_reviews").df()[["study_id", *REVIEW_COLUMNS]]
    humans = dbt.ref("stg_events__human_reviews").df()[["human_review_imported_id", "body_sha256"]]
    external = dbt.ref("stg_events__external_reviews").df()[["external_review_imported_id", "body_sha256"]]
    calls = dbt.ref("stg_events__llm_calls").filter("purpose = 'review'").df()[["llm_call_id", "response_text"]]
    systems = dbt.ref("stg_events__system_reviews").df()[["system_review_id", "review"]]
    bodies = dict(zip(humans.iloc[:, 0], humans.iloc[:, 1], strict=True))
    bodies.update(zip(external.iloc[:, 0], external.iloc[:, 1], strict=True))
    answers = dict(zip(calls["llm_call_id"], calls["response_text"], strict=True))
    normalized = dict(zip(systems["system_review_id"], systems["review"], strict=True))
    event_of = dict(zip(reviews["review_key"], zip(reviews["source"], reviews["review_event_id"], strict=True),
                        strict=True))

    def text_of(review_key):  # read only the reviews that have something to be compared with
        source, ev = event_of[review_key]
        return review_texts.review_text(source, body_sha256=bodies.get(ev), response_text=answers.get(ev),
                                        review_json=normalized.get(ev), get_text=blobs.get_text)

    return recompute_changed(reviews, ["study_id"], lambda part: overlap.overlap_table(part, text_of),
                             previous_table(session, dbt.this),
                             salt=source_version(overlap, review_texts, judging.reviews))
