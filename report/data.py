"""Read what the report needs from the marts; a missing table or column becomes a note, not a crash."""

from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pandas as pd

from peerlake.audit.keys import HASHED_KEYS

# table → columns the report uses from it
NEEDS = {
    "fct_ai_review_scores": ["reviewer_config", "prompt_template", "model", "paper_id", "overall_score",
                             "is_parsed"],
    "reliability_repeatability": ["reviewer_config", "n_papers", "within_paper_sd"],
    "reliability_rank_reproducibility": ["reviewer_config", "k", "pct_same", "pct_tie", "pct_reverse"],
    "reliability_budgets": ["reviewer_config", "tolerance", "variance_hat", "variance_upper"],
    "reliability_validity": ["reviewer_config", "scope"],
    "reliability_granularity": ["granularity_pair_id", "integer_config", "decimal_config", "mean_shift"],
    "reliability_distribution_estimation": ["probe_config", "review_config", "method", "risk", "risk_ci_low",
                                            "risk_ci_high", "acceptance_auc"],
    "quality_comparison": ["system", "metric", "n_pairs", "mean_system", "mean_system_ci_low", "mean_system_ci_high",
                           "mean_human", "mean_human_ci_low", "mean_human_ci_high", "mean_diff", "ci_low", "ci_high",
                           "wilcoxon_p", "holm_p", "cliffs_delta", "magnitude", "skip_reason", "bootstrap_seed",
                           "n_resamples"],
    # every quality judge's metrics per source of reviews (report/quality.py reads the headline ones by name)
    "quality_sources": ["reviewed_by", "source", "system", "judge", "metric", "n_reviews_judged", "n_values",
                        "mean_value"],
    "system_summary": ["system_config", "system_name", "model", "is_scored", "n_papers", "n_reviews", "n_null_reviews",
                       "top_null_reason", "n_reviews_cost_unknown", "cost_per_review_mean_usd",
                       "reference_cost_per_review_usd"],
    "system_review_costs": ["system_config", "system_name", "paper_id", "sample_index", "is_scored", "overall_score"],
}


# The tables with a row per review (a million at scale) are read with only the columns the page uses (NEEDS,
# the study and the audit key's columns): `select *` there cost most of the page's build (#50).
LEAN = {"fct_ai_review_scores": [*NEEDS["fct_ai_review_scores"], "study_id", *HASHED_KEYS["fct_ai_review_scores"]]}


@dataclass
class ReportData:
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # table → why it is absent

    def get(self, name: str) -> pd.DataFrame | None:
        return self.tables.get(name)

    def only(self, study: str | None) -> "ReportData":
        """The rows of one study (tables without a study_id column whole); None: everything."""
        if study is None:
            return self
        return ReportData({name: (df[df["study_id"] == study].reset_index(drop=True)
                                  if "study_id" in df.columns else df) for name, df in self.tables.items()},
                          dict(self.missing))


# The robustness experiments' sections name their own tables in their module's NEEDS.
EXPERIMENT_SECTIONS = ("contradictions", "hidden_text", "stress", "withdrawals", "score_prediction", "focus",
                       "consistency", "revision")
# So do these: the judge panel's section (#45) reads dim_judge_configs, judge_rankings,
# judge_ranking_agreement, judge_ranking_flips, judge_panel_agreement and judge_pair_differences.
OTHER_SECTIONS = ("judges",)


def all_needs() -> dict[str, list[str]]:
    """NEEDS and every section module's (imported here: those modules import this one)."""
    import importlib

    out = dict(NEEDS)
    for name in EXPERIMENT_SECTIONS + OTHER_SECTIONS:
        out.update(importlib.import_module(f"peerlake.report.{name}").NEEDS)
    return out


def load(duckdb_path: Path, study: str | None = None) -> ReportData:
    """Every table in NEEDS that exists with its columns; the rest named in `missing` with the reason.
    With `study`, only that study's rows: the marts hold every study, and a page mixes none."""
    out = ReportData()
    if not Path(duckdb_path).is_file():
        raise FileNotFoundError(f"no warehouse at {duckdb_path}; run `peerlake build` first")
    con = duckdb.connect(str(duckdb_path), read_only=True)
    try:
        present: dict[str, set[str]] = {}
        for table, column in con.execute("select table_name, column_name from information_schema.columns").fetchall():
            present.setdefault(table, set()).add(column)
        for name, cols in all_needs().items():
            if name not in present:
                out.missing[name] = "is not there (built before this mart existed)"
                continue
            lacking = [c for c in cols if c not in present[name]]
            if lacking:
                out.missing[name] = f"lacks column(s) {', '.join(lacking)}"  # built by an older peerlake
                continue
            lean = [c for c in dict.fromkeys(LEAN.get(name, [])) if c in present[name]]
            columns = ", ".join(f'"{c}"' for c in lean) if lean else "*"
            out.tables[name] = con.execute(f'select {columns} from "{name}"').df()
    finally:
        con.close()
    return out.only(study)


def config_labels(scores: pd.DataFrame | None) -> dict[str, str]:
    """reviewer_config → "template · model · abcd1234" for plot legends."""
    if scores is None or scores.empty:
        return {}
    first = scores.drop_duplicates("reviewer_config")
    return {r.reviewer_config: f"{r.prompt_template} · {r.model} · {r.reviewer_config[:8]}"
            for r in first.itertuples(index=False)}


def studies(duckdb_path: Path) -> list[str]:
    """The studies that have AI or imported review scores in the marts."""
    if not Path(duckdb_path).is_file():
        return []
    con = duckdb.connect(str(duckdb_path), read_only=True)
    try:
        return [r[0] for r in con.execute(
            "select distinct study_id from fct_ai_review_scores order by 1").fetchall()]
    except duckdb.Error:
        return []
    finally:
        con.close()
