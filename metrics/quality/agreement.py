"""Two judge configurations on the same reviews: e.g. PRISM's released judge answers
(`prism-released:<judge>`, ingest/judgments.py) against peerlake's own judge of the same dimension.

Per (study, judge, metric) and every two configurations x < y (by name) of that judge that the study
lists for a common review: over the reviews both scored, the two means, the mean difference x − y, the
mean absolute difference, the share of reviews scored equal, Pearson r and Spearman ρ. A flaws metric's
subject is a (pool, review), since flaws are scored per pool.

Correlations are null with a reason, never 0: fewer than MIN_REVIEWS reviews (`fewer_than_3_reviews`),
or one side constant (`constant_x` / `constant_y`: no correlation is defined). Values within
TIE_TOLERANCE of each other are one value (merged_ties), so the float noise of averaging repeats
never breaks a Spearman tie, makes a constant side look varied, or splits an equal score.
"""

import numpy as np
import pandas as pd

from peerlake.metrics.quality.comparison import TIE_TOLERANCE, merged_ties
from peerlake.metrics.stats.correlations import MIN_PAPERS, correlate
from peerlake.metrics.stats.keys import join_id

MIN_REVIEWS = MIN_PAPERS  # the same floor as every other correlation in the marts
PAIR = ["study_id", "judge", "metric"]
SUBJECT = ["review_key", "pool_key"]
SIDE = ["judge_config", "judge_provider", "judge_model"]
STATISTICS = ("mean_x", "mean_y", "mean_diff", "mean_abs_diff", "share_equal", "pearson", "spearman")
COLUMNS = {"quality_judge_agreement_id": "string", "study_id": "string", "judge": "string", "metric": "string",
           "judge_config_x": "string", "judge_config_y": "string", "judge_provider_x": "string",
           "judge_model_x": "string", "judge_provider_y": "string", "judge_model_y": "string",
           "n_reviews_shared": "int64", "n_reviews": "int64", **dict.fromkeys(STATISTICS, "float64"),
           "correlation_null_reason": "string"}


def agreement(x, y) -> dict:
    """The statistics of one pair over its reviews: x[i] and y[i] are the two configurations' values
    of review i (both present). Means and shares are None without reviews."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"agreement: {a.size} values paired with {b.size}")
    out = dict.fromkeys(STATISTICS)
    out["correlation_null_reason"] = None
    if a.size:
        d = a - b
        out.update(mean_x=float(a.mean()), mean_y=float(b.mean()), mean_diff=float(d.mean()),
                   mean_abs_diff=float(np.abs(d).mean()), share_equal=float((np.abs(d) <= TIE_TOLERANCE).mean()))
    ta, tb = merged_ties(a), merged_ties(b)
    if a.size < MIN_REVIEWS:
        out["correlation_null_reason"] = f"fewer_than_{MIN_REVIEWS}_reviews"
    elif np.ptp(ta) == 0:
        out["correlation_null_reason"] = "constant_x"
    elif np.ptp(tb) == 0:
        out["correlation_null_reason"] = "constant_y"
    else:
        out["pearson"], out["spearman"], _, _ = correlate(ta, tb)
    return out


def agreement_table(metrics: pd.DataFrame) -> pd.DataFrame:
    """metrics: int_quality_review_metrics (one row per study, judge config, pool, review, metric, with
    value null when not scored). One row per (study, judge, metric, config x, config y)."""
    keys = [*PAIR, *SUBJECT]
    # Plain object keys: pandas' Arrow-backed strings cannot merge an empty side; pool_key is null
    # outside flaws and must still match itself.
    long = metrics[[*keys, *SIDE, "value"]].astype(dict.fromkeys([*keys, *SIDE], object))
    long = long.assign(pool_key=long["pool_key"].fillna(""))
    pairs = long.merge(long, on=keys, suffixes=("_x", "_y"))
    pairs = pairs[pairs["judge_config_x"] < pairs["judge_config_y"]]
    rows = []
    for (study, judge, metric, cx, cy), g in pairs.groupby([*PAIR, "judge_config_x", "judge_config_y"], sort=True):
        both = g[g["value_x"].notna() & g["value_y"].notna()]
        rows.append({"quality_judge_agreement_id": join_id(study, metric, cx, cy), "study_id": study, "judge": judge,
                     "metric": metric, "judge_config_x": cx, "judge_config_y": cy,
                     **{f"{c}_{s}": _first(g[f"{c}_{s}"]) for c in SIDE[1:] for s in "xy"},
                     "n_reviews_shared": len(g), "n_reviews": len(both),
                     **agreement(both["value_x"], both["value_y"])})
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)


def _first(values: pd.Series):
    present = values.dropna()
    return present.iloc[0] if len(present) else None
