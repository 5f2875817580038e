"""Which row of a mart a KEY names, and the figure ids the HTML report prints.

A mart's key is its primary-key column (the one its yml tests `unique`) when that column is already
readable (`study|config|scope`); marts whose primary key is an md5 declare the columns it hashes
here, and their KEY is those columns' values joined with "|"."""

from dataclasses import dataclass

import duckdb

# mart -> key columns, for marts whose primary key is not readable as it stands (an md5)
HASHED_KEYS: dict[str, tuple[str, ...]] = {
    "fct_ai_review_scores": ("study_id", "source", "paper_id", "reviewer_config", "sample_index"),
    "cost_by_model": ("provider", "model", "prompt_template", "prompt_hash"),
    "cost_by_study": ("study_id", "provider", "model"),
}

# mart -> its readable primary key (the column its yml tests `unique`), for callers without dbt's
# manifest (the HTML report); tests/audit checks these against the manifest.
PRIMARY_KEYS: dict[str, str] = {
    "reliability_validity": "validity_id", "reliability_budgets": "budget_id",
    "reliability_repeatability": "repeatability_id", "reliability_rank_reproducibility": "rank_reproducibility_id",
    "reliability_close_pairs": "close_pair_id", "reliability_score_histogram": "score_histogram_id",
    "reliability_granularity": "granularity_pair_id",
    "reliability_distribution_estimation": "distribution_estimation_id",
    "quality_comparison": "quality_comparison_id",
    "system_summary": "system_summary_id", "system_review_costs": "system_review_cost_id",
    "score_prediction_correlations": "score_prediction_correlation_id",
    "score_prediction_papers": "score_prediction_paper_id", "text_overlap": "text_overlap_id",
    "focus_distributions": "focus_distribution_id", "focus_divergence": "focus_divergence_id",
    "withdrawal_detection": "withdrawal_detection_id", "contradiction_detection": "contradiction_detection_id",
    "contradiction_judge_audit": "contradiction_judge_audit_id", "hidden_text_detector": "hidden_text_detector_id",
    "hidden_text_effects": "hidden_text_effect_id",
    "review_consistency": "review_consistency_id", "revision_gains": "revision_gain_id",
    "revision_cells": "revision_cell_id", "revision_scorer_gaps": "revision_scorer_gap_id",
    "revision_directions": "revision_direction_id", "revision_noise_adjusted": "revision_noise_adjusted_id",
    "revision_selector_agreement": "revision_selector_agreement_id",
    "revision_validation": "revision_validation_id", "revision_cases": "revision_case_id",
    "dim_judge_configs": "judge_config_id", "judge_rankings": "judge_ranking_id",
    "judge_ranking_agreement": "judge_ranking_agreement_id", "judge_ranking_flips": "judge_ranking_flip_id",
    "judge_panel_agreement": "judge_panel_agreement_id", "judge_pair_differences": "judge_pair_difference_id",
    "quality_sources": "quality_source_id", "stress_cards": "stress_card_id",
}

# The columns a row shares with the models upstream of it: each step's input rows are filtered by them.
SCOPE_COLUMNS = ("study_id", "source", "reviewer_config", "paper_id", "sample_index", "judge_config",
                 "review_key", "system")


class RowNotFound(LookupError):
    pass


@dataclass(frozen=True)
class KeySpec:
    mart: str
    columns: tuple[str, ...]  # joined with "|" they make KEY
    primary_key: str | None  # the unique-tested column, also accepted as KEY


def key_spec(mart: str, unique_columns: tuple[str, ...]) -> KeySpec:
    pk = unique_columns[0] if unique_columns else None
    columns = HASHED_KEYS.get(mart) or ((pk,) if pk else ())
    if not columns:
        raise RowNotFound(f"{mart} declares no key: no column with a `unique` test and none in HASHED_KEYS")
    return KeySpec(mart, columns, pk)


def find_row(con: duckdb.DuckDBPyConnection, spec: KeySpec, key: str) -> dict:
    """The one row of `spec.mart` whose key is `key` (its key columns joined with "|", or its
    primary-key value)."""
    joined = "concat_ws('|', " + ", ".join(f'cast("{c}" as varchar)' for c in spec.columns) + ")"
    where = f"{joined} = $key" + (f' or cast("{spec.primary_key}" as varchar) = $key' if spec.primary_key else "")
    try:
        cur = con.execute(f'select * from "{spec.mart}" where {where}', {"key": key})
    except duckdb.CatalogException as exc:
        raise RowNotFound(f"{spec.mart} is not in the published database ({exc}); run `peerlake build`") from None
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    if len(rows) != 1:
        sample = con.execute(f'select {joined} from "{spec.mart}" order by 1 limit 5').fetchall()
        hint = ", ".join(repr(r[0]) for r in sample) or "the mart is empty"
        raise RowNotFound(f"{len(rows)} rows of {spec.mart} have key {key!r} ({' | '.join(spec.columns)}); "
                          f"e.g. {hint}")
    return rows[0]


def figure_id(mart: str, key: str) -> str:
    """The id the HTML report prints under a figure: `peerlake audit <id>` audits that row."""
    return f"{mart}:{key}"


def parse_figure_id(text: str) -> tuple[str, str]:
    mart, sep, key = text.partition(":")
    if not sep or not mart or not key:
        raise ValueError(f"{text!r} is not a figure id (MART:KEY)")
    return mart, key


def row_keys(mart: str, rows) -> list[str]:
    """KEY of every row of a mart's DataFrame (as `peerlake audit` takes it), from the rows' own columns;
    rows missing a key value are left out, and none has a key when the mart's key is unknown here or a
    key column is missing. Read column by column: a report over a million review scores lists their keys
    in about a second, where a dict per row took most of the page's build (#50)."""
    columns = HASHED_KEYS.get(mart) or ((PRIMARY_KEYS[mart],) if mart in PRIMARY_KEYS else ())
    if not columns or any(c not in rows.columns for c in columns):
        return []
    # a missing value (None, NaN or NA, as the column's dtype holds it) names no row
    keyed = rows.loc[rows[list(columns)].notna().all(axis=1), list(columns)]
    # Series.tolist() boxes values to Python scalars (12, not 12.0 or np.int64(12)) before str()
    return ["|".join(map(str, values)) for values in zip(*(keyed[c].tolist() for c in columns), strict=True)]


def audit_command(mart: str, key: str) -> str:
    """The shell command that audits one row (single quotes: keys hold "|" and spaces)."""
    return "peerlake audit '" + figure_id(mart, key).replace("'", "'\\''") + "'"
