"""The report a person reads first: one row per study and reviewer configuration."""

import json

from dagster import AssetExecutionContext, AssetKey, DataVersion, MaterializeResult, MetadataValue, asset

from peerlake.orchestration.assets.dbt import DUCKDB_TAG
from peerlake.orchestration.assets.hashing import content_version
from peerlake.orchestration.resources import LakeResource
from peerlake.report.summary import read_summary


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
