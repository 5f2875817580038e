"""Validity statistics on real ratings, through the whole lake: OpenReview-shaped human reviews and
decisions in, one human reviewer's scores imported as an external "system", `peerlake build`, and the
`reliability_validity` mart checked against an independent computation from the raw file.

ICLR 2022 (../shared/data/ai_scientist_iclr2022_ratings): the first reviewer of each paper plays the
reviewer under test; H_i is the mean of the OTHER reviewers, so the comparison is not circular."""

import csv
import json
from itertools import product

import duckdb
import numpy as np
import pytest
from scipy import stats

from tests.orchestration.conftest import run_cli

SYSTEM = "iclr2022-first-reviewer"
VENUE = "ICLR.cc/2022/Conference"


def _papers(shared_data):
    path = shared_data / "ai_scientist_iclr2022_ratings" / "ratings_subset.tsv"
    with path.open() as fh:
        for n, rec in enumerate(csv.DictReader(fh, delimiter="\t")):
            ratings = [float(rec[str(i)]) for i in range(7) if rec.get(str(i))]
            if len(ratings) >= 2:
                yield n, rec["paper_id"], ratings, rec["decision"]


def _write_inputs(shared_data, folder):
    notes, lines = [], []
    for n, pid, ratings, decision in _papers(shared_data):
        prefix = f"{VENUE}/Submission{n + 1}"
        for j, rating in enumerate(ratings[1:], start=2):
            notes.append({"id": f"{pid}-r{j}", "forum": pid, "replyto": pid,
                          "invitations": [f"{prefix}/-/Official_Review"],
                          "signatures": [f"{prefix}/Reviewer_{j}"], "cdate": 1635000000000 + j,
                          "content": {"rating": {"value": int(rating)}, "confidence": {"value": 3},
                                      "summary_of_the_paper": {"value": "rating-only record"}}})
        notes.append({"id": f"{pid}-decision", "forum": pid, "replyto": pid, "invitations": [f"{prefix}/-/Decision"],
                      "signatures": [f"{VENUE}/Program_Chairs"], "cdate": 1640000000000,
                      "content": {"decision": {"value": decision}}})
        lines.append({"paper_id": pid, "review_id": f"{pid}-r1", "score": ratings[0], "text": "rating-only record"})
    (folder / "notes.json").write_text(json.dumps(notes))
    (folder / "first_reviewer.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def test_validity_mart_on_real_iclr2022_ratings(shared_data, tmp_path):
    _write_inputs(shared_data, tmp_path)
    env = {"PEERLAKE_HOME": str(tmp_path / "lake")}
    for args in (["ingest", "openreview", str(tmp_path / "notes.json")],
                 ["ingest", "reviews", str(tmp_path / "first_reviewer.jsonl"), "--system", SYSTEM],
                 # a study of every ingested paper that measures the imported reviews only
                 ["study", "new", "iclr2022", "--all", "--external", SYSTEM, "--no-reviewers"],
                 ["run", "iclr2022"]):
        res = run_cli(args, env)
        assert res.returncode == 0, (args, res.stdout[-3000:], res.stderr[-3000:])

    con = duckdb.connect(str(tmp_path / "lake" / "peerlake.duckdb"), read_only=True)
    row = con.execute("select n_papers, pearson, spearman, mae, rmse, acceptance_auc from reliability_validity "
                      "where study_id = 'iclr2022' and reviewer_config = ? and scope = 'all'", [SYSTEM]).fetchone()
    con.close()

    data = list(_papers(shared_data))
    x = np.array([r[0] for _, _, r, _ in data])
    h = np.array([np.mean(r[1:]) for _, _, r, _ in data])
    accepted = np.array([d.startswith("Accept") for *_, d in data])
    pos, neg = x[accepted], x[~accepted]
    auc = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p, q in product(pos, neg)) / (len(pos) * len(neg))
    n_papers, pearson, spearman, mae, rmse, mart_auc = row
    assert n_papers == len(data)
    assert pearson == pytest.approx(stats.pearsonr(x, h).statistic, abs=1e-9)
    assert spearman == pytest.approx(stats.spearmanr(x, h).statistic, abs=1e-9)
    assert mae == pytest.approx(np.abs(x - h).mean(), abs=1e-9)
    assert rmse == pytest.approx(np.sqrt(((x - h) ** 2).mean()), abs=1e-9)
    assert mart_auc == pytest.approx(auc, abs=1e-9)
    print(f"ICLR 2022, {n_papers} papers, first reviewer vs the rest: Pearson {pearson:.3f}, "
          f"Spearman {spearman:.3f}, MAE {mae:.3f}, RMSE {rmse:.3f}, acceptance AUC {mart_auc:.3f}")
