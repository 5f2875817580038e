"""The builder end to end on the loopback provider and the real demo PDF: graph → distances → one
item per distance → rewrite → re-rendered PDF → paper_variant (built or not, with why) → validation;
a replayed build writes nothing new."""

import json
from pathlib import Path

import pytest

from peerlake.ingest.package import TextRecord
from peerlake.ingest.papers import ingest_pdf, latest_versions
from peerlake.judging import benchmark
from peerlake.judging.benchmark.build import _verifier, experiment_config
from tests.doubles.fake_server import Reply
from tests.judging.support import units_of

DEMO = Path(__file__).resolve().parents[3] / "ingest" / "demo_corpus" / "papers" / "demo-001.pdf"
ABSTRACT_END = "We conclude that gated adapters are the method of choice for low-resource text classification."
MOD_ABSTRACT = ("Fine-tuning a large pretrained encoder on a few hundred labelled examples is unstable and expensive. "
                "We propose Gated Residual Adapters (GRA), a small module inserted after every feed-forward block "
                "of a frozen encoder. Each adapter computes a low-rank update and a scalar gate that decides how "
                "much of the update enters the residual stream. On three low-resource classification tasks GRA "
                "reaches 91.8% average accuracy while training only 0.4% of the parameters. We conclude that "
                "gated adapters are a poor choice for low-resource text classification.")
MOD_TRAINING = ("We train with SGD for 2 epochs with batch size 512. "
                "The classification head is a linear layer on the first token.")

# Hand-made graph of demo-001. Distances by hand (undirected BFS from the one main claim n1):
#   n1 0 · n2, n6 1 (support n1) · n3 2 (supports n2) · n4 3 (supports n3) · n8 4 (supports n4) · n9 5 · n10 6
#   n5 (its only edge names an unknown node, rejected) and n7 (no edge): unreachable → 2
# Quotes: one per node; n5's is not in the paper, n6's is too short, n9's is paraphrased → 3 dropped, 10 - 3 = 7 kept.
# Edges: 9 given, n5→n99 (unknown) and n1→n1 (self loop) rejected → 7 kept.
GRAPH = {"nodes": [
    {"id": "n1", "type": "claim", "level": "main", "description": "Marker D0: gated adapters are the method of choice.",
     "quotes": [ABSTRACT_END]},
    {"id": "n2", "type": "evidence", "level": "high", "description": "Marker D1: GRA reaches 91.8% average accuracy.",
     "quotes": ["On three low-resource classification tasks GRA reaches 91.8% average accuracy"]},
    {"id": "n3", "type": "methodology", "level": "none",
     "description": "Marker D2: the gate scales a low-rank update.",
     "quotes": ["The new output is h + g·u."]},
    {"id": "n4", "type": "implementation", "level": "none",
     "description": "Marker D3: training uses AdamW for 20 epochs.",
     "quotes": ["We train with AdamW for 20 epochs with batch size 16."]},
    {"id": "n5", "type": "claim", "level": "secondary", "description": "GRA is the best adapter.",
     "quotes": ["GRA is the best adapter ever built by anyone."]},
    {"id": "n6", "type": "evidence", "level": "low", "description": "Cheap.", "quotes": ["GRA"]},
    {"id": "n7", "type": "theory", "level": "none", "description": "Lower layers hold general features.",
     "quotes": ["lower layers hold general features and upper layers hold task-specific ones"]},
    {"id": "n8", "type": "implementation", "level": "none",
     "description": "Marker D4: a linear head on the first token.",
     "quotes": ["The classification head is a linear layer on the first token."]},
    {"id": "n9", "type": "evidence", "level": "medium", "description": "Gates close in low layers.",
     "quotes": ["the gates of the low layers are closed after training"]},
    {"id": "n10", "type": "claim", "level": "tertiary", "description": "Marker D6: not every layer needs to change.",
     "quotes": ["Our observation is that not every layer needs to change."]},
], "edges": [
    {"source": "n2", "target": "n1", "relation": "supports"},
    {"source": "n6", "target": "n1", "relation": "supports"},
    {"source": "n3", "target": "n2", "relation": "supports"},
    {"source": "n4", "target": "n3", "relation": "supports"},
    {"source": "n8", "target": "n4", "relation": "supports"},
    {"source": "n9", "target": "n8", "relation": "supports"},
    {"source": "n10", "target": "n9", "relation": "supports"},
    {"source": "n5", "target": "n99", "relation": "supports"},
    {"source": "n1", "target": "n1", "relation": "contradicts"},
]}


@pytest.fixture
def demo(judge_log):
    ingest_pdf(judge_log, DEMO, paper_id="demo-001")
    return latest_versions(judge_log)["demo-001"]


def _script(srv):
    srv.answer("contradiction_graph", reply=GRAPH)
    # one rule per item, told apart by the marker in its node description (paragraphs repeat the paper)
    srv.answer("contradiction_rewrite", "Marker D0", reply={"modified_paragraph": MOD_ABSTRACT})   # d0: built
    srv.answer("contradiction_rewrite", "Marker D1", reply={"modified_paragraph": "  "})              # d1: empty
    srv.answer("contradiction_rewrite", "Marker D2", reply=Reply(status=400))                       # d2: fails
    # d3: built; the answer as the embedded model writes it: a raw newline inside the JSON string (strict
    # JSON refuses it) and the prompt's delimiter echoed
    srv.answer("contradiction_rewrite", "Marker D3",
               reply='{"modified_paragraph": "<paragraph>\n' + MOD_TRAINING + '</paragraph>"}')
    srv.answer("contradiction_rewrite", "Marker D4",                                                    # d4: same text
               reply={"modified_paragraph": "We train with AdamW for 20 epochs with batch size 16. The "
                                            "classification head is a linear   layer on the first token."})
    # d6: p1-r8 has 228 characters, so the limit is int(1.5 x 228) + 80 = 422; 25 x 17 + 2 = 427 reach it: cut
    srv.answer("contradiction_rewrite", "Marker D6",
               reply={"modified_paragraph": "Every layer must change. " * 17 + "Ev"})
    srv.answer("contradiction_validate", "poor choice", reply={"rationale": "It now says the opposite.",
                                                              "contradicts": True, "locally_detectable": True})
    srv.answer("contradiction_validate", reply={"rationale": "Different optimiser.", "contradicts": True,
                                                "locally_detectable": False})


def test_build_records_items_variants_and_judgments(judge_log, judge_server, make_judge_ctx, demo):
    _script(judge_server)
    ctx = make_judge_ctx(benchmark)
    report = benchmark.build(ctx, [demo], benchmark.Spec(seed=3, validate=True, max_nodes=10))
    assert judge_server.unmatched == []
    counts = {k: v for k, v in vars(report).items() if k not in ("variants", "experiment_config")}
    # items: d0..d6 = 7; d2's call failed (nothing recorded, retried next run) → 6 variants:
    # built d0, d3; not built d1 (unparseable), d4 (unchanged), d5 (n9's only quote was dropped), d6 (cut)
    assert counts == {"papers": 1, "papers_not_in_study": 0, "papers_unreadable": 0, "graphs": 1, "graphs_null": 0,
                      "graphs_failed": 0, "nodes": 10, "quotes_kept": 7, "quotes_dropped": 3, "edges": 7,
                      "edges_rejected": 2, "unreachable_nodes": 2, "papers_without_main_claim": 0, "items": 7,
                      "built": 2, "not_built": 4, "rewrites_failed": 1, "validated": 2, "validations_failed": 0}
    by_item = {json.loads(v.details_json)["item_id"]: v for v in report.variants}
    assert {k: (v.built, v.reason) for k, v in by_item.items()} == {
        "demo-001:d0": (True, None), "demo-001:d1": (False, "rewrite_unparseable"),
        "demo-001:d3": (True, None), "demo-001:d4": (False, "rewrite_unchanged"),
        "demo-001:d5": (False, "paragraph_not_found"), "demo-001:d6": (False, "rewrite_truncated")}
    d0 = json.loads(by_item["demo-001:d0"].details_json)
    assert d0 == {"item_id": "demo-001:d0", "node_id": "n1", "node_type": "claim", "node_level": "main", "distance": 0,
                  "original_paragraph": next(r.text for r in _package(judge_log, demo).records if r.id == "p1-r5"),
                  "modified_paragraph": MOD_ABSTRACT, "record_id": "p1-r5", "page": 1, "seed": 3}
    d5 = json.loads(by_item["demo-001:d5"].details_json)
    assert (d5["node_id"], d5["node_level"], d5["record_id"], d5["original_paragraph"]) == ("n9", "medium", None, None)

    # the built variant is a paper of its own whose text holds the edit, and only the edit
    v3 = by_item["demo-001:d3"]
    pkg = _package(judge_log, latest_versions(judge_log)[v3.variant_id])
    assert v3.variant_id.startswith("demo-001~contradiction-") and v3.experiment_config == report.experiment_config
    assert MOD_TRAINING in " ".join(r.text for r in pkg.records)
    assert "AdamW" not in " ".join(r.text for r in pkg.records)

    judgments = {(e.step, e.subject_key): e for e in judge_log.iter_events("judgment_recorded")}
    assert sorted(judgments) == sorted([
        ("graph", "paper:demo-001"), ("rewrite", "item:demo-001:0"), ("rewrite", "item:demo-001:1"),
        ("rewrite", "item:demo-001:3"), ("rewrite", "item:demo-001:4"), ("rewrite", "item:demo-001:6"),
        ("validate", f"variant:{by_item['demo-001:d0'].variant_id}"),
        ("validate", f"variant:{v3.variant_id}")])
    graph = judgments[("graph", "paper:demo-001")]
    assert json.loads(graph.dropped_json)["quote_not_verbatim"] == 2
    nodes = {u["node_id"]: u["distance"] for u in units_of(graph) if u["kind"] == "node"}
    assert nodes == {"n1": 0, "n2": 1, "n6": 1, "n3": 2, "n4": 3, "n8": 4, "n9": 5, "n10": 6, "n5": None, "n7": None}
    assert [judgments[("rewrite", f"item:demo-001:{d}")].null_reason for d in (1, 4, 6)] == \
        ["unparseable:rewrite", "rewrite_unchanged", "rewrite_truncated"]
    assert units_of(judgments[("validate", f"variant:{by_item['demo-001:d0'].variant_id}")]) == [
        {"contradicts": True, "locally_detectable": True, "rationale": "It now says the opposite."}]
    # a variant names the graph and rewrite judgments it came from
    assert set(json.loads(v3.judgment_keys_json)) == {graph.judgment_key,
                                                       judgments[("rewrite", "item:demo-001:3")].judgment_key}
    # the graph call's schema was narrowed to max_nodes = 10 and its budget is 30 + 10x170 + 20x20 = 2130
    (body,) = judge_server.bodies_for("contradiction_graph")
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 2130
    schema = json.dumps(body["response_format"])
    assert '"maxItems": 10' in schema and '"maxItems": 20' in schema

    # replay: every call answered before is replayed, nothing new is recorded; the failed one is retried
    n = {t: len(list(judge_log.iter_events(t))) for t in ("paper_variant", "judgment_recorded", "paper_ingested")}
    again = benchmark.build(ctx, [demo], benchmark.Spec(seed=3, validate=True, max_nodes=10))
    assert [v.variant_key for v in again.variants] == [v.variant_key for v in report.variants]
    assert n == {t: len(list(judge_log.iter_events(t))) for t in n}
    assert again.rewrites_failed == 1
    # max_items keeps the smallest distances (the most severe): d0 and d1, both made before (replayed)
    two = benchmark.build(ctx, [demo], benchmark.Spec(seed=3, validate=True, max_nodes=10, max_items=2))
    assert two.items == 2
    assert sorted(json.loads(v.details_json)["item_id"] for v in two.variants) == ["demo-001:d0", "demo-001:d1"]
    assert n == {t: len(list(judge_log.iter_events(t))) for t in n}


def test_a_hosted_builder_has_no_node_cap_by_default_and_the_embedded_model_keeps_8(
        judge_log, judge_server, make_judge_ctx, demo):
    _script(judge_server)
    ctx = make_judge_ctx(benchmark)  # the openai provider on the loopback server
    report = benchmark.build(ctx, [demo], benchmark.Spec(seed=3))
    # all 10 nodes kept, nothing cut; the request asked for no count, its schema has no limit, and its
    # budget is the uncapped one (16,000 tokens)
    assert report.nodes == 10
    (body,) = judge_server.bodies_for("contradiction_graph")
    sent = body["response_format"]["json_schema"]["schema"]["properties"]
    assert "maxItems" not in sent["nodes"] and "maxItems" not in sent["edges"]
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 16_000
    prompt = judge_server.prompt(body)
    assert "Build a knowledge graph of the paper above." in prompt and "at most" not in prompt
    (graph,) = [e for e in judge_log.iter_events("judgment_recorded") if e.step == "graph"]
    assert json.loads(graph.inputs_json)["max_nodes"] is None and "over_max_nodes" not in graph.dropped_json
    # a study's explicit cap still holds on a hosted model (the over_max_nodes count: test_graph.py)
    assert benchmark.Spec(max_nodes=8).nodes_cap("openai") == 8

    # the embedded model: 8 nodes by default, so its variants keep the identity they had with max_nodes = 8
    local = make_judge_ctx(benchmark, provider="local")
    assert experiment_config(local, benchmark.Spec(), 6000) == \
        experiment_config(local, benchmark.Spec(max_nodes=8), 6000)
    assert experiment_config(ctx, benchmark.Spec(), 6000) != experiment_config(ctx, benchmark.Spec(max_nodes=8), 6000)


def test_papers_setting_filters_and_an_unparseable_graph_is_null(judge_log, judge_server, make_judge_ctx, demo):
    judge_server.answer("contradiction_graph", reply="this is not JSON")
    ctx = make_judge_ctx(benchmark)
    report = benchmark.build(ctx, [demo], benchmark.Spec(papers=("demo-001", "absent")))
    assert (report.papers, report.papers_not_in_study, report.graphs_null, report.items, report.variants) == \
        (1, 1, 1, 0, [])
    (j,) = judge_log.iter_events("judgment_recorded")
    assert (j.status, j.null_reason) == ("null", "unparseable:graph")
    assert benchmark.build(ctx, [demo], benchmark.Spec(papers=("other",))).papers == 0


def _package(log, ev):
    from peerlake.ingest.package import load_package

    return load_package(log.blobs, ev.package_sha256, check_images=False)


def test_verifier_refuses_a_lost_edit_and_damaged_text():
    from peerlake.ingest.package import ManuscriptPackage

    def pkg(*texts):
        recs = [TextRecord(f"r{i}", 1, "paragraph", t, (0, 0, 1, 1)) for i, t in enumerate(texts)]
        return ManuscriptPackage("x", "t", 1, 0, recs, "test")

    base = pkg("Alpha beta.", "Gamma delta.", "Epsilon zeta.")
    verify = _verifier(base, base.records[1], "Gamma omega.")
    assert verify(pkg("Alpha beta.", "Gamma ome-\nga.", "Epsilon zeta.")) is None  # re-hyphenated: the same
    assert verify(pkg("Alpha beta.", "Gamma delta.", "Epsilon zeta.")) == "render_lost_text"
    assert verify(pkg("Alpha beta.", "Gamma omega.", "Epsilon")) == "render_damaged_text"
