"""`peerlake ingest …` and `peerlake sample` through typer, against a temp lake."""

import json

import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.demo_corpus import demo_papers, demo_reviews
from peerlake.warehouse import EventLog


def _app():
    app = typer.Typer()
    register(app)
    return app


def test_ingest_commands_and_sample(lake, tmp_path):
    runner = CliRunner()
    app = _app()
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"")
    r = runner.invoke(app, ["ingest", "pdf", str(demo_papers()[0]), str(bad)])
    assert r.exit_code == 0, r.output
    assert "ingested 1" in r.output and "rejected 1" in r.output and "empty (0 bytes)" in r.output
    assert runner.invoke(app, ["ingest", "pdf", str(bad), "--strict"]).exit_code == 1

    r = runner.invoke(app, ["ingest", "openreview", *map(str, demo_reviews())])
    assert r.exit_code == 0 and "imported 12" in r.output and "status_recorded 4" in r.output, r.output

    reviews = tmp_path / "sys.jsonl"
    reviews.write_text(json.dumps({"paper_id": "demo-001", "review_id": "x1", "score": 6, "text": "ok"}) + "\n{oops\n")
    r = runner.invoke(app, ["ingest", "reviews", str(reviews), "--system", "SEA-E"])
    assert r.exit_code == 0 and "imported 1" in r.output and "line 2: not valid JSON" in r.output, r.output

    r = runner.invoke(app, ["sample", "--per-venue", "2", "--strata", "score_bin", "--seed", "9"])
    assert r.exit_code == 1 and "cover every area and score bin" in r.output  # 2 papers, 3+ bins
    r = runner.invoke(app, ["sample", "--per-venue", "3,2", "--strata", "status", "--seed", "9"])
    assert r.exit_code == 0, r.output
    log = EventLog()
    samples = list(log.iter_events("sample_drawn"))
    assert [s.size for s in samples] == [3, 2] and samples[1].parent_sample_id == samples[0].sample_id
    assert set(json.loads(samples[1].paper_ids_json)) <= set(json.loads(samples[0].paper_ids_json))
    kinds = {e.event_type for e in log.iter_events()}
    assert {"paper_ingested", "ingest_rejected", "human_review_imported", "paper_status_recorded",
            "external_review_imported", "sample_drawn"} <= kinds
    log.close()

    r = runner.invoke(app, ["ingest", "openreview", "--live"])
    assert r.exit_code != 0 and "--live needs --venue" in r.output
