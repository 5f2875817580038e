"""The first tables a person reads, over the published marts: one row per study and reviewer configuration
(`peerlake demo`, `run`, the review_summary asset) and each judged review's PRISM profile. Kept apart from
the Dagster asset, so a command that only prints them (a demo rerun with nothing new) never loads Dagster."""

from peerlake.warehouse import marts_reader

SUMMARY_SQL = """
with scores as (
    select study_id,
           reviewer_config,
           any_value(provider) as provider,
           any_value(model) as model,
           any_value(prompt_template) as prompt_template,
           any_value(left(prompt_hash, 12)) as prompt_hash,
           count(distinct paper_id) as papers,
           count(*) as reviews,
           count(*) filter (where not is_parsed) as unparsed_reviews,
           avg(overall_score) filter (where is_parsed) as mean_score
    from fct_ai_review_scores
    group by study_id, reviewer_config
),
-- tokens and cost of the answers the study counts, whichever study paid for them (cost_by_study
-- splits paid from replayed)
calls as (
    select s.study_id,
           s.reviewer_config,
           sum(coalesce(c.input_tokens, 0) + coalesce(c.output_tokens, 0)) as total_tokens,
           sum(c.cost_usd) as cost_usd,
           count(*) filter (where c.cost_usd is null) as calls_with_unknown_cost
    from fct_ai_review_scores s
    inner join fct_llm_calls c using (llm_call_id)
    group by s.study_id, s.reviewer_config
)
select s.*, r.within_paper_sd, c.total_tokens, c.cost_usd, c.calls_with_unknown_cost
from scores s
left join reliability_repeatability r using (study_id, reviewer_config)
left join calls c using (study_id, reviewer_config)
order by s.study_id, s.prompt_template, s.model, s.reviewer_config
"""


def read_quality(duckdb_path, study: str) -> list[dict]:
    """The study's judged reviews from the quality_reviews mart, each judge's headline metrics side by
    side (empty when the published file predates that mart)."""
    with marts_reader.published(duckdb_path) as marts:
        if "quality_reviews" not in marts.tables():
            return []
        return marts.rows("select * exclude (quality_review_id, study_id) replace (left(system, 16) as system) "
                          "from quality_reviews where study_id = $study order by paper_id, source, review_key",
                          {"study": study})


def read_summary(duckdb_path) -> list[dict]:
    return marts_reader.rows(duckdb_path, SUMMARY_SQL)
