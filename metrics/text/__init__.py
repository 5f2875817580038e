"""Text measures over review text: n-gram overlap with the human reviews (ROUGE, BLEU)."""
