"""The report a person reads first: one row per study and reviewer configuration."""

import json

from dagster import AssetExecutionContext, AssetKey, DataVersion, MaterializeResult, MetadataValue, asset

from peerlake.orchestration.assets.dbt import DUCKDB_TAG
from peerlake.orchestration.assets.hashing import content_version
from peerlake.orchestration.resources import LakeResource
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


@asset(group_name="reports", op_tags=DUCKDB_TAG,
       # Reads these marts from the published file, so it runs after (and only after) a publish.
       deps=[AssetKey("published_marts"), AssetKey("reliability_repeatability"), AssetKey("cost_by_model"),
             AssetKey("fct_ai_review_scores"), AssetKey("fct_llm_calls")],
       description="Summary per study and reviewer configuration over the published marts: papers, reviews, "
                   "mean score, within-paper SD, tokens, cost.")
def review_summary(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    root = lake.lake()
    rows = read_summary(root.duckdb_path)
    out = root.root / "reports" / "review_summary.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1, default=str))
    header = ("| study | reviewer_config | template | model | papers | reviews | mean score | within-paper SD "
              "| tokens | cost USD |")
    lines = [header, "|" + "---|" * 10]
    for r in rows:
        lines.append(f"| {r['study_id']} | `{r['reviewer_config']}` | {r['prompt_template']} "
                     f"`{r['prompt_hash']}` | {r['model']} | "
                     f"{r['papers']} | {r['reviews']} | {_f(r['mean_score'])} | {_f(r['within_paper_sd'])} | "
                     f"{r['total_tokens']} | {_f(r['cost_usd'], 4)} |")
    return MaterializeResult(
        metadata={"summary": MetadataValue.md("\n".join(lines)), "path": str(out), "configurations": len(rows)},
        data_version=DataVersion(content_version([json.dumps(r, default=str, sort_keys=True) for r in rows])),
    )


def _f(x, nd: int = 2) -> str:
    return "—" if x is None else f"{x:.{nd}f}"
