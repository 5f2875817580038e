"""One row per (study, source, reviewer): ROUGE-1, ROUGE-L and BLEU-4 of its reviews against the human
reviews of the same papers (metrics.text.overlap_table says how pairs are made and averaged);
BERTScore null, flagged 'weights unavailable'. Texts from the blob store and the events."""


def model(dbt, session):
    dbt.config(materialized="table")
    from metrics.text.overlap_table import overlap_table
    from metrics.text.review_texts import review_text
    from warehouse import BlobStore, Lake

    blobs = BlobStore(Lake.default())  # PEERLAKE_HOME, exported by the orchestrator
    reviews = dbt.ref("int_score_prediction_reviews").df()
    humans = dbt.ref("stg_events__human_reviews").df()[["human_review_imported_id", "body_sha256"]]
    external = dbt.ref("stg_events__external_reviews").df()[["external_review_imported_id", "body_sha256"]]
    calls = dbt.ref("stg_events__llm_calls").filter("purpose = 'review'").df()[["llm_call_id", "response_text"]]
    systems = dbt.ref("stg_events__system_reviews").df()[["system_review_id", "review"]]
    bodies = dict(zip(humans.iloc[:, 0], humans.iloc[:, 1], strict=True))
    bodies.update(zip(external.iloc[:, 0], external.iloc[:, 1], strict=True))
    answers = dict(zip(calls["llm_call_id"], calls["response_text"], strict=True))
    normalized = dict(zip(systems["system_review_id"], systems["review"], strict=True))
    reviews["text"] = [review_text(source, body_sha256=bodies.get(ev), response_text=answers.get(ev),
                                   review_json=normalized.get(ev), get_text=blobs.get_text)
                       for source, ev in zip(reviews["source"], reviews["review_event_id"], strict=True)]
    return overlap_table(reviews)
