"""The revision crossover, one home: its arithmetic (arithmetic: gains, directions, noise-adjusted
correlation, Selector agreement, case strata, pure numpy) and its marts as pandas tables. Each table
function takes the contract models (int_revision_scores / int_revision_outcomes / int_revision_cells, or
revision_gains built from them) and returns one mart. gains: per-paper gains, per-cell means, Scorer
gaps · agreement: direction tables and the noise-adjusted correlation · outcomes: Selector agreement, the
validators' counts, the fixed-rule cases."""
