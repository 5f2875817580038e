"""Studies keep the demo and a user's work apart, and a drawn sample is what gets reviewed.

Real Dagster runs, dbt builds and GX gates through the CLI; the model sits behind a loopback
OpenAI-compatible server (the network edge)."""

import json
import shutil

import duckdb

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.warehouse import EventLog, HumanReviewImported, Lake
from tests.orchestration.conftest import run_cli


def _env(lake_root, server, samples=1):
    return {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_PROVIDER": "openai_compatible",
            "PEERLAKE_BASE_URL": server.openai_base_url, "PEERLAKE_MODEL": "fake-reviewer",
            "PEERLAKE_DEMO_ONLY": "demo-001", "PEERLAKE_SAMPLES": str(samples)}


def _sql(lake_root, q):
    with duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True) as con:
        return con.execute(q).fetchall()


def _reviewed(lake_root) -> dict[str, set[str]]:
    """Which papers each paid review call was about, by the study that paid for it."""
    out: dict[str, set[str]] = {}
    for e in EventLog(Lake(lake_root)).iter_events("llm_call"):
        if e.status == "ok" and e.purpose == "review":  # the demo's judges make calls of their own
            out.setdefault(getattr(e, "study", None) or "?", set()).add(e.subject_id)
    return out


def _user_papers(tmp_path, n=4):
    """n real PDFs under user ids (copies of the demo PDFs' bytes under new names, not synthetic)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    for i, src in enumerate(demo_papers()[:n]):
        shutil.copy(src, folder / f"user-{i + 1}.pdf")
    return folder


def test_demo_and_a_user_study_never_mix(tmp_path, review_server):
    lake_root = tmp_path / "lake"
    env = _env(lake_root, review_server)
    # The demo study's model steps only: the marts (which hold every study) are built by the user's run.
    demo = run_cli(["run", "demo", "--no-build"], env)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert _reviewed(lake_root) == {"demo": {"demo-001"}}

    # `peerlake review` before the user ingested anything: it refuses rather than review the demo.
    nothing = run_cli(["review"], env)
    assert nothing.returncode == 1
    assert "no ingested manuscript" in (nothing.stdout + nothing.stderr).replace("\n", " ")
    assert _reviewed(lake_root) == {"demo": {"demo-001"}}

    ingest = run_cli(["ingest", "pdf", str(_user_papers(tmp_path, 2))], env)
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    mine = run_cli(["review"], env)
    assert mine.returncode == 0, mine.stdout + mine.stderr
    assert _reviewed(lake_root) == {"demo": {"demo-001"}, "default": {"user-1", "user-2"}}

    by_study = _sql(lake_root, "select study_id, list(distinct paper_id order by paper_id) "
                               "from fct_ai_review_scores group by 1 order by 1")
    assert by_study == [("default", ["user-1", "user-2"]), ("demo", ["demo-001"])]
    rep = _sql(lake_root, "select study_id, n_papers from reliability_repeatability order by 1")
    assert rep == [("default", 2), ("demo", 1)]
    paid = dict(_sql(lake_root, "select study_id, sum(n_paid_calls) from cost_by_study group by 1"))
    assert paid == {"default": 2, "demo": 1}

    # A second study of one of the same papers: its call replays, paid once, shown as a replay.
    requests = review_server.requests
    assert run_cli(["study", "new", "again", "--ids", "user-1"], env).returncode == 0
    again = run_cli(["run", "again"], env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert review_server.requests == requests
    rows = _sql(lake_root, "select study_id, n_paid_calls, n_review_calls_used, n_review_calls_replayed "
                           "from cost_by_study order by 1")
    assert rows == [("again", 0, 1, 1), ("default", 2, 2, 0), ("demo", 1, 1, 0)]


def test_the_drawn_sample_is_what_gets_reviewed(tmp_path, review_server):
    lake_root = tmp_path / "lake"
    env = _env(lake_root, review_server)
    assert run_cli(["ingest", "pdf", str(_user_papers(tmp_path, 4))], env).returncode == 0
    # Human ratings make the papers a sampling population (one venue, two score bins).
    log = EventLog(Lake(lake_root))
    log.append_many([HumanReviewImported(paper_id=f"user-{i}", review_id=f"r{i}", source="test",
                                         venue="TEST 2026", rating=2.0 if i <= 2 else 8.0,
                                         rating_scale="TEST:1,2,3,4,5,6,7,8,9,10",
                                         confidence=3.0, body_sha256="e" * 64) for i in range(1, 5)])
    log.seal()
    log.close()
    drawn = run_cli(["sample", "--per-venue", "2", "--strata", "score_bin", "--seed", "7"], env)
    assert drawn.returncode == 0, drawn.stdout + drawn.stderr
    sample = next(EventLog(Lake(lake_root)).iter_events("sample_drawn"))
    chosen = set(json.loads(sample.paper_ids_json))
    assert len(chosen) == 2

    # What gets reviewed is decided before the marts (which scope by the study: the first test's);
    # the build is left out here.
    res = run_cli(["review", "--no-build"], env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _reviewed(lake_root) == {"default": chosen}
    assert review_server.requests == 2
    resolved = [e for e in EventLog(Lake(lake_root)).iter_events("study_resolved") if e.asset == "ai_reviews"]
    assert [set(json.loads(e.paper_ids_json)) for e in resolved] == [chosen]
