"""One row per (study, review) of int_score_prediction_reviews: whether the review has text and, when
it was compared with its paper's human reviews, its ROUGE-1, ROUGE-L and BLEU-4 averaged over them
(metrics.text.overlap.review_scores); text_overlap averages these per reviewer. A row depends only on
its paper's reviews (immutable events, content-addressed blobs), so a paper whose reviews are
unchanged keeps its rows (metrics.stats.memo): reviews are hashed per (study, paper) in DuckDB, and
only the changed papers' reviews and texts are read, a slice of papers at a time."""

REVIEW_COLUMNS = ["review_key", "paper_id", "source", "reviewer", "review_event_id"]
# reviews whose texts are held at once: at 1 M reviews every answer's text is gigabytes of Python
# strings; 100 k of them (whole papers) are ~150 MB, at the price of a DuckDB scan of the texts per slice
SLICE_REVIEWS = 100_000


def model(dbt, session):
    dbt.config(materialized="table")
    import pandas as pd

    from peerlake.judging import reviews as judged_reviews
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation, source_version
    from peerlake.metrics.text import overlap, review_texts
    from peerlake.warehouse import Lake
    from peerlake.warehouse.blobs import blob_store

    blobs = blob_store(Lake.default())  # PEERLAKE_HOME (and PEERLAKE_LAKE_URL), exported by the orchestrator
    reviews = dbt.ref("int_score_prediction_reviews").project(", ".join(["study_id", *REVIEW_COLUMNS]))

    def texts(relation, event_id: str, column: str, events) -> dict:
        # only the events of the reviews being scored
        found = relation.join(events, f"{event_id} = review_event_id", how="semi")
        return dict(found.project(f"{event_id}, {column}").fetchall())

    def scores(part: pd.DataFrame) -> pd.DataFrame:  # whole papers' reviews
        events = session.from_df(pd.DataFrame({"review_event_id": part["review_event_id"].dropna().unique()}))
        bodies = texts(dbt.ref("stg_events__human_reviews"), "human_review_imported_id", "body_sha256", events)
        bodies.update(texts(dbt.ref("stg_events__external_reviews"), "external_review_imported_id", "body_sha256",
                            events))
        answers = texts(dbt.ref("stg_events__llm_calls").filter("purpose = 'review'"), "llm_call_id", "response_text",
                        events)
        normalized = texts(dbt.ref("stg_events__system_reviews"), "system_review_id", "review", events)
        event_of = dict(zip(part["review_key"], zip(part["source"], part["review_event_id"], strict=True),
                            strict=True))

        def text_of(review_key):
            source, ev = event_of[review_key]
            return review_texts.review_text(source, body_sha256=bodies.get(ev), response_text=answers.get(ev),
                                            review_json=normalized.get(ev), get_text=blobs.get_text)

        return overlap.review_scores(part, text_of)

    def compute(rows) -> pd.DataFrame:  # rows: the changed papers' reviews, a relation (nothing read yet)
        frame = rows.query("inputs", f"""
            with papers as (
                select study_id, paper_id, count(*) as n from inputs group by all
            ), sliced as (
                select study_id, paper_id,
                       (sum(n) over (order by study_id, paper_id rows unbounded preceding) - n) // {SLICE_REVIEWS}
                           as slice
                from papers
            )
            select inputs.*, sliced.slice from inputs
            join sliced on inputs.study_id is not distinct from sliced.study_id
                       and inputs.paper_id is not distinct from sliced.paper_id
            order by inputs.study_id, inputs.paper_id, inputs.review_key""").df()
        if frame.empty:
            return overlap.review_scores(frame.drop(columns="slice"))
        return pd.concat([scores(part.drop(columns="slice")) for _, part in frame.groupby("slice", sort=True)],
                         ignore_index=True)

    return recompute_changed_relation(reviews, ["study_id", "paper_id"], compute, previous_table(session, dbt.this),
                                      salt=source_version(overlap, review_texts, judged_reviews),
                                      load=lambda rel: rel, session=session)
