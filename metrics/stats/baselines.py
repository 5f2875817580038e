"""Trivial baselines a score or decision predictor has to beat, computed on the same papers as its own figure.

  constant        every paper gets one value. For scores: the papers' mean human score (the constant with
                  the smallest squared error, chosen in-sample, so the baseline is if anything flattering);
                  its MAE is the mean absolute deviation from that mean, its RMSE the population SD. As an
                  acceptance score it ranks nothing: AUC ½ (acceptance_auc of all-tied scores).
  length          the review's length in characters as the predictor: its correlation with the human mean
                  score and its acceptance AUC.
  human threshold where humans are the reference: "accept when the papers' mean human score > t", t chosen
                  in-sample for the best accuracy (ICLR 2025: t = 6 reaches ~88 %); with the human mean's
                  own AUC. The system gets the same rule on its own score (best_threshold_accuracy), so the
                  two accuracies stand on one footing.
"""

from collections.abc import Sequence

import numpy as np


def constant_errors(human: Sequence[float]) -> tuple[float, float]:
    """(MAE, RMSE) of predicting every paper the mean of `human`; nan for no papers."""
    h = np.asarray(human, dtype=float)
    if h.size == 0:
        return float("nan"), float("nan")
    err = h - h.mean()
    return float(np.abs(err).mean()), float(np.sqrt((err ** 2).mean()))


def best_threshold_accuracy(scores: Sequence[float], accepted: Sequence[bool]) -> tuple[float | None, float]:
    """(t, accuracy) of the rule "accept when score > t" with the best accuracy over t ∈ {−∞} ∪ the scores
    (every distinct split); the smallest such t wins a tie, t = None stands for −∞ (accept every paper).
    nan accuracy for no papers."""
    s = np.asarray(scores, dtype=float)
    a = np.asarray(accepted, dtype=bool)
    if s.size == 0:
        return None, float("nan")
    best_t, best = None, float((a == (s > -np.inf)).mean())
    for t in np.unique(s):
        acc = float((a == (s > t)).mean())
        if acc > best:
            best_t, best = float(t), acc
    return best_t, best
