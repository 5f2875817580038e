"""Systems against humans on the PRISM quality metrics, paired by paper.

Per (study, system, metric): each paper's mean over the system's reviews against the mean over the
paper's human reviews (for a flaws metric, the humans of the SAME pool, since flaws are found per
pool); the mean paired difference system − human with a paired paper-bootstrap percentile 95%
interval, a two-sided Wilcoxon signed-rank test, Cliff's δ in two forms (the unpaired one PRISM reports,
with its magnitude band, and the paired one over the differences), and Holm's
correction across the metrics of the (study, system). Fewer than MIN_PAIRS pairs: no inference
(null statistics, skip_reason), though the plain means of the pairs are still given.

One bootstrap world per (study, system): papers are drawn from the union of the papers paired on
any metric, with one seed, and every metric (and both sides' means) reads the same draw, each
averaging only the drawn papers it has a pair for (metrics.stats.bootstrap.resampled_mean_ci).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from peerlake.metrics.stats.bootstrap import LEVEL, N_RESAMPLES, resample_indices, resampled_mean_ci
from peerlake.metrics.stats.keys import join_id

MIN_PAIRS = 10
SEED = 42  # PRISM's statistical.py seed; recorded on every row
SKIP_FEW_PAIRS = "fewer_than_10_pairs"
ALL_ZERO = "all_differences_zero"
# Float noise of averaging (e.g. (0.1 + 0.2) vs 0.3) must not turn a tie into a win or a difference:
# values closer than this are equal, against zero (no difference) and against each other (one rank).
TIE_TOLERANCE = 1e-12
# Filled only for a tested metric (skip_reason only for an untested one); n_pairs and the plain means always.
INFERENCE = ("ci_low", "ci_high", "mean_system_ci_low", "mean_system_ci_high", "mean_human_ci_low",
             "mean_human_ci_high", "wilcoxon_p", "wilcoxon_note", "cliffs_delta", "cliffs_delta_paired", "magnitude",
             "skip_reason")
# |δ| below each bound (Romano et al. 2006, as PRISM uses them).
BANDS = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))

COLUMNS = {"quality_comparison_id": "string", "study_id": "string", "system": "string", "source": "string",
           "judge": "string", "judge_config": "string", "metric": "string", "n_pairs": "int64",
           "mean_system": "float64", "mean_system_ci_low": "float64", "mean_system_ci_high": "float64",
           "mean_human": "float64", "mean_human_ci_low": "float64", "mean_human_ci_high": "float64",
           "mean_diff": "float64", "ci_low": "float64", "ci_high": "float64", "wilcoxon_p": "float64",
           "wilcoxon_note": "string", "holm_p": "float64", "cliffs_delta": "float64",
           "cliffs_delta_paired": "float64", "magnitude": "string",
           "skip_reason": "string", "bootstrap_seed": "int64", "n_resamples": "int64"}


def cliffs_delta(x, y) -> float:
    """(#(x > y) − #(x < y)) / (n_x·n_y) over all cross pairs (the unpaired form PRISM uses); nan if
    either side is empty."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size == 0 or b.size == 0:
        return float("nan")
    d = a[:, None] - b[None, :]
    d[np.abs(d) <= TIE_TOLERANCE] = 0.0
    return float((np.sign(d)).sum() / d.size)


def cliffs_delta_paired(x, y) -> float:
    """The paired form over the n differences d_i = x_i − y_i of paired values: (#(d > 0) − #(d < 0)) / n,
    the within-subject dominance d_w of Cliff (1993, Psychological Bulletin 114(3):494–509; for paired
    data see Feng 2007, "Robustness and power of ordinal d for paired data"): how much more often a paper's
    system mean beats its own human mean than the reverse. A difference within TIE_TOLERANCE of 0 is a tie;
    nan without pairs. PRISM reports only the unpaired form (cliffs_delta), and the magnitude bands are
    that form's."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"cliffs_delta_paired: {a.size} values paired with {b.size}")
    if a.size == 0:
        return float("nan")
    return float(np.sign(merged_ties(a - b)).sum() / a.size)


def merged_ties(diffs) -> np.ndarray:
    """Paired differences with float noise taken out, as TIE_TOLERANCE says: |d| within the tolerance of 0
    is 0, and magnitudes within the tolerance of each other (one after the other in sorted order) all
    take the group's smallest, signs kept. A difference that is 5/12 in exact arithmetic comes out of
    two papers' float means as 0.4166666666666667 and 0.41666666666666663; ranked as two values, the
    Wilcoxon test would see no tie and give another p-value."""
    d = np.asarray(diffs, dtype=float).copy()
    size = np.abs(d)
    order = np.argsort(size, kind="stable")
    group_size = 0.0
    for k, i in enumerate(order):
        if size[i] <= TIE_TOLERANCE:
            group_size = 0.0
        elif k == 0 or size[i] - size[order[k - 1]] > TIE_TOLERANCE:
            group_size = size[i]
        d[i] = np.copysign(group_size, d[i]) if group_size else 0.0
    return d


def magnitude(delta: float) -> str | None:
    """negligible < 0.147 ≤ small < 0.33 ≤ medium < 0.474 ≤ large, on |δ|; None for a missing δ."""
    if delta is None or np.isnan(delta):
        return None
    return next((name for bound, name in BANDS if abs(delta) < bound), "large")


def holm(pvalues) -> list[float]:
    """Holm's step-down adjustment: p_adj(k) = min(1, (m − k + 1)·p_(k)) over the sorted p-values,
    made monotone (running maximum). nan (a skipped test) stays nan and does not count in m."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    m = present.size
    order = present[np.argsort(p[present], kind="stable")]
    running = 0.0
    for k, i in enumerate(order, start=1):
        running = max(running, min(1.0, (m - k + 1) * p[i]))
        out[i] = running
    return out.tolist()


def wilcoxon_p(diffs) -> tuple[float, str | None]:
    """Two-sided Wilcoxon signed-rank p-value of the paired differences, zero differences dropped
    (scipy's zero_method='wilcox', as PRISM); differences equal up to TIE_TOLERANCE share a rank, so the
    p-value is scipy's on the exactly tied input. Every difference zero: nothing is left to rank, so there
    is no evidence of a difference in either direction; p = 1 with the note 'all_differences_zero'
    (scipy itself returns 1 there, through a 0/0 warning)."""
    d = merged_ties(diffs)  # zeros and ties as TIE_TOLERANCE says, before scipy ranks them
    if not d.any():
        return 1.0, ALL_ZERO
    return float(stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue), None


@dataclass(frozen=True)
class Pairs:
    """One metric's pairs over the union of a (study, system)'s paired papers (nan: no pair)."""

    metric: str
    system: np.ndarray
    human: np.ndarray

    @property
    def has(self) -> np.ndarray:
        return ~np.isnan(self.system) & ~np.isnan(self.human)


def compare(pairs: list[Pairs], *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> list[dict]:
    """The statistics of one (study, system): a dict per metric, Holm across the metrics tested.

    Every Pairs holds vectors over the same paper order; the bootstrap draws that order once."""
    n_union = max((p.system.size for p in pairs), default=0)
    tested = any(int(p.has.sum()) >= MIN_PAIRS for p in pairs)
    idx = resample_indices(n_union, n_resamples=n_resamples, seed=seed) if tested else None
    rows = []
    for p in pairs:
        has = p.has
        x, y = p.system[has], p.human[has]
        row = {"metric": p.metric, "n_pairs": int(has.sum()), "bootstrap_seed": seed, "n_resamples": n_resamples,
               **dict.fromkeys(INFERENCE)}
        # Plain means of the pairs are descriptive and given whenever there is a pair.
        row.update(mean_system=float(x.mean()) if x.size else None,
                   mean_human=float(y.mean()) if y.size else None,
                   mean_diff=float((x - y).mean()) if x.size else None)
        if row["n_pairs"] < MIN_PAIRS:
            row["skip_reason"] = SKIP_FEW_PAIRS
            rows.append(row)
            continue
        diff = np.where(has, p.system - p.human, np.nan)
        row["ci_low"], row["ci_high"] = _interval(diff, idx, row["mean_diff"])
        row["mean_system_ci_low"], row["mean_system_ci_high"] = _interval(
            np.where(has, p.system, np.nan), idx, row["mean_system"])
        row["mean_human_ci_low"], row["mean_human_ci_high"] = _interval(
            np.where(has, p.human, np.nan), idx, row["mean_human"])
        row["wilcoxon_p"], row["wilcoxon_note"] = wilcoxon_p(merged_ties(x - y))
        row["cliffs_delta"] = cliffs_delta(x, y)
        row["cliffs_delta_paired"] = cliffs_delta_paired(x, y)
        row["magnitude"] = magnitude(row["cliffs_delta"])
        rows.append(row)
    adjusted = holm([np.nan if r["wilcoxon_p"] is None else r["wilcoxon_p"] for r in rows])
    for r, h in zip(rows, adjusted, strict=True):
        r["holm_p"] = None if np.isnan(h) else h
    return rows


def _interval(values: np.ndarray, idx: np.ndarray, mean: float) -> tuple[float, float]:
    present = values[~np.isnan(values)]
    if np.ptp(present) == 0:
        # Constant values: every resample mean is that value, up to the last bit of a sum.
        return mean, mean
    return resampled_mean_ci(values, idx, level=LEVEL)


def paper_means(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (study_id, system, metric, paper_id) with system_mean and human_mean (either null).

    `frame`: int_quality_review_metrics rows. A human row with a pool_system (a flaws metric) is
    compared only with that system; a human row without one, with every system of the study."""
    keys = ["study_id", "system", "metric", "paper_id"]
    # Plain object keys: pandas' Arrow-backed strings cannot merge an empty side (every judgment of a
    # study null, or no human judged yet), which must give an empty comparison, not an error.
    values = frame.dropna(subset=["value"]).astype(dict.fromkeys([*keys, "source", "pool_system"], object))
    is_human = values["source"] == "human"
    system = values[~is_human].groupby(keys, as_index=False)["value"].mean().rename(
        columns={"value": "system_mean"})
    humans = values[is_human]
    pooled = humans[humans["pool_system"].notna()].drop(columns="system").rename(columns={"pool_system": "system"})
    shared = humans[humans["pool_system"].isna()].drop(columns=["system", "pool_system"])
    systems = frame.loc[frame["source"] != "human", ["study_id", "system"]].drop_duplicates().astype(object)
    shared = shared.merge(systems, on="study_id")  # the same humans for every system of the study
    human = pd.concat([pooled[[*keys, "value"]], shared[[*keys, "value"]]]).groupby(
        keys, as_index=False)["value"].mean().rename(columns={"value": "human_mean"})
    return system.merge(human, on=keys, how="outer")


def _metric_info(frame: pd.DataFrame) -> pd.DataFrame:
    """(study_id, metric) → its judge and the one judge configuration that measured it."""
    info = frame.groupby(["study_id", "metric"], as_index=False).agg(
        judge=("judge", "first"), judge_config=("judge_config", lambda s: sorted(set(s.dropna()))))
    mixed = info[info["judge_config"].map(len) > 1]
    if not mixed.empty:
        # Two judge models' numbers averaged together would measure neither; the study resolution
        # should name one configuration per judge.
        raise ValueError("quality_comparison: several judge configurations for one metric: "
                         + "; ".join(f"{r.study_id}/{r.metric}: {r.judge_config}" for r in mixed.itertuples()))
    info["judge_config"] = info["judge_config"].map(lambda c: c[0] if c else None)
    return info


def comparison_table(frame: pd.DataFrame, *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """The quality_comparison mart: one row per (study_id, system, metric) a system has rows for."""
    if frame.empty:
        return pd.DataFrame(columns=list(COLUMNS)).astype(COLUMNS)
    frame = frame.assign(pool_system=frame.get("pool_system"))
    info = _metric_info(frame).set_index(["study_id", "metric"])
    means = paper_means(frame)
    subjects = frame.loc[frame["source"] != "human", ["study_id", "system", "source", "metric"]].drop_duplicates(
        ["study_id", "system", "metric"])
    rows = []
    for (study, system), group in subjects.groupby(["study_id", "system"], sort=True):
        mine = means[(means["study_id"] == study) & (means["system"] == system)]
        paired = mine.dropna(subset=["system_mean", "human_mean"])
        union = sorted(paired["paper_id"].unique())
        pairs = []
        for metric in sorted(group["metric"]):
            m = paired[paired["metric"] == metric].set_index("paper_id").reindex(union)
            pairs.append(Pairs(metric, m["system_mean"].to_numpy(dtype=float), m["human_mean"].to_numpy(dtype=float)))
        source = group["source"].iloc[0]
        for r in compare(pairs, n_resamples=n_resamples, seed=seed):
            meta = info.loc[(study, r["metric"])]
            rows.append({"quality_comparison_id": join_id(study, system, r["metric"]), "study_id": study,
                         "system": system, "source": source, "judge": meta["judge"],
                         "judge_config": meta["judge_config"], **r})
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
