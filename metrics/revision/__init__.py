"""The revision crossover's marts as pandas tables (issue #12): each function takes the contract models
(int_revision_scores / int_revision_outcomes / int_revision_cells, or revision_gains built from them) and
returns one mart; the arithmetic is metrics.stats.revision. gains: per-paper gains, per-cell means, Scorer
gaps · agreement: direction tables and the noise-adjusted correlation · outcomes: Selector agreement, the
validators' counts, the fixed-rule cases."""
