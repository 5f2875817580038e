"""Paper variants: a built one is ingested as a paper of its own, one that could not be built is
recorded with its reason, and a replayed build writes nothing."""

import json

from peerlake.ingest.demo_corpus import demo_papers
from peerlake.ingest.papers import ingest_pdf, latest_versions
from peerlake.ingest.variants import record_variant, recorded_variants, variant_paper_id
from peerlake.warehouse import EventLog


def _base(lake):
    log = EventLog(lake)
    pdf = demo_papers()[0]
    ingest_pdf(log, pdf)
    return log, latest_versions(log)[pdf.stem], pdf.read_bytes()


def test_a_built_variant_is_a_paper_and_a_replay_writes_nothing(lake):
    log, base, pdf = _base(lake)
    details = {"item_id": "demo-001:d0", "distance": 0}
    event, new = record_variant(log, base, kind="contradiction", experiment_config="c" * 16, details=details,
                                pdf_bytes=pdf, request_keys=["k2", "k1", "k1"], study="s")
    assert new and event.built and event.reason is None
    assert event.variant_id == variant_paper_id(base.paper_id, "contradiction", event.variant_key)
    assert event.variant_id.startswith("demo-001~contradiction-")
    assert json.loads(event.request_keys_json) == ["k1", "k2"]  # sorted, once each
    assert json.loads(event.details_json) == details
    paper = latest_versions(log)[event.variant_id]
    assert paper.is_synthetic and paper.venue == base.venue and paper.package_sha256 == event.package_sha256
    assert log.blobs.exists(event.pdf_sha256) and log.blobs.exists(event.package_sha256)

    again, new_again = record_variant(log, base, kind="contradiction", experiment_config="c" * 16,
                                      details=details, pdf_bytes=pdf, request_keys=["k1", "k2"])
    assert not new_again and again.variant_key == event.variant_key
    assert log.count("paper_variant") == 1 and len(recorded_variants(log)) == 1
    # a different edit (other details) is another variant
    _, other = record_variant(log, base, kind="contradiction", experiment_config="c" * 16,
                              details={**details, "distance": 1}, pdf_bytes=pdf)
    assert other and log.count("paper_variant") == 2


def test_a_variant_that_cannot_be_built_is_recorded_with_its_reason(lake):
    log, base, pdf = _base(lake)
    papers_before = log.count("paper_ingested")
    gone, _ = record_variant(log, base, kind="contradiction", experiment_config="c" * 16, details={"d": 1},
                             pdf_bytes=None, reason="paragraph_not_found")
    assert not gone.built and gone.reason == "paragraph_not_found" and gone.pdf_sha256 is None
    broken, _ = record_variant(log, base, kind="hidden_text", experiment_config="h" * 16, details={"d": 2},
                               pdf_bytes=b"%PDF-1.7 not really")
    assert not broken.built and broken.reason.startswith("unreadable: ")
    refused, _ = record_variant(log, base, kind="hidden_text", experiment_config="h" * 16, details={"d": 3},
                                pdf_bytes=pdf, verify=lambda package: "render_lost_text")
    assert not refused.built and refused.reason == "render_lost_text" and refused.package_sha256 is None
    assert log.count("paper_ingested") == papers_before  # nothing unbuilt became a paper
    assert log.count("paper_variant") == 3
