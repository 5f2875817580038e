"""The graph answer checked: quotes verbatim, ids known, levels fitting their type; drops counted."""

from peerlake.judging.base import Judgment
from peerlake.judging.benchmark.graph import answer_tokens, graph_units, narrowed_schema, parse_graph
from peerlake.prompts import load_template
from tests.judging.support import assert_bounded

TEXT = ("We propose GRA, a gated adapter for text classification. GRA reaches 91.8% accuracy on three tasks. "
        "We train with AdamW for 20 epochs.")


def _j() -> Judgment:
    return Judgment(judge="contradiction", step="graph", subject_key="paper:p", paper_id="p", repeat=0)


def test_nodes_quotes_and_edges_are_checked_and_counted():
    doc = {"nodes": [
        {"id": "n1", "type": "claim", "level": "main", "description": "GRA works.",
         "quotes": ["We propose GRA, a gated adapter for text classification.", "GRA is the best adapter ever."]},
        {"id": "n2", "type": "evidence", "level": "main", "description": "Accuracy.",  # main is no strength
         "quotes": ["GRA reaches  91.8% accuracy\non three tasks."]},  # whitespace differs: still verbatim
        {"id": "n3", "type": "implementation", "level": "high", "description": "Training.",
         "quotes": ["AdamW"]},  # too short to locate anything
        {"id": "n1", "type": "theory", "level": "none", "description": "dup", "quotes": []},
        {"id": "n4", "type": "opinion", "level": "none", "description": "x", "quotes": []},
    ], "edges": [
        {"source": "n2", "target": "n1", "relation": "supports"},
        {"source": "n3", "target": "n2", "relation": "supports"},
        {"source": "n3", "target": "n9", "relation": "supports"},
        {"source": "n1", "target": "n1", "relation": "contradicts"},
        {"source": "n2", "target": "n3", "relation": "refutes"},
    ]}
    j = _j()
    g = parse_graph(doc, TEXT, j, max_nodes=8)
    assert [(n.id, n.type, n.level, len(n.quotes)) for n in g.nodes] == \
        [("n1", "claim", "main", 1), ("n2", "evidence", None, 1), ("n3", "implementation", None, 0)]
    assert g.edges == [("n2", "n1", "supports"), ("n3", "n2", "supports")]
    assert g.main_claims == ["n1"]
    assert j.dropped == {"quote_not_verbatim": 1, "level_mismatch": 1, "quote_too_short": 1, "duplicate_node": 1,
                         "bad_node": 1, "edge_unknown_node": 1, "edge_self_loop": 1, "edge_bad_relation": 1}
    rows = graph_units(g, {"n1": 0, "n2": 1})
    # 3 node rows, 2 quote rows (n1 and n2 kept one each), 2 edge rows; n3 unreachable → distance null
    assert [r["kind"] for r in rows] == ["node"] * 3 + ["quote"] * 2 + ["edge"] * 2
    assert rows[2] == {"kind": "node", "node_id": "n3", "node_type": "implementation", "node_level": None,
                       "description": "Training.", "distance": None, "n_quotes": 0}
    assert all(not isinstance(v, list | dict) for r in rows for v in r.values())  # flat


def test_not_a_graph_and_over_max_nodes():
    assert parse_graph(None, TEXT, _j(), 8) is None
    assert parse_graph({"nodes": {}, "edges": []}, TEXT, _j(), 8) is None
    j = _j()
    nodes = [{"id": f"n{i}", "type": "theory", "level": "none", "description": "d", "quotes": []} for i in range(5)]
    g = parse_graph({"nodes": nodes, "edges": []}, TEXT, j, max_nodes=3)
    assert [n.id for n in g.nodes] == ["n0", "n1", "n2"] and j.dropped == {"over_max_nodes": 2}
    j = _j()
    g = parse_graph({"nodes": nodes, "edges": []}, TEXT, j, max_nodes=None)  # no cap: every node kept
    assert len(g.nodes) == 5 and j.dropped == {}


def test_schemas_are_bounded_under_a_cap_and_narrowed_per_request():
    for name in ("contradiction_rewrite", "contradiction_validate"):
        assert_bounded(load_template(name).output_schema)
    schema = load_template("contradiction_graph").output_schema
    # the file is the shape: no node or edge limit, as the seed's builder had none
    assert "maxItems" not in schema["properties"]["nodes"] and "maxItems" not in schema["properties"]["edges"]
    assert narrowed_schema(schema, None) == schema
    narrow = narrowed_schema(schema, 5)
    assert_bounded(narrow)  # what a grammar-decoding model gets under a cap
    assert narrow["properties"]["nodes"]["maxItems"] == 5 and narrow["properties"]["edges"]["maxItems"] == 10
    assert "maxItems" not in schema["properties"]["nodes"]  # the template's own schema is untouched
    # 30 + 8 nodes x 170 + 16 edges x 20 = 30 + 1360 + 320
    assert answer_tokens(8) == 1710
    assert answer_tokens(None) == 16_000
