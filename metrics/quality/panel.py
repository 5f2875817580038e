"""A judge panel in one study: does the verdict survive the judge? (#45)

Pure pandas/numpy bodies of the panel marts (judge_panel_agreement, judge_rankings,
judge_ranking_agreement, judge_ranking_flips, judge_pair_differences); the dbt Python models only call them.

Input (`rows`): review-level judge metrics in long form, as int_quality_review_metrics has them plus the
judge's label (dim_judge_configs): study_id, judge, judge_config, judge_label, metric, review_key,
paper_id, source ('human' | 'peerlake' | 'external'), system (null for humans), pool_key (null except for
a pooled metric: flaws), value (float, null when not scored).

- A review is (review_key, pool_key): a flaws review is scored once per pool it is in.
- Every human review belongs to the system "human" (for a pooled metric, once per pool it is scored in).
- Only valued rows count in a mean; a system is present where it has a value.
- Each (study, judge, judge_label) must name one judge configuration, and each
  (study, judge, judge_label, metric, review_key, pool_key) must be one row. Two judges' numbers
  averaged together would measure neither, so anything else is refused with a ValueError.
- Means that differ by at most TIE_TOLERANCE are equal (float noise of averaging is not an order): they
  share a rank, and τ sees them as tied.

Every output is sorted by its key. Empty input gives an empty frame with the output's column types.
"""

import numpy as np
import pandas as pd

from peerlake.metrics.quality.agreement import MIN_REVIEWS, agreement
from peerlake.metrics.quality.cards import alpha, fisher_ci
from peerlake.metrics.quality.comparison import SEED, TIE_TOLERANCE, Pairs, compare
from peerlake.metrics.stats.bootstrap import LEVEL, N_RESAMPLES, resample_indices
from peerlake.metrics.stats.correlations import kendall_tau_b
from peerlake.metrics.stats.keys import join_id, typed_frame

HUMAN = "human"
INPUT = ["study_id", "judge", "judge_config", "judge_label", "metric", "review_key", "paper_id", "source",
         "system", "pool_key", "value"]
REVIEW = ["study_id", "judge", "metric", "review_key", "pool_key", "paper_id", "source", "system"]
METRIC = ["study_id", "judge", "metric"]
_EMPTY_PAPERS = pd.DataFrame(columns=["judge_label", "system", "paper_id", "m"])

FEWER_REVIEWS = f"fewer_than_{MIN_REVIEWS}_reviews"
SAME_CONFIGURATION = "same_configuration"
FEWER_SYSTEMS = "fewer_than_2_systems"
FEWER_PAPERS = "fewer_than_2_papers"
CONSTANT_RANKING = "constant_ranking"
FEW_DEFINED = "fewer_than_half_resamples_defined"

AGREEMENT_COLUMNS = {
    "judge_panel_agreement_id": "string", "study_id": "string", "judge": "string", "metric": "string",
    "label_x": "string", "label_y": "string", "judge_config_x": "string", "judge_config_y": "string",
    "n_reviews_shared": "int64", "n_reviews": "int64", "alpha": "float64", "pearson": "float64",
    "pearson_ci_low": "float64", "pearson_ci_high": "float64", "spearman": "float64", "mean_x": "float64",
    "mean_y": "float64", "mean_diff": "float64", "mean_abs_diff": "float64", "share_equal": "float64",
    "null_reason": "string"}
MEANS_COLUMNS = {
    "judge_ranking_id": "string", "study_id": "string", "judge": "string", "judge_label": "string",
    "metric": "string", "system": "string", "source": "string", "n_papers": "int64", "n_reviews": "int64",
    "mean": "float64", "rank": "int64", "n_systems": "int64"}
RANKING_COLUMNS = {
    "judge_ranking_agreement_id": "string", "study_id": "string", "judge": "string", "metric": "string",
    "label_x": "string", "label_y": "string", "n_systems": "int64", "n_papers": "int64",
    "kendall_tau_b": "float64", "ci_low": "float64", "ci_high": "float64", "n_resamples": "int64",
    "n_resamples_defined": "Int64", "seed": "int64", "null_reason": "string"}
FLIP_COLUMNS = {
    "judge_ranking_flip_id": "string", "study_id": "string", "judge": "string", "metric": "string",
    "system_a": "string", "system_b": "string", "label_x": "string", "label_y": "string",
    "n_papers_x": "int64", "n_papers_y": "int64", "diff_x": "float64", "diff_y": "float64",
    "is_flipped": "boolean"}
DIFFERENCE_COLUMNS = {
    "judge_pair_difference_id": "string", "study_id": "string", "judge": "string", "metric": "string",
    "system": "string", "source": "string", "label_x": "string", "label_y": "string",
    "judge_config_x": "string", "judge_config_y": "string", "n_reviews": "int64", "n_pairs": "int64",
    "mean_x": "float64", "mean_x_ci_low": "float64", "mean_x_ci_high": "float64", "mean_y": "float64",
    "mean_y_ci_low": "float64", "mean_y_ci_high": "float64", "mean_diff": "float64", "ci_low": "float64",
    "ci_high": "float64", "wilcoxon_p": "float64", "wilcoxon_note": "string", "holm_p": "float64",
    "cliffs_delta": "float64", "cliffs_delta_paired": "float64", "magnitude": "string", "skip_reason": "string",
    "bootstrap_seed": "int64", "n_resamples": "int64"}


def prepared(rows: pd.DataFrame) -> pd.DataFrame:
    """The input with plain object keys (pandas' Arrow-backed strings cannot merge an empty side), a
    human review's system set to "human" (another null system to its source), pool_key "" outside
    pools (so it matches itself), value as float. Refuses a label with several configurations of one
    judge, and a (label, metric, review, pool) given twice."""
    missing = [c for c in INPUT if c not in rows.columns]
    if missing:
        raise ValueError(f"panel: input lacks columns {missing}")
    frame = rows[INPUT].astype(dict.fromkeys(INPUT[:-1], object))
    human = frame["source"] == HUMAN
    frame = frame.assign(system=frame["system"].where(~human, HUMAN).fillna(frame["source"]),
                         pool_key=frame["pool_key"].fillna(""), value=frame["value"].astype(float))
    configs = frame.groupby(["study_id", "judge", "judge_label"])["judge_config"].nunique()
    if (configs > 1).any():
        raise ValueError("panel: a judge label names several judge configurations of one judge: "
                         + "; ".join("/".join(k) for k in configs[configs > 1].index))
    twice = frame.duplicated(["study_id", "judge", "judge_label", "metric", "review_key", "pool_key"], keep=False)
    if twice.any():
        first = frame[twice].iloc[0]
        raise ValueError(f"panel: review {first['review_key']} (pool {first['pool_key']!r}) is given twice for "
                         f"{first['study_id']}/{first['judge_label']}/{first['metric']}")
    return frame


def panel_agreement(rows: pd.DataFrame) -> pd.DataFrame:
    """Judge–judge agreement of review-level scores: one row per (study, judge, metric, label_x < label_y)
    whose labels both have a row for a common review.

    Over the n reviews valued under both labels (x_i, y_i):
    - alpha: Krippendorff's α at interval level of the 2 raters × n reviews table,
      α = 1 − D_o / D_e, D_o = Σ_i 2(x_i − y_i)² / N and D_e = Σ_{j≠k} (v_j − v_k)² / (N(N − 1)) over all
      N = 2n values v (metrics.quality.cards.alpha, the krippendorff package);
    - pearson, spearman (ρ = Pearson on average ranks), mean_x, mean_y, mean_abs_diff, share_equal:
      metrics.quality.agreement.agreement, ties merged within TIE_TOLERANCE; pearson_ci_*: Fisher's z
      interval tanh(atanh r ± 1.96/√(n − 3)) (metrics.quality.cards.fisher_ci, null below 4 reviews);
    - mean_diff = Σ (y_i − x_i) / n (y minus x, as in every panel mart).

    α, r and ρ are null with null_reason: `fewer_than_3_reviews` (n < 3), `same_configuration` (both labels
    name one judge configuration: agreement would be perfect by construction), or agreement's
    `constant_x` / `constant_y` (no correlation; α is still given where defined). n_reviews_shared counts
    the reviews both labels have a row for, valued or not."""
    pairs = _label_pairs(prepared(rows)) if len(rows) else None
    out = []
    if pairs is not None:
        for (study, judge, metric, lx, ly), g in pairs.groupby([*METRIC, "label_x", "label_y"], sort=True):
            both = g[g["value_x"].notna() & g["value_y"].notna()]
            x, y = both["value_x"].to_numpy(float), both["value_y"].to_numpy(float)
            a = agreement(x, y)
            cx, cy = g["judge_config_x"].iloc[0], g["judge_config_y"].iloc[0]
            reason = SAME_CONFIGURATION if cx == cy else (FEWER_REVIEWS if x.size < MIN_REVIEWS
                                                         else a["correlation_null_reason"])
            row = {"judge_panel_agreement_id": join_id(study, metric, lx, ly), "study_id": study, "judge": judge,
                   "metric": metric, "label_x": lx, "label_y": ly, "judge_config_x": cx, "judge_config_y": cy,
                   "n_reviews_shared": len(g), "n_reviews": int(x.size), "alpha": None, "pearson": None,
                   "pearson_ci_low": None, "pearson_ci_high": None, "spearman": None,
                   "mean_x": a["mean_x"], "mean_y": a["mean_y"],
                   "mean_diff": float((y - x).mean()) if x.size else None,
                   "mean_abs_diff": a["mean_abs_diff"], "share_equal": a["share_equal"], "null_reason": reason}
            if reason not in (SAME_CONFIGURATION, FEWER_REVIEWS):
                row["alpha"] = _nan_to_none(alpha(np.vstack([x, y]), "interval"))
                if reason is None:
                    row["pearson"], row["spearman"] = a["pearson"], a["spearman"]
                    row["pearson_ci_low"], row["pearson_ci_high"] = map(_nan_to_none, fisher_ci(a["pearson"], x.size))
            out.append(row)
    return _frame(out, AGREEMENT_COLUMNS, [*METRIC, "label_x", "label_y"])


def system_means(rows: pd.DataFrame) -> pd.DataFrame:
    """Each judge's ranking of systems: one row per (study, judge, judge_label, metric, system) with a value.

    mean = (1 / P) Σ_p m_p, where m_p is the mean of the system's valued reviews of paper p under that
    label and P (n_papers) the papers it has one for, so a paper weighs the same however many reviews it
    has. rank among the label's systems on the metric: 1 = highest mean; means within TIE_TOLERANCE of
    each other share the smallest rank of their group (competition ranking: 1, 1, 3)."""
    frame = _valued(rows)
    if frame.empty:
        return typed_frame([], MEANS_COLUMNS)
    papers = _paper_means(frame, ["judge_label"])
    keys = ["study_id", "judge", "judge_label", "metric", "system"]
    systems = papers.groupby(keys, sort=True).agg(source=("source", "first"), n_papers=("m", "size"),
                                                  n_reviews=("n_reviews", "sum"), mean=("m", "mean")).reset_index()
    out = []
    for _, g in systems.groupby(keys[:-1], sort=True):
        ranks = tie_ranks(g["mean"].to_numpy(float)[None, :])[0]
        for r, rank in zip(g.itertuples(index=False), ranks, strict=True):
            out.append({"judge_ranking_id": join_id(r.study_id, r.judge_label, r.metric, r.system), **r._asdict(),
                        "rank": int(rank), "n_systems": len(g)})
    return _frame(out, MEANS_COLUMNS, [*METRIC, "judge_label", "system"])


def ranking_agreement(rows: pd.DataFrame, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Do two judges rank the systems alike? One row per (study, judge, metric, label_x < label_y) of the
    labels with a row for the metric.

    The systems are those with a value under x or y (n_systems); the papers (n_papers) those where every
    one of them has a per-paper mean m_p (as in system_means) under both labels. Each label's system
    means over those papers are ranked as system_means ranks them, and kendall_tau_b is Kendall's τ-b of
    the two rankings (metrics.stats.correlations.kendall_tau_b): (C − D) / √((n₀ − n₁)(n₀ − n₂)) over the
    n₀ pairs of systems.

    Interval: one draw of n_resamples rows of n_papers paper indices with replacement from numpy's
    default_rng(seed) (metrics.stats.bootstrap.resample_indices), shared by both labels: each resample's
    system means are the means over the drawn papers (with repeats), ranked and correlated as above.
    Resamples where τ is undefined (a ranking all tied) are dropped (n_resamples_defined); ci_low /
    ci_high are the 2.5 % and 97.5 % quantiles of the rest (numpy's linear interpolation), null when fewer
    than half are defined: the rule of metrics.quality.cards.cluster_bootstrap, every paper its own cluster.

    null_reason: `fewer_than_2_systems` (nothing to rank), `fewer_than_2_papers` (no paper: no τ; one
    paper: τ given, no interval), `constant_ranking` (a label ties every system: τ undefined),
    `fewer_than_half_resamples_defined` (τ given, no interval)."""
    frame = _prepared_or_none(rows)
    if frame is None:
        return typed_frame([], RANKING_COLUMNS)
    papers = _by_metric(_paper_means(frame[frame["value"].notna()], ["judge_label"]))
    out = []
    for (study, judge, metric), g in frame.groupby(METRIC, sort=True):
        labels = sorted(g["judge_label"].unique())
        mine = papers.get((study, judge, metric), _EMPTY_PAPERS)
        for i, lx in enumerate(labels):
            for ly in labels[i + 1:]:
                row = {"judge_ranking_agreement_id": join_id(study, metric, lx, ly), "study_id": study,
                       "judge": judge, "metric": metric, "label_x": lx, "label_y": ly, "n_resamples": n_resamples,
                       "seed": seed, **_ranking_agreement(mine, lx, ly, n_resamples, seed)}
                out.append(row)
    return _frame(out, RANKING_COLUMNS, [*METRIC, "label_x", "label_y"])


def ranking_flips(rows: pd.DataFrame) -> pd.DataFrame:
    """Pairwise system differences under each judge, and the ones whose sign flips: one row per (study,
    judge, metric, system_a < system_b, label_x < label_y) over the systems with a value and the labels
    with a row for the metric.

    diff_x = (1 / P_x) Σ_p (m_pa − m_pb) over the P_x papers (n_papers_x) where both systems have a
    per-paper mean m_p (as in system_means) under x; diff_y likewise under y (null without such a paper).
    is_flipped: both differences beyond TIE_TOLERANCE (1e-12) in size and of opposite signs; null when
    either is null."""
    frame = _prepared_or_none(rows)
    if frame is None:
        return typed_frame([], FLIP_COLUMNS)
    papers = _by_metric(_paper_means(frame[frame["value"].notna()], ["judge_label"]))
    out = []
    for (study, judge, metric), g in frame.groupby(METRIC, sort=True):
        labels = sorted(g["judge_label"].unique())
        systems = sorted(g.loc[g["value"].notna(), "system"].unique())
        mine = papers.get((study, judge, metric))
        diffs = {}
        for label in labels:
            m = (mine[mine["judge_label"] == label].pivot(index="paper_id", columns="system", values="m")
                 if mine is not None else pd.DataFrame())
            for ai, a in enumerate(systems):
                for b in systems[ai + 1:]:
                    d = (m[a] - m[b]).dropna() if a in m and b in m else pd.Series(dtype=float)
                    diffs[label, a, b] = (len(d), float(d.mean()) if len(d) else None)
        for ai, a in enumerate(systems):
            for b in systems[ai + 1:]:
                for i, lx in enumerate(labels):
                    for ly in labels[i + 1:]:
                        (nx, dx), (ny, dy) = diffs[lx, a, b], diffs[ly, a, b]
                        flipped = None if dx is None or dy is None else bool(
                            abs(dx) > TIE_TOLERANCE and abs(dy) > TIE_TOLERANCE and np.sign(dx) != np.sign(dy))
                        out.append({"judge_ranking_flip_id": join_id(study, metric, a, b, lx, ly),
                                    "study_id": study, "judge": judge, "metric": metric, "system_a": a,
                                    "system_b": b, "label_x": lx, "label_y": ly, "n_papers_x": nx,
                                    "n_papers_y": ny, "diff_x": dx, "diff_y": dy, "is_flipped": flipped})
    return _frame(out, FLIP_COLUMNS, [*METRIC, "system_a", "system_b", "label_x", "label_y"])


def judge_pair_differences(rows: pd.DataFrame, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """What changes with the judge, on the same reviews: one row per (study, judge, metric, system,
    label_x < label_y) where both labels have a row for a review of the system.

    Over the reviews valued under both labels (n_reviews), each paper p's means x̄_p and ȳ_p (over the same
    reviews, so ȳ_p − x̄_p is the paper's mean of y − x) are paired; n_pairs papers. The statistics are
    metrics.quality.comparison.compare's with y as its "system" side and x as its "human" side, called once
    per (study, system, label_x, label_y) with a Pairs per metric over the union of their papers:
    - mean_diff = (1 / n_pairs) Σ_p (ȳ_p − x̄_p), mean_x, mean_y;
    - ci_low / ci_high: the paired paper-bootstrap percentile 95 % interval of mean_diff, one draw
      (resample_indices: n_resamples rows of the union's paper indices from default_rng(seed)) shared by
      every metric of the group, each averaging the drawn papers it has a pair for
      (metrics.stats.bootstrap.resampled_mean_ci); the same for mean_x and mean_y;
    - wilcoxon_p: two-sided Wilcoxon signed-rank p over the papers' differences, zeros dropped, ties merged
      within TIE_TOLERANCE (comparison.wilcoxon_p; 1 with note `all_differences_zero`); holm_p: Holm over
      the metrics of the group; Cliff's δ unpaired and paired, and the magnitude band.
    Fewer than comparison.MIN_PAIRS (10) papers: the means only, skip_reason `fewer_than_10_pairs`."""
    pairs = _label_pairs(prepared(rows)) if len(rows) else None
    out = []
    if pairs is not None:
        group, metric_keys = ["study_id", "system", "label_x", "label_y"], ["judge", "metric"]
        both = pairs[pairs["value_x"].notna() & pairs["value_y"].notna()]
        per_paper = dict(tuple(both.groupby([*group, *metric_keys, "paper_id"], sort=True).agg(
            x=("value_x", "mean"), y=("value_y", "mean"), n=("value_x", "size")).reset_index().groupby(group)))
        for key, g in pairs.groupby(group, sort=True):
            study, system, lx, ly = key
            mine = per_paper.get(key)
            union = sorted(mine["paper_id"].unique()) if mine is not None else []
            metrics = g.groupby(metric_keys, sort=True).agg(source=("source", "first"), cx=("judge_config_x", "first"),
                                                            cy=("judge_config_y", "first"))
            series, n_reviews = [], []
            for judge, metric in metrics.index:
                m = (mine[(mine["judge"] == judge) & (mine["metric"] == metric)] if mine is not None
                     else pd.DataFrame(columns=["paper_id", "x", "y", "n"]))
                n_reviews.append(int(m["n"].sum()))
                m = m.set_index("paper_id").reindex(union)
                series.append(Pairs(metric, m["y"].to_numpy(dtype=float), m["x"].to_numpy(dtype=float)))
            results = compare(series, n_resamples=n_resamples, seed=seed)
            for (judge, metric), n, r in zip(metrics.index, n_reviews, results, strict=True):
                info = metrics.loc[(judge, metric)]
                out.append({"judge_pair_difference_id": join_id(study, metric, system, lx, ly), "study_id": study,
                            "judge": judge, "metric": metric, "system": system, "source": info["source"],
                            "label_x": lx, "label_y": ly, "judge_config_x": info["cx"], "judge_config_y": info["cy"],
                            "n_reviews": n, **_as_labels(r)})
    return _frame(out, DIFFERENCE_COLUMNS, [*METRIC, "system", "label_x", "label_y"])


def tie_ranks(means: np.ndarray) -> np.ndarray:
    """Competition ranks of each row of a (rows × systems) array: 1 = highest. Sorted from the highest,
    a value within TIE_TOLERANCE of the one before it joins its group, and a group takes the rank of its
    first member (so 0.5, 0.5, 0.25 rank 1, 1, 3)."""
    m = np.asarray(means, dtype=float)
    order = np.argsort(-m, axis=1, kind="stable")
    ordered = np.take_along_axis(m, order, axis=1)
    starts = np.ones(m.shape, dtype=bool)
    starts[:, 1:] = (ordered[:, :-1] - ordered[:, 1:]) > TIE_TOLERANCE
    first = np.maximum.accumulate(np.where(starts, np.arange(m.shape[1]), 0), axis=1)
    ranks = np.empty(m.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, first + 1, axis=1)
    return ranks


def _ranking_agreement(papers: pd.DataFrame, lx: str, ly: str, n_resamples: int, seed: int) -> dict:
    """The statistics of one label pair from per-paper means (columns judge_label, system, paper_id, m)."""
    out = {"n_resamples_defined": None, "kendall_tau_b": None, "ci_low": None, "ci_high": None}
    two = papers[papers["judge_label"].isin([lx, ly])]
    systems = sorted(two["system"].unique())
    if not systems:
        return {**out, "n_systems": 0, "n_papers": 0, "null_reason": FEWER_SYSTEMS}
    wide = two.pivot_table(index="paper_id", columns=["judge_label", "system"], values="m", aggfunc="first")
    wide = wide.reindex(columns=pd.MultiIndex.from_product([[lx, ly], systems])).dropna().sort_index()
    mx, my = wide[lx].to_numpy(float), wide[ly].to_numpy(float)
    out.update(n_systems=len(systems), n_papers=len(wide))
    if len(systems) < 2:
        return {**out, "null_reason": FEWER_SYSTEMS}
    if len(wide) == 0:
        return {**out, "null_reason": FEWER_PAPERS}
    tau = _tau_of_rankings(tie_ranks(mx.mean(axis=0)[None, :]), tie_ranks(my.mean(axis=0)[None, :]))[0]
    if np.isnan(tau):
        return {**out, "null_reason": CONSTANT_RANKING}
    out["kendall_tau_b"] = float(tau)
    if len(wide) < 2:
        return {**out, "null_reason": FEWER_PAPERS}
    idx = resample_indices(len(wide), n_resamples=n_resamples, seed=seed)
    taus = _tau_of_rankings(tie_ranks(_resampled_means(mx, idx)), tie_ranks(_resampled_means(my, idx)))
    defined = taus[~np.isnan(taus)]
    out["n_resamples_defined"] = int(defined.size)
    if defined.size == 0 or defined.size < n_resamples / 2:
        return {**out, "null_reason": FEW_DEFINED}
    out["ci_low"], out["ci_high"] = (float(q) for q in np.quantile(defined, [(1 - LEVEL) / 2, (1 + LEVEL) / 2]))
    return {**out, "null_reason": None}


def _resampled_means(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """(resamples × systems): each row of idx's papers' mean of values (papers × systems), in blocks of
    about 4M gathered numbers so 10,000 resamples of many papers never gather at once."""
    out = np.empty((idx.shape[0], values.shape[1]))
    step = max(1, (1 << 22) // max(1, idx.shape[1] * values.shape[1]))
    for lo in range(0, idx.shape[0], step):
        out[lo:lo + step] = values[idx[lo:lo + step]].mean(axis=1)
    return out


def _tau_of_rankings(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """kendall_tau_b of each row pair of two rank arrays; τ depends only on the two rankings, so it is
    computed once per distinct pair of rankings (a handful among thousands of resamples). nan where a
    ranking ties every system."""
    both = np.concatenate([rx, ry], axis=1)
    distinct, inverse = np.unique(both, axis=0, return_inverse=True)
    k = rx.shape[1]
    taus = np.array([float("nan") if np.ptp(d[:k]) == 0 or np.ptp(d[k:]) == 0 else kendall_tau_b(d[:k], d[k:])
                     for d in distinct])
    return taus[np.asarray(inverse).ravel()]


def _paper_means(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """m: the mean of each (study, judge, metric, *by, system, paper)'s valued reviews, with n_reviews."""
    keys = [*METRIC, *by, "system", "paper_id"]
    return frame.groupby(keys, sort=True).agg(source=("source", "first"), m=("value", "mean"),
                                              n_reviews=("value", "size")).reset_index()


def _by_metric(papers: pd.DataFrame) -> dict[tuple, pd.DataFrame]:
    """_paper_means' rows by (study, judge, metric)."""
    return dict(tuple(papers.groupby(METRIC, sort=True)))


def _label_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """Every review (REVIEW keys) that two labels x < y both have a row for: label_x, label_y,
    judge_config_x/_y, value_x/_y."""
    side = frame[[*REVIEW, "judge_label", "judge_config", "value"]]
    pairs = side.merge(side, on=REVIEW, suffixes=("_x", "_y"))
    pairs = pairs[pairs["judge_label_x"] < pairs["judge_label_y"]]
    return pairs.rename(columns={"judge_label_x": "label_x", "judge_label_y": "label_y"})


def _frame(rows: list[dict], columns: dict[str, str], key: list[str]) -> pd.DataFrame:
    """The typed output, sorted by its key (stable; an empty input gives the typed empty frame)."""
    return typed_frame(rows, columns).sort_values(key, kind="stable").reset_index(drop=True)


def _valued(rows: pd.DataFrame) -> pd.DataFrame:
    frame = _prepared_or_none(rows)
    return frame[frame["value"].notna()] if frame is not None else pd.DataFrame(columns=INPUT)


def _prepared_or_none(rows: pd.DataFrame) -> pd.DataFrame | None:
    return prepared(rows) if len(rows) else None


def _as_labels(r: dict) -> dict:
    """compare()'s row with its system side named y and its human side x."""
    names = {"mean_system": "mean_y", "mean_system_ci_low": "mean_y_ci_low", "mean_system_ci_high": "mean_y_ci_high",
             "mean_human": "mean_x", "mean_human_ci_low": "mean_x_ci_low", "mean_human_ci_high": "mean_x_ci_high"}
    return {names.get(k, k): v for k, v in r.items() if k != "metric"}


def _nan_to_none(v: float) -> float | None:
    return None if v is None or np.isnan(v) else float(v)
