"""One row per (study, source, reviewer): ROUGE-1, ROUGE-L and BLEU-4 of its reviews against the human
reviews of the same papers (metrics.text.overlap says how pairs are made and averaged);
BERTScore null, flagged 'weights unavailable'. Averaged from the per-review scores of
int_text_overlap_reviews (recomputed per paper). A study whose review scores are unchanged keeps its
rows (metrics.stats.memo): the scores are hashed in DuckDB, and only the changed studies' are read."""


def model(dbt, session):
    dbt.config(materialized="table")
    from peerlake.metrics.stats.memo import previous_table, recompute_changed_relation, source_version
    from peerlake.metrics.text import overlap

    scores = dbt.ref("int_text_overlap_reviews").project(", ".join(overlap.REVIEW_COLUMNS))

    def load(rows):
        # one order whatever the scan order, so the means add up in the same order every build
        return rows.order("study_id, paper_id, review_key").df()

    return recompute_changed_relation(scores, ["study_id"], overlap.table_from_review_scores,
                                      previous_table(session, dbt.this), salt=source_version(overlap), load=load,
                                      session=session)
