"""KL divergence between two label distributions, and the focus_divergence mart built from
focus_distributions (the Multi-Layered Review paper).

KL(P_human ‖ P_system) = Σ_i p_i · ln(p_i / q_i), natural log, over the taxonomy's labels (every label
of the dimension, not only those that occur). Each distribution is smoothed by adding ε = 1e-6 to every
label's share and renormalizing: p_i = (c_i / n + ε) / (1 + K·ε) with K labels, so a label one side never
uses gives a large finite term instead of infinity. Direction, log base and ε are
ours (the paper does not say). A side with no items has no distribution: None, never 0."""

import math
from collections.abc import Mapping, Sequence

import pandas as pd

EPSILON = 1e-6
POLARITIES = ("strength", "weakness")
DIMENSIONS = ("target", "aspect")
COMPONENTS = tuple(f"{p}_{d}" for p in POLARITIES for d in DIMENSIONS)  # strength_target, ...


def smoothed(counts: Mapping[str, float], support: Sequence[str], eps: float = EPSILON) -> dict[str, float] | None:
    """Shares over `support` with ε added and renormalized; None when there are no counts. A count for a
    label outside the support is an error: the caller's support is wrong."""
    outside = set(counts) - set(support)
    if outside:
        raise ValueError(f"labels outside the support: {sorted(outside)}")
    n = sum(counts.values())
    if n <= 0:
        return None
    k = len(support)
    return {label: (counts.get(label, 0) / n + eps) / (1 + k * eps) for label in support}


def kl_divergence(p_counts: Mapping[str, float], q_counts: Mapping[str, float], support: Sequence[str],
                  eps: float = EPSILON) -> float | None:
    """KL(P ‖ Q) in nats of the ε-smoothed distributions; None when either side has no counts."""
    p, q = smoothed(p_counts, support, eps), smoothed(q_counts, support, eps)
    if p is None or q is None:
        return None
    kl = sum(p[label] * math.log(p[label] / q[label]) for label in support)
    return max(0.0, kl)  # Gibbs: KL ≥ 0; a float sum over equal distributions may land at -1e-17


OUT_COLUMNS = ["focus_divergence_id", "study_id", "reviewer_config", "source", "reviewer_label",
               *[f"kl_{c}" for c in COMPONENTS], "kl_mean", "n_components",
               "n_items_strength", "n_items_weakness", "n_human_items_strength", "n_human_items_weakness",
               "null_reason", "epsilon"]


def focus_divergence_table(dist: pd.DataFrame, eps: float = EPSILON) -> pd.DataFrame:
    """One row per (study, non-human reviewer configuration) of focus_distributions: the four KL
    components against the study's human reviews and their mean (null unless all four exist).
    `dist` needs study_id, source, reviewer_config, reviewer_label, polarity, dimension, label, n_items,
    n_taxonomies; every label of the support has a row (n_items 0 where unused)."""
    rows = []
    for study, frame in dist.groupby("study_id", sort=True):
        human = frame[frame["reviewer_config"] == "human"]
        mixed = int(frame["n_taxonomies"].max()) > 1
        systems = frame[frame["reviewer_config"] != "human"]
        for cfg, sys in systems.groupby("reviewer_config", sort=True):
            row = {"focus_divergence_id": f"{study}|{cfg}", "study_id": study, "reviewer_config": cfg,
                   "source": sys["source"].iloc[0], "reviewer_label": sys["reviewer_label"].iloc[0], "epsilon": eps}
            reasons = ["mixed_taxonomies"] if mixed else []
            values = []
            for pol in POLARITIES:
                n_sys = _items(sys, pol)
                n_hum = _items(human, pol)
                row[f"n_items_{pol}"], row[f"n_human_items_{pol}"] = n_sys, n_hum
                if not mixed and n_hum == 0:
                    reasons.append(f"no_human_items:{pol}")
                if not mixed and n_sys == 0:
                    reasons.append(f"no_system_items:{pol}")
                for dim in DIMENSIONS:
                    kl = None
                    if not mixed:
                        support = sorted(set(frame.loc[frame["dimension"] == dim, "label"]))
                        kl = kl_divergence(_counts(human, pol, dim), _counts(sys, pol, dim), support, eps)
                    row[f"kl_{pol}_{dim}"] = kl
                    if kl is not None:
                        values.append(kl)
            row["n_components"] = len(values)
            row["kl_mean"] = sum(values) / len(values) if len(values) == len(COMPONENTS) else None
            row["null_reason"] = ";".join(reasons) or None
            rows.append(row)
    return pd.DataFrame(rows, columns=OUT_COLUMNS)


def _counts(frame: pd.DataFrame, polarity: str, dimension: str) -> dict[str, float]:
    sel = frame[(frame["polarity"] == polarity) & (frame["dimension"] == dimension)]
    return {str(label): float(n) for label, n in zip(sel["label"], sel["n_items"], strict=True)}


def _items(frame: pd.DataFrame, polarity: str) -> int:
    """Items of one polarity: each item has exactly one target, so the target rows sum to the item count."""
    sel = frame[(frame["polarity"] == polarity) & (frame["dimension"] == "target")]
    return int(sel["n_items"].sum())
