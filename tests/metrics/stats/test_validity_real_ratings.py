"""Validity statistics on real human ratings (ICLR 2022, 500 papers, ../shared/data).

No AI scores ship with this data, so the "reviewer" here is each paper's first human reviewer and
H_i is the mean of the others: the human-vs-human reference an AI reviewer should be compared with."""

import csv
from itertools import product

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from peerlake.metrics.stats.validity import validity_table


def first_reviewer_vs_rest(shared_data) -> pd.DataFrame:
    path = shared_data / "ai_scientist_iclr2022_ratings" / "ratings_subset.tsv"
    rows = []
    with path.open() as fh:
        for rec in csv.DictReader(fh, delimiter="\t"):
            ratings = [float(rec[str(i)]) for i in range(7) if rec.get(str(i))]
            if len(ratings) < 2:
                continue
            rows.append({"reviewer_config": "human_reviewer_1", "paper_id": rec["paper_id"],
                         "ai_score_mean": ratings[0], "human_score_mean": float(np.mean(ratings[1:])),
                         "venue": "ICLR 2022", "year": 2022, "venue_year": "ICLR 2022",
                         "is_accepted": rec["decision"].startswith("Accept"), "is_withdrawn": False})
    return pd.DataFrame(rows)


def test_validity_on_iclr2022_ratings(shared_data):
    papers = first_reviewer_vs_rest(shared_data)
    assert len(papers) >= 450
    table = validity_table(papers).set_index("scope")
    overall = table.loc["all"]
    x, h = papers["ai_score_mean"].to_numpy(), papers["human_score_mean"].to_numpy()
    assert overall.pearson == pytest.approx(stats.pearsonr(x, h).statistic)
    assert overall.spearman == pytest.approx(stats.spearmanr(x, h).statistic)
    assert overall.mae == pytest.approx(np.abs(x - h).mean())
    pos, neg = x[papers["is_accepted"]], x[~papers["is_accepted"]]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in product(pos, neg))
    assert overall.acceptance_auc == pytest.approx(wins / (len(pos) * len(neg)))
    # One human's rating predicts acceptance and the other humans, clearly but imperfectly.
    assert 0.6 < overall.acceptance_auc < 0.95 and 0.2 < overall.pearson < 0.9
    assert table.loc["venue_year:ICLR 2022"].n_papers == overall.n_papers
