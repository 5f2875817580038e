"""One row per (study, source, reviewer): ROUGE-1, ROUGE-L and BLEU-4 of its reviews against the human
reviews of the same papers (metrics.text.overlap says how pairs are made and averaged);
BERTScore null, flagged 'weights unavailable'. Texts from the blob store and the events. A study whose
reviews (immutable events, content-addressed blobs) are unchanged keeps its rows (metrics.stats.memo):
its reviews are hashed in DuckDB, and only the changed studies' reviews and texts are read."""

REVIEW_COLUMNS = ["review_key", "paper_id", "source", "reviewer", "review_event_id"]


def model(dbt, session):
    dbt.config(materialized="table")
    import pandas as pd

    import judging.reviews
    from metrics.stats.memo import previous_table, recompute_changed_relation, source_version
    from metrics.text import overlap, review_texts
    from warehouse import Lake
    from warehouse.blobs import blob_store

    blobs = blob_store(Lake.default())  # PEERLAKE_HOME (and PEERLAKE_LAKE_URL), exported by the orchestrator
    reviews = dbt.ref("int_score_prediction_reviews").project(", ".join(["study_id", *REVIEW_COLUMNS]))

    def texts(relation, event_id: str, column: str, events) -> dict:
        # only the events of the reviews being scored: at 1 M reviews, every answer's text is gigabytes
        found = relation.join(events, f"{event_id} = review_event_id", how="semi")
        return dict(found.project(f"{event_id}, {column}").fetchall())

    def per_study(part):  # the changed studies' reviews
        events = session.from_df(pd.DataFrame({"review_event_id": part["review_event_id"].unique()}))
        bodies = texts(dbt.ref("stg_events__human_reviews"), "human_review_imported_id", "body_sha256", events)
        bodies.update(texts(dbt.ref("stg_events__external_reviews"), "external_review_imported_id", "body_sha256",
                            events))
        answers = texts(dbt.ref("stg_events__llm_calls").filter("purpose = 'review'"), "llm_call_id", "response_text",
                        events)
        normalized = texts(dbt.ref("stg_events__system_reviews"), "system_review_id", "review", events)
        event_of = dict(zip(part["review_key"], zip(part["source"], part["review_event_id"], strict=True),
                            strict=True))

        def text_of(review_key):  # read only the reviews that have something to be compared with
            source, ev = event_of[review_key]
            return review_texts.review_text(source, body_sha256=bodies.get(ev), response_text=answers.get(ev),
                                            review_json=normalized.get(ev), get_text=blobs.get_text)

        return overlap.overlap_table(part, text_of)

    return recompute_changed_relation(reviews, ["study_id"], per_study, previous_table(session, dbt.this),
                                      salt=source_version(overlap, review_texts, judging.reviews))
