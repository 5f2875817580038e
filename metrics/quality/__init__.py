"""Review quality (PRISM): the statistics over the quality marts that dbt SQL cannot hold.

comparison: systems against humans, paired by paper — mean difference with a paired paper-bootstrap
interval, Wilcoxon signed-rank, Cliff's δ and its band, Holm across metrics (the quality_comparison
mart). Every score itself is computed in dbt from the judges' units; nothing here makes a score.
"""

from peerlake.metrics.quality.comparison import cliffs_delta, comparison_table, holm, magnitude, wilcoxon_p

__all__ = ["cliffs_delta", "comparison_table", "holm", "magnitude", "wilcoxon_p"]
