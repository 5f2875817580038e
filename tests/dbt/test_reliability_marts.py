"""One real `dbt build` over a lake of repeated reviews; the reliability marts are checked against
computations written out in this file (numpy, scipy, itertools loops — never metrics.stats, which
the marts call), and their gates against tampered copies."""

import json
import math
import shutil
from collections import Counter, defaultdict
from datetime import timedelta
from itertools import combinations

import duckdb
import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from peerlake.expectations import run_gate
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, PaperIngested
from tests.dbt.sample_lake import T0, _call, _request, review_json
from tests.dbt.test_marts import dbt_build
from tests.metrics.stats.by_hand import rank_counts_by_hand, variance_upper_by_hand
from tests.studies.cover import cover_everything

CONFIG_R = {"provider": "local", "model": "qwen-1.5b", "template": "review_v1", "hash": "h-r"}
CONFIG_S = {"provider": "openai", "model": "gpt-4.1-mini", "template": "review_v1", "hash": "h-s"}
PAPERS = {f"Q{i}": ("ICLR 2017" if i < 5 else "ICLR 2018") for i in range(8)}
ROUNDS = 6


def build_lake(root):
    """8 papers × 6 rounds under R (one answer unparsable), 3 papers × 2 under S; human ratings."""
    rng = np.random.default_rng(42)
    quality = {p: rng.integers(3, 8) for p in PAPERS}
    scores: dict[tuple, list] = defaultdict(list)  # (config key, paper) -> parsed scores in order
    events, ids, at = [], {}, T0
    for key, cfg, papers, rounds in [("R", CONFIG_R, list(PAPERS), ROUNDS), ("S", CONFIG_S, ["Q0", "Q1", "Q5"], 2)]:
        for paper in papers:
            for sample in range(rounds):
                at += timedelta(seconds=1)
                req = _request(cfg, paper, sample)
                ids[key] = req.reviewer_config
                if (key, paper, sample) == ("R", "Q3", 2):
                    events.append(_call(req, at, text="no JSON here"))
                    continue
                score = int(np.clip(quality[paper] + rng.integers(-2, 3), 1, 10))
                scores[(key, paper)].append(score)
                events.append(_call(req, at, text=review_json(score)))
    human = {}
    for i, (paper, venue) in enumerate(PAPERS.items()):
        events.append(PaperIngested(occurred_at=T0, paper_id=paper, title=paper, source_uri="x",
                                    pdf_sha256="a" * 64, package_sha256="b" * 64, n_pages=8,
                                    n_text_records=10, n_chars=100, venue=venue))
        if paper == "Q7":
            continue  # no human review: left out of the correlations
        ratings = [float(quality[paper] + d) for d in (-1, 1, 0)][: 2 + i % 2]
        human[paper] = float(np.mean(ratings))
        for j, rating in enumerate(ratings):
            events.append(HumanReviewImported(
                occurred_at=T0, paper_id=paper, review_id=f"{paper}-h{j}", source="openreview",
                venue=venue, rating=rating, rating_scale="TEST:1,2,3,4,5,6,7,8,9,10", confidence=3.0,
                body_sha256="e" * 64))
    log = EventLog(Lake(root))
    log.append_many(events)
    cover_everything(log)  # one study, "test": every paper and configuration
    log.seal()
    log.close()
    return scores, human, ids


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("reliability")
    scores, human, ids = build_lake(root / "lake")
    db, _ = dbt_build(root / "lake", root)  # default path: <lake>/peerlake.duckdb, where the CLI looks
    return root / "lake", db, scores, human, ids


def rows(db, sql):
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=False)) for r in cur.fetchall()]


def test_repeatability_extra_columns(built):
    _, db, scores, _, ids = built
    got = {r["reviewer_config"]: r for r in rows(db, "select * from reliability_repeatability")}
    for key in ("R", "S"):
        papers = {p: s for (k, p), s in scores.items() if k == key}
        flat = [x for s in papers.values() for x in s]
        variances = [np.var(s, ddof=1) for s in papers.values()]
        r = got[ids[key]]
        assert r["variance_hat"] == pytest.approx(np.mean(variances))
        # M = N·⌊n_min/2⌋ over papers with two or more scores (valid with unequal counts)
        repeated = [len(s) for s in papers.values() if len(s) >= 2]
        assert r["n_certified_pairs"] == len(repeated) * (min(repeated) // 2)
        assert r["share_scores_5_to_7"] == pytest.approx(np.mean([5 <= x <= 7 for x in flat]))
        assert r["share_scores_5_to_6"] == pytest.approx(np.mean([5 <= x <= 6 for x in flat]))
        for q in (10, 25, 50, 75, 90):
            assert r[f"paper_variance_p{q}"] == pytest.approx(np.quantile(variances, q / 100))
        # Drift by hand: late − early half per paper, papers resampled by the documented draw
        # (10,000 rows of default_rng(20261129).integers, percentile interval).
        diff = np.array([np.mean(s[len(s) // 2:]) - np.mean(s[: len(s) // 2]) for s in papers.values()])
        idx = np.random.default_rng(20261129).integers(0, diff.size, size=(10_000, diff.size))
        lo, hi = np.percentile(diff[idx].mean(axis=1), [2.5, 97.5])
        assert (r["drift_shift"], r["drift_ci_low"], r["drift_ci_high"], r["n_papers_drift"]) == \
            pytest.approx((diff.mean(), lo, hi, len(papers)))


def test_score_histogram(built):
    _, db, scores, _, ids = built
    for key in ("R", "S"):
        counts = Counter(x for (k, _), s in scores.items() if k == key for x in s)
        got = {r["score_bin"]: (r["n_scores"], r["share_of_scores"]) for r in rows(
            db, f"select * from reliability_score_histogram where reviewer_config = '{ids[key]}'")}
        total = sum(counts.values())
        assert got == {b: (counts.get(b, 0), pytest.approx(counts.get(b, 0) / total)) for b in range(1, 11)}


def test_rank_reproducibility_within_venue_years(built):
    _, db, scores, _, ids = built
    # Q3 lost one answer (5 scores): left out; the rest have 6 rounds.
    kept = [p for p in PAPERS if p != "Q3"]
    matrix = np.array([scores[("R", p)] for p in kept], dtype=float)
    got = {r["k"]: r for r in rows(
        db, f"select * from reliability_rank_reproducibility where reviewer_config = '{ids['R']}'")}
    assert sorted(got) == [1, 2, 3]
    for k, r in got.items():
        same, tie, reverse, n_parts = rank_counts_by_hand(matrix.tolist(), k, [PAPERS[p] for p in kept])
        assert (r["n_same"], r["n_tie"], r["n_reverse"], r["n_partitions"]) == (same, tie, reverse, n_parts)
        assert n_parts == {1: 15, 2: 45, 3: 10}[k]  # ½·C(6,k)·C(6−k,k)
        assert r["n_pairs"] == 6 + 3  # C(4,2) in 2017 without Q3, C(3,2) in 2018
        assert (r["n_papers"], r["n_papers_excluded"]) == (7, 1)
        assert r["pct_same"] == pytest.approx(100 * same / (9 * n_parts))
        assert r["pct_total"] == pytest.approx(100)


def test_close_pairs_cover_every_pair_once_per_k(built):
    _, db, scores, _, ids = built
    got = rows(db, f"select * from reliability_close_pairs where reviewer_config = '{ids['R']}'")
    assert sorted({r["k"] for r in got}) == [1]  # the second half has 3 rounds: only k = 1 fits
    assert sum(r["n_pairs"] for r in got) == 9
    kept = [p for p in PAPERS if p != "Q3"]
    gaps = Counter()
    for a, b in combinations(kept, 2):
        if PAPERS[a] == PAPERS[b]:
            gap = abs(np.mean(scores[("R", a)][:3]) - np.mean(scores[("R", b)][:3]))
            gaps[next(label for label, lo, hi in [("0", -1, 0), ("(0, 0.4]", 0, 0.4), ("(0.4, 1]", 0.4, 1),
                                                   ("(1, 2]", 1, 2), ("> 2", 2, 99)] if lo < gap <= hi + 1e-9)] += 1
    assert {r["gap_bin"]: r["n_pairs"] for r in got if r["n_pairs"]} == dict(gaps)


def test_budgets_match_the_formulas(built):
    _, db, scores, _, ids = built
    got = rows(db, "select * from reliability_budgets order by reviewer_config, tolerance")
    assert len(got) == 4 and {r["tolerance"] for r in got} == {0.25, 0.5}
    for r in got:
        key = next(k for k, v in ids.items() if v == r["reviewer_config"])
        papers = [s for (k, _), s in scores.items() if k == key]
        v_hat = np.mean([np.var(s, ddof=1) for s in papers])
        # R: Q3 kept 5 of 6 scores, so M = 8·⌊5/2⌋ = 16 pairs (Σ⌊n_i/2⌋ = 23 would be anti-conservative).
        m = len(papers) * (min(len(s) for s in papers) // 2)
        assert m == {"R": 16, "S": 3}[key]
        assert (r["study_id"], r["n_pairs"], r["certified_pairs_rule"]) == ("test", m, "n_papers*floor(n_min/2)")
        u = variance_upper_by_hand(v_hat, m, 0.05)
        eps2 = r["tolerance"] ** 2
        assert r["variance_upper"] == pytest.approx(u, rel=1e-9)
        assert (r["planning_budget"], r["certified_budget"], r["range_only_budget"]) == (
            math.ceil(round(v_hat / (0.05 * eps2), 9)), math.ceil(round(u / (0.05 * eps2), 9)),
            math.ceil(81 * math.log(2 / 0.05) / (2 * eps2)))


def test_validity_against_scipy(built):
    _, db, scores, human, ids = built
    got = {r["scope"]: r for r in rows(
        db, f"select * from reliability_validity where reviewer_config = '{ids['R']}'")}
    assert set(got) == {"all", "venue_year:ICLR 2017", "venue_year:ICLR 2018"}
    rated = [p for p in PAPERS if p in human]
    ai = [np.mean(scores[("R", p)]) for p in rated]
    h = [human[p] for p in rated]
    r = got["all"]
    assert r["n_papers"] == 7
    assert r["pearson"] == pytest.approx(stats.pearsonr(ai, h).statistic)
    assert r["spearman"] == pytest.approx(stats.spearmanr(ai, h).statistic)
    assert r["rmse"] == pytest.approx(np.sqrt(np.mean(np.subtract(ai, h) ** 2)))
    # No acceptance labels in the lake yet: the AUC is null, not a made-up number.
    assert r["acceptance_auc"] is None and r["n_papers_labeled"] == 0
    assert got["venue_year:ICLR 2018"]["n_papers"] == 2  # Q5, Q6 (Q7 has no human review)


def test_gates_pass_and_catch_broken_marts(built, tmp_path):
    _, db, *_ = built
    for suite in ("rank_reproducibility", "close_pairs", "budgets"):
        result = run_gate(suite, db)
        assert result.success and result.statistics["rows"] > 0, result.describe()
    bad = tmp_path / "bad.duckdb"
    shutil.copy(db, bad)
    with duckdb.connect(str(bad)) as con:
        con.execute("update reliability_rank_reproducibility set pct_total = pct_total + 5 where k = 2")
        con.execute("""update reliability_budgets set certified_budget = planning_budget - 1
                       where tolerance = 0.5""")
    [failure] = run_gate("rank_reproducibility", bad).failures
    assert "pct_total" in failure and "|k=2" in failure
    failures = run_gate("budgets", bad).failures
    assert any("certified_budget" in f and "planning_budget" in f for f in failures), failures


def test_budget_cli_reads_the_lake(built, monkeypatch):
    """Wiring, not truth: the CLI and the mart must agree (the numbers are checked above). S has two
    scores for every paper, so the mart's M equals the CLI's."""
    import typer

    from peerlake.commands.budget import register

    lake_root, db, _scores, _, ids = built
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)  # a second command keeps `budget` a subcommand
    monkeypatch.setenv("PEERLAKE_HOME", str(lake_root))
    result = CliRunner().invoke(app, ["budget", "--config", ids["S"][:8], "--tolerance", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    expected = rows(db, "select * from reliability_budgets "
                        f"where reviewer_config = '{ids['S']}' and tolerance = 0.5")[0]
    assert out["reviewer_config"] == f"test|{ids['S']}"
    assert {k: out[k] for k in ("variance_hat", "variance_upper", "planning_budget", "certified_budget",
                                "range_only_budget")} == pytest.approx(
        {k: expected[k] for k in ("variance_hat", "variance_upper", "planning_budget", "certified_budget",
                                  "range_only_budget")})
    ambiguous = CliRunner().invoke(app, ["budget", "--tolerance", "0.5"])
    assert ambiguous.exit_code == 2 and "--config" in ambiguous.output
