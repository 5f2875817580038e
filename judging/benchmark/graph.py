"""The knowledge graph of one paper (the Multi-Layered Review paper): what the model answered, checked.

Nodes are `claim` (level main/secondary/tertiary), `evidence` (strength high/medium/low),
`methodology`, `implementation`, `theory`, each with a description and verbatim quotes; edges are
`supports` / `contradicts`. What does not hold is dropped and counted (`Judgment.dropped`):
- a quote not verbatim in the manuscript text the model was shown (`quote_not_verbatim`; whitespace
  and surrounding quote marks aside, `judging.base.find_verbatim`), or shorter than MIN_QUOTE_CHARS
  (`quote_too_short`: a few words match anywhere, so they locate nothing) (ours: the paper does not say);
- a node without an id, description or known type (`bad_node`), a second node with an id already
  used (`duplicate_node`), nodes beyond a node cap in force (`over_max_nodes`: what the cap cut, when
  a provider without a schema answered more);
- a level that does not fit the type (`level_mismatch`): the node is kept with level null, so a claim
  with a bad level is never a main claim;
- an edge naming an unknown node (`edge_unknown_node`), a self loop (`edge_self_loop`) or a relation
  other than supports/contradicts (`edge_bad_relation`).
A node whose quotes were all dropped stays in the graph (it still connects others) but cannot be
located in the paper, so insertion never picks it.
"""

import copy
from dataclasses import dataclass, field

from peerlake.judging.base import Judgment, find_verbatim
from peerlake.judging.caps import cut

TYPES = ("claim", "evidence", "methodology", "implementation", "theory")
LEVELS = {"claim": ("main", "secondary", "tertiary"), "evidence": ("high", "medium", "low")}
RELATIONS = ("supports", "contradicts")
MIN_QUOTE_CHARS = 20
# The schema's longest node (id 6 + description 160 + 2 quotes x 160 characters, ~3.5 characters a
# token, + ~30 tokens of keys) and edge; a request's answer budget is what max_nodes needs.
NODE_TOKENS = 170
EDGE_TOKENS = 20
# Without a node cap (hosted builders) the budget is what a whole paper's graph may need: ~75 nodes
# at the schema's longest, the 16,000 tokens a hosted reviewer system gets per call
# (settings.system_max_output_tokens) [ours, the paper does not say: the source paper gives no limit].
UNCAPPED_ANSWER_TOKENS = 16_000


@dataclass(frozen=True)
class Node:
    id: str
    type: str
    level: str | None
    description: str
    quotes: tuple[str, ...]  # the kept (verbatim) quotes, in the model's order


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (source, target, relation)

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    @property
    def main_claims(self) -> list[str]:
        return [n.id for n in self.nodes if n.type == "claim" and n.level == "main"]


def answer_tokens(max_nodes: int | None) -> int:
    """The graph answer's budget: the longest answer the narrowed schema allows (no cap: UNCAPPED_ANSWER_TOKENS)."""
    if max_nodes is None:
        return UNCAPPED_ANSWER_TOKENS
    return 30 + max_nodes * NODE_TOKENS + 2 * max_nodes * EDGE_TOKENS


def narrowed_schema(schema: dict, max_nodes: int | None) -> dict:
    """The graph schema with at most `max_nodes` nodes and 2 x max_nodes edges: a grammar-decoding model
    then stops within answer_tokens(max_nodes). No cap: the schema as it is (no maxItems)."""
    if max_nodes is None:
        return schema
    out = copy.deepcopy(schema)
    out["properties"]["nodes"]["maxItems"] = max_nodes
    out["properties"]["edges"]["maxItems"] = 2 * max_nodes
    return out


def parse_graph(doc: dict | None, text: str, j: Judgment, max_nodes: int | None) -> Graph | None:
    """The checked graph, or None when the answer is not a graph (drops counted on `j`); max_nodes None
    keeps every node."""
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list) or not isinstance(doc.get("edges"), list):
        return None
    raw_nodes, over = cut(doc["nodes"], max_nodes)  # a schema-less provider may answer more than asked
    if over:
        j.drop("over_max_nodes", over)
    g = Graph()
    for raw in raw_nodes:
        node = _node(raw, text, j)
        if node is None:
            continue
        if any(n.id == node.id for n in g.nodes):
            j.drop("duplicate_node")
            continue
        g.nodes.append(node)
    ids = {n.id for n in g.nodes}
    for raw in doc["edges"]:
        if not isinstance(raw, dict):
            j.drop("edge_unknown_node")
            continue
        src, dst, rel = _str(raw.get("source")), _str(raw.get("target")), raw.get("relation")
        if rel not in RELATIONS:
            j.drop("edge_bad_relation")
        elif src not in ids or dst not in ids:
            j.drop("edge_unknown_node")
        elif src == dst:
            j.drop("edge_self_loop")
        else:
            g.edges.append((src, dst, rel))
    return g


def _node(raw, text: str, j: Judgment) -> Node | None:
    if not isinstance(raw, dict):
        j.drop("bad_node")
        return None
    node_id, kind, description = _str(raw.get("id")), raw.get("type"), _str(raw.get("description"))
    if not node_id or kind not in TYPES or not description:
        j.drop("bad_node")
        return None
    level = raw.get("level")
    allowed = LEVELS.get(kind)
    if allowed is None:
        level = None  # methodology / implementation / theory have no level; "none" is the schema's word for it
    elif level not in allowed:
        j.drop("level_mismatch")
        level = None
    quotes = []
    for q in raw.get("quotes") if isinstance(raw.get("quotes"), list) else []:
        q = _str(q)
        if q is None or len(q) < MIN_QUOTE_CHARS:
            j.drop("quote_too_short")
        elif find_verbatim(q, text) is None:
            j.drop("quote_not_verbatim")
        else:
            quotes.append(q)
    return Node(node_id, kind, level, description, tuple(quotes))


def _str(v) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def graph_units(g: Graph, dist: dict[str, int]) -> list[dict]:
    """The graph as flat unit rows (judging/README.md): one `node` row per node (distance null when no
    main claim reaches it), one `quote` row per kept quote, one `edge` row per kept edge."""
    rows: list[dict] = []
    for n in g.nodes:
        rows.append({"kind": "node", "node_id": n.id, "node_type": n.type, "node_level": n.level,
                     "description": n.description, "distance": dist.get(n.id), "n_quotes": len(n.quotes)})
    for n in g.nodes:
        for q in n.quotes:
            rows.append({"kind": "quote", "node_id": n.id, "quote": q})
    for src, dst, rel in g.edges:
        rows.append({"kind": "edge", "source": src, "target": dst, "relation": rel})
    return rows
