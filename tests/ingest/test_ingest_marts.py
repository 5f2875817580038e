"""A real `dbt build` over a lake filled by every ingest path; marts and gates checked against
the events that went in."""

import json
import statistics
from collections import defaultdict

import duckdb
import pytest

from peerlake.expectations import run_gate
from peerlake.ingest.asap import import_asap
from peerlake.ingest.demo_corpus import demo_papers, demo_reviews
from peerlake.ingest.external_reviews import import_external_reviews
from peerlake.ingest.manuscripts import ingest_pdf
from peerlake.ingest.openreview import import_reviews
from peerlake.warehouse import EventLog, Lake
from tests.conftest import SHARED_DATA
from tests.dbt.test_marts import dbt_build
from tests.studies.cover import cover_everything


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    shared_data = SHARED_DATA
    if not shared_data.exists():
        pytest.skip(f"shared test data not found at {shared_data}")
    root = tmp_path_factory.mktemp("ingest_marts")
    log = EventLog(Lake(root / "lake"))
    for p in demo_papers():
        ingest_pdf(log, p, venue="Demo.cc/2026/Conference", is_synthetic=True)
    revised = root / "demo-001.pdf"
    revised.write_bytes(demo_papers()[1].read_bytes())
    ingest_pdf(log, revised, venue="Demo.cc/2026/Conference", is_synthetic=True)  # a second version
    for p in demo_reviews():
        import_reviews(log, p)
    import_asap(log, shared_data / "asap_review_iclr2017" / "sample")
    import_reviews(log, shared_data / "openreview_api_v2" / "iclr2026_v2_submission_with_replies.json")
    ext = root / "ext.jsonl"
    ext.write_text("\n".join(json.dumps({"paper_id": f"demo-00{i}", "review_id": f"x{i}", "sample_index": 0,
                                         "score": [4, 6, 8, 73][i - 1], "text": "t"}) for i in range(1, 5)))
    import_external_reviews(log, ext, "DeepReview")
    cover_everything(log)
    log.seal()
    events = {t: list(log.iter_events(t)) for t in ("paper_ingested", "human_review_imported",
                                                     "paper_status_recorded", "external_review_imported")}
    log.close()
    db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb")
    return db, events


def _rows(db, sql):
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_dim_papers_one_row_per_version_with_status_and_mean(built):
    db, ev = built
    assert _rows(db, "select count(*) from dim_papers where has_manuscript")[0][0] == len(ev["paper_ingested"])
    assert _rows(db, "select n_versions, version_number from dim_papers where paper_id = 'demo-001' "
                     "order by version_number") == [(2, 1), (2, 2)]
    ratings = defaultdict(list)
    for r in ev["human_review_imported"]:
        ratings[r.paper_id].append(r.rating)
    status = {s.paper_id: s for s in ev["paper_status_recorded"]}
    rows = _rows(db, "select paper_id, human_rating_mean, status, acceptance_label, n_pages, n_images "
                     "from dim_papers where is_latest_version")
    assert {r[0] for r in rows} == set(status) | {e.paper_id for e in ev["paper_ingested"]}
    latest = {}
    for e in ev["paper_ingested"]:
        if e.paper_id not in latest or e.event_id > latest[e.paper_id].event_id:
            latest[e.paper_id] = e
    for pid, mean, st, label, pages, images in rows:
        assert mean == pytest.approx(statistics.mean(ratings[pid])) if ratings[pid] else mean is None
        assert st == status[pid].status
        assert label == {True: 1, False: 0, None: None}[status[pid].is_accepted]
        if pid in latest:
            assert (pages, images) == (latest[pid].n_pages, latest[pid].n_images)


def test_human_reviews_on_scale_and_external_scores_in_the_scores_mart(built):
    db, ev = built
    assert _rows(db, "select count(*), count(*) filter (where is_rating_on_scale and has_known_paper) "
                     "from fct_human_reviews") == [(len(ev["human_review_imported"]),) * 2]
    ext = _rows(db, "select paper_id, reviewer_config, overall_score, overall_score_raw, is_parsed "
                    "from fct_ai_review_scores where source = 'external' order by paper_id")
    assert ext == [(e.paper_id, "DeepReview", e.score if e.score <= 10 else None, e.score, e.score <= 10)
                   for e in sorted(ev["external_review_imported"], key=lambda e: e.paper_id)]


def test_gates_pass_and_catch_an_orphan(built, tmp_path):
    db, _ = built
    for suite in ("papers", "human_reviews"):
        result = run_gate(suite, db)
        assert result.success, result.describe()
    # A rating above its scale's maximum fails the human_reviews gate (a review of an unknown paper or off a
    # gapped scale: dbt tests in fct_human_reviews.yml, see tests/expectations/test_column_checks.py).
    broken = tmp_path / "broken.duckdb"
    broken.write_bytes(db.read_bytes())
    with duckdb.connect(str(broken)) as con:
        con.execute("update fct_human_reviews set rating = rating_scale_max + 1 where human_review_id = "
                    "(select max(human_review_id) from fct_human_reviews)")
    [failure] = run_gate("human_reviews", broken).failures
    assert failure.startswith("expect_column_pair_values_a_to_be_greater_than_b(column_A=rating_scale_max, "
                              "column_B=rating")
