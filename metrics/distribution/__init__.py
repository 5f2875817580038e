"""Score distributions: the logprob probe, its Quick/Standard estimators, their risks, and granularity stats."""

from peerlake.metrics.distribution.estimators import SCORES, affine_move, empirical, quick, sharpen, standard
from peerlake.metrics.distribution.probe import ProbeDistribution, probe_distribution
from peerlake.metrics.distribution.risk import brier_loss, collision_rate, debiased_risk, direct_sampling_risk

__all__ = ["SCORES", "ProbeDistribution", "affine_move", "brier_loss", "collision_rate", "debiased_risk",
           "direct_sampling_risk", "empirical", "probe_distribution", "quick", "sharpen", "standard"]
