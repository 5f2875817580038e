"""The judge_cards mart: one row per (study, judge configuration, dataset, dimension, statistic, other
configuration), each an estimate with a 95 % interval, its n and how it was computed (`method`).

- retest_icc / retest_alpha: a score's repeats (ICC(1), interval α) and a span label's repeats (α);
- human_kappa / human_alpha: the judge's label of each human-labelled item (a span, a sentence, a
  comment, a raised criticism: int_judge_card_items) against the people's reference label;
  human_human_alpha beside them: the annotators' α on the same items, the ceiling a judge can reach;
  each names the label mapping that made the people's labels the judge's (label_mapping, its sha256);
- judge_judge_alpha / judge_judge_pearson: two configurations on the same spans / review scores.

A configuration with no human-labelled span says so in a `human_kappa` row with status "unvalidated"
(never "valid": whether a measured κ is enough is the study's requirement, judge_card_checks). The
statistics are metrics.quality.cards; intervals resample whole reviews (seeded) unless `method` says
analytic.
"""

import numpy as np
import pandas as pd

from peerlake.metrics.quality.cards import NAN, alpha, cluster_bootstrap, codes, cohen_kappa, fisher_ci, icc1
from peerlake.metrics.stats.keys import join_id

NONE = "none"  # the judge's label of a span no unit of its matches
CONFIG = ["study_id", "judge", "judge_config", "judge_provider", "judge_model"]
COLUMNS = {"judge_card_id": "string", "study_id": "string", "judge": "string", "judge_config": "string",
           "judge_provider": "string", "judge_model": "string", "dataset": "string", "dimension": "string",
           "label_mapping": "string", "label_mapping_sha256": "string",
           "statistic": "string", "other_judge_config": "string", "measurement_level": "string",
           "estimate": "float64", "ci_low": "float64", "ci_high": "float64", "n": "int64", "n_reviews": "int64",
           "method": "string", "status": "string", "null_reason": "string"}
STATISTICS = ("retest_icc", "retest_alpha", "human_kappa", "human_alpha", "human_human_alpha",
              "judge_judge_alpha", "judge_judge_pearson")
# how the judge's label of a human-labelled item was found (int_judge_card_items, int_judge_card_text_items)
MATCHED = {
    "depth": "each (human span, repeat): the label of the judge's unit with the highest character IoU "
             "(>= span_match_iou), else 'none'",
    "novelty": "each (human-labelled sentence, repeat): the stance of the judge's first claim holding the "
               "sentence or lying in it, else 'none'",
    "constructiveness": "each (human-rated comment, repeat): the rating of the judge's first comment whose anchor "
                        "quote lies in it or holds it, else 'none' (no value)",
    "flaws": "each (human-labelled segment the judge's raise quotes, pool repeat): the validity call of its flaw",
}
# labels people entered in the browser (`peerlake label`; datasets entered_blind, entered_judge_shown)
ENTERED = ("each (label a person entered, repeat), every person's label its own item: a span, the label of the "
           "judge's unit matching it as for imported labels; the whole review, the label most of the judge's units "
           "carry, else 'none'")
BOOT = "95% percentile bootstrap over reviews ({n} resamples, seed {seed})"


def _level(labels) -> str:
    """ordinal when every label but 'none' is a number (a score scale), else nominal."""
    vals = [x for x in labels if x is not None and str(x) != NONE]
    try:
        [float(x) for x in vals]
    except (TypeError, ValueError):
        return "nominal"
    return "ordinal" if vals else "nominal"


def _coded(frame: pd.DataFrame, cols: list[str], level: str) -> np.ndarray:
    """Raters (cols) × items of numeric codes sharing one category map; 'none' is missing on an ordinal scale."""
    flat = frame[cols].to_numpy(dtype=object).ravel()
    if level != "nominal":
        flat = [None if x is None or str(x) == NONE or (isinstance(x, float) and np.isnan(x)) else float(x)
                for x in flat]
    else:
        flat = [None if x is None or (isinstance(x, float) and np.isnan(x)) else str(x) for x in flat]
    values, _ = codes(flat, level)
    return values.reshape(len(frame), len(cols)).T


def _mapping(items: pd.DataFrame) -> tuple[str | None, str | None]:
    """The label mapping (name, sha256) of a group's human labels; null for a dataset's own labels."""
    if "label_mapping_sha256" not in items:
        return None, None
    pairs = items[["label_mapping", "label_mapping_sha256"]].dropna().drop_duplicates()
    if pairs.empty:
        return None, None
    return ", ".join(sorted(pairs["label_mapping"])), ", ".join(sorted(pairs["label_mapping_sha256"]))


class Card:
    """Rows of one mart build: the bootstrap settings and the rows so far."""

    def __init__(self, n_resamples: int, seed: int):
        self.n_resamples, self.seed, self.rows = n_resamples, seed, []

    def add(self, config: dict, statistic: str, *, dataset=None, dimension: str, other=None, level=None,
            estimate=NAN, ci=(NAN, NAN), n=0, n_reviews=0, method: str, status=None, null_reason=None,
            mapping=(None, None)):
        measured = estimate is not None and not np.isnan(estimate)
        self.rows.append({
            "judge_card_id": join_id(config["study_id"], config["judge_config"], dataset or "", dimension, statistic,
                                     other or ""),
            **{k: config[k] for k in CONFIG}, "dataset": dataset, "dimension": dimension,
            "label_mapping": mapping[0], "label_mapping_sha256": mapping[1], "statistic": statistic,
            "other_judge_config": other, "measurement_level": level,
            "estimate": float(estimate) if measured else NAN,
            "ci_low": float(ci[0]) if measured else NAN, "ci_high": float(ci[1]) if measured else NAN,
            "n": int(n), "n_reviews": int(n_reviews), "method": method,
            "status": status or ("measured" if measured else "not_measured"),
            "null_reason": None if measured else (null_reason or "undefined")})

    def boot(self, statistic, clusters) -> tuple[float, float]:
        return cluster_bootstrap(statistic, clusters, n_resamples=self.n_resamples, seed=self.seed)

    def alpha(self, data: np.ndarray, level: str, clusters) -> tuple[float, tuple[float, float]]:
        """α of raters × items and its interval over `clusters` (the review of each item)."""
        est = alpha(data, level)
        if np.isnan(est):
            return est, (NAN, NAN)
        return est, self.boot(lambda cols: alpha(data[:, cols], level), clusters)

    def kappa(self, data: np.ndarray, weights: str | None, clusters) -> tuple[float, tuple[float, float]]:
        """Cohen's κ of the two rows of `data` and its interval over `clusters`."""
        est = cohen_kappa(data[0], data[1], weights)
        if np.isnan(est):
            return est, (NAN, NAN)
        return est, self.boot(lambda cols: cohen_kappa(data[0, cols], data[1, cols], weights), clusters)

    @property
    def boot_method(self) -> str:
        return BOOT.format(n=self.n_resamples, seed=self.seed)


def _retest_scores(card: Card, config: dict, scores: pd.DataFrame) -> None:
    for metric, g in scores.groupby("metric", sort=True):
        g = g[g["value"].notna()]
        wide = g.pivot_table(index="subject_key", columns="repeat_index", values="value", aggfunc="first")
        wide = wide[wide.notna().sum(axis=1) >= 2]
        n = len(wide)
        why = None if n >= 2 else "fewer_than_2_reviews_repeated"
        groups = [row.dropna().to_numpy() for _, row in wide.iterrows()]
        est, lo, hi = icc1(groups) if why is None else (NAN, NAN, NAN)
        card.add(config, "retest_icc", dimension=metric, level="interval", estimate=est, ci=(lo, hi), n=n,
                 n_reviews=n, null_reason=why or "no_variation",
                 method="ICC(1) one-way random, single repeat (scipy f_oneway F); Shrout & Fleiss F interval")
        data = wide.to_numpy(dtype=float).T  # repeats × reviews
        est, ci = card.alpha(data, "interval", wide.index.to_numpy()) if why is None else (NAN, (NAN, NAN))
        card.add(config, "retest_alpha", dimension=metric, level="interval", estimate=est, ci=ci, n=n, n_reviews=n,
                 null_reason=why or "one_value",
                 method=f"Krippendorff alpha (interval), repeats as raters; {card.boot_method}")


def _retest_labels(card: Card, config: dict, items: pd.DataFrame) -> None:
    for (dataset, dimension), g in items.groupby(["dataset", "dimension"], sort=True):
        level = _level(g["human_label"])
        wide = g.pivot_table(index=["review_key", "item_id"], columns="repeat_index", values="judge_label",
                             aggfunc="first")
        wide = wide[wide.notna().sum(axis=1) >= 2]
        if wide.empty:
            card.add(config, "retest_alpha", dataset=dataset, dimension=dimension, level=level, mapping=_mapping(g),
                     null_reason="fewer_than_2_repeats", method="Krippendorff alpha, repeats as raters")
            continue
        data = _coded(wide.reset_index(drop=True), list(wide.columns), level)
        reviews = wide.index.get_level_values("review_key").to_numpy()
        est, ci = card.alpha(data, level, reviews)
        card.add(config, "retest_alpha", dataset=dataset, dimension=dimension, level=level, mapping=_mapping(g),
                 estimate=est, ci=ci, n=len(wide), n_reviews=len(set(reviews)), null_reason="one_value",
                 method=f"Krippendorff alpha ({level}) of the judge's label of each human-labelled item, repeats as "
                        f"raters; {card.boot_method}")


def _human(card: Card, config: dict, items: pd.DataFrame, annotators: pd.DataFrame) -> bool:
    """The judge against the human reference labels, and the annotators' ceiling on the same items.
    True when the configuration has any human-labelled item."""
    found = False
    for (dataset, dimension), g in items.groupby(["dataset", "dimension"], sort=True):
        found = found or len(g) > 0
        level, mapping = _level(g["human_label"]), _mapping(g)
        data = _coded(g.reset_index(drop=True), ["judge_label", "human_label"], level)
        reviews, n, n_rev = g["review_key"].to_numpy(), len(g), g["review_key"].nunique()
        weights = None if level == "nominal" else "quadratic"
        k, ci = card.kappa(data, weights, reviews)
        where = ENTERED if str(dataset).startswith("entered") else MATCHED.get(config["judge"], MATCHED["depth"])
        card.add(config, "human_kappa", dataset=dataset, dimension=dimension, level=level, mapping=mapping,
                 estimate=k, ci=ci, n=n,
                 n_reviews=n_rev, method=f"Cohen kappa ({weights or 'unweighted'}) vs the reference labels, {where}; "
                                     f"{card.boot_method}")
        a, ci = card.alpha(data, level, reviews)
        card.add(config, "human_alpha", dataset=dataset, dimension=dimension, level=level, mapping=mapping,
                 estimate=a, ci=ci, n=n,
                 n_reviews=n_rev, method=f"Krippendorff alpha ({level}), judge and reference as raters, {where}; "
                                     f"{card.boot_method}")
        ann = annotators[(annotators["dataset"] == dataset) & (annotators["dimension"] == dimension)
                         & annotators["item_id"].isin(set(g["item_id"]))]
        wide = ann.pivot_table(index=["review_key", "item_id"], columns="annotator", values="annotator_label",
                               aggfunc="first")
        wide = wide[wide.notna().sum(axis=1) >= 2] if len(wide) else wide
        if wide.empty:
            card.add(config, "human_human_alpha", dataset=dataset, dimension=dimension, level=level, mapping=mapping,
                     null_reason="fewer_than_2_annotators", method="Krippendorff alpha, annotators as raters")
            continue
        hdata = _coded(wide.reset_index(drop=True), list(wide.columns), level)
        hreviews = wide.index.get_level_values("review_key").to_numpy()
        a, ci = card.alpha(hdata, level, hreviews)
        card.add(config, "human_human_alpha", dataset=dataset, dimension=dimension, level=level, mapping=mapping,
                 estimate=a, ci=ci,
                 n=len(wide), n_reviews=len(set(hreviews)), null_reason="one_value",
                 method=f"Krippendorff alpha ({level}) of {wide.shape[1]} annotators on the same human items (a span: "
                        f"each annotator's span with the highest IoU, else 'none'; a sentence or comment: each "
                        f"person's own label); the ceiling; "
                        f"{card.boot_method}")
    return found


def _between_labels(card: Card, configs: dict, items: pd.DataFrame) -> None:
    keys = ["study_id", "dataset", "dimension", "review_key", "item_id", "repeat_index"]
    side = items[[*keys, "judge_config", "judge_label", "human_label",
                  *[c for c in ("label_mapping", "label_mapping_sha256") if c in items]]]
    # an item two people labelled in the browser is one row per person: the judges' labels of it once
    side = side.drop_duplicates([*keys, "judge_config"])
    pairs = side.merge(side, on=keys, suffixes=("_x", "_y"))
    pairs = pairs[pairs["judge_config_x"] < pairs["judge_config_y"]]
    for (study, dataset, dimension, cx, cy), g in pairs.groupby(
            ["study_id", "dataset", "dimension", "judge_config_x", "judge_config_y"], sort=True):
        level = _level(g["human_label_x"])
        data = _coded(g.reset_index(drop=True), ["judge_label_x", "judge_label_y"], level)
        reviews = g["review_key"].to_numpy()
        a, ci = card.alpha(data, level, reviews)
        card.add(configs[(study, cx)], "judge_judge_alpha", dataset=dataset, dimension=dimension, other=cy,
                 mapping=_mapping(g.rename(columns={"label_mapping_x": "label_mapping",
                                                    "label_mapping_sha256_x": "label_mapping_sha256"})),
                 level=level, estimate=a, ci=ci, n=len(g), n_reviews=g["review_key"].nunique(),
                 null_reason="one_value",
                 method=f"Krippendorff alpha ({level}) of two judge configurations' labels of the same human spans "
                        f"(same repeat); {card.boot_method}")


def _between_scores(card: Card, configs: dict, agreement: pd.DataFrame) -> None:
    for row in agreement.itertuples(index=False):
        cfg = configs.get((row.study_id, row.judge_config_x))
        if cfg is None:
            continue
        r = NAN if pd.isna(row.pearson) else float(row.pearson)
        card.add(cfg, "judge_judge_pearson", dimension=row.metric, other=row.judge_config_y, level="interval",
                 estimate=r, ci=fisher_ci(r, int(row.n_reviews)), n=int(row.n_reviews), n_reviews=int(row.n_reviews),
                 null_reason=None if pd.isna(row.correlation_null_reason) else row.correlation_null_reason,
                 method="Pearson r of review-level scores (quality_judge_agreement); Fisher z interval (analytic)")


def card_table(scopes: pd.DataFrame, scores: pd.DataFrame, items: pd.DataFrame, annotators: pd.DataFrame,
               agreement: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """scopes: one row per study judge configuration (CONFIG columns); scores: (CONFIG…, subject_key,
    repeat_index, metric, value); items: int_judge_card_items; annotators: int_judge_card_annotator_items;
    agreement: quality_judge_agreement."""
    card = Card(n_resamples, seed)
    configs = {}
    for cfg in scopes[CONFIG].drop_duplicates().sort_values(["study_id", "judge_config"]).to_dict("records"):
        configs[(cfg["study_id"], cfg["judge_config"])] = cfg
    for (study, jc), cfg in configs.items():
        mine = (scores["study_id"] == study) & (scores["judge_config"] == jc)
        _retest_scores(card, cfg, scores[mine])
        labelled = items[(items["study_id"] == study) & (items["judge_config"] == jc)]
        _retest_labels(card, cfg, labelled)
        if not _human(card, cfg, labelled, annotators):
            card.add(cfg, "human_kappa", dimension="*", status="unvalidated", null_reason="no_human_labels",
                     method="no human-labelled item of a review this judge judged (peerlake ingest labels)")
    _between_labels(card, configs, items)
    _between_scores(card, configs, agreement)
    return pd.DataFrame(card.rows, columns=list(COLUMNS)).astype(COLUMNS)
