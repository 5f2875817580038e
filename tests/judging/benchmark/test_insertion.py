"""One node per distance by a seeded draw, located through its quotes (seed a.5)."""

import random

from peerlake.ingest.package import TextRecord
from peerlake.judging.benchmark.graph import Graph, Node
from peerlake.judging.benchmark.insertion import editable, locate, plan, rng_for

R1 = TextRecord("p1-r1", 1, "paragraph", "Alpha beta gamma delta epsilon zeta.", (0, 0, 10, 10))
R2 = TextRecord("p1-r2", 1, "paragraph", "Eta theta iota kappa lambda mu nu.", (0, 10, 10, 20))
R3 = TextRecord("p2-r1", 2, "paragraph", "Xi omicron pi rho sigma tau upsilon.", (0, 0, 10, 10))


def _node(nid, *quotes, kind="evidence", level="high"):
    return Node(nid, kind, level, f"node {nid}", tuple(quotes))


def test_locate_takes_the_first_quote_whose_record_passes():
    n = _node("a", "Xi omicron pi rho", "Eta theta iota kappa")
    assert locate(n, [R1, R2, R3], lambda r: True) is R3  # the node's first quote decides
    assert locate(n, [R1, R2, R3], lambda r: r.id != "p2-r1") is R2  # R3 cannot be edited: the second quote's
    assert locate(n, [R1, R2, R3], lambda r: False) is None
    assert locate(_node("b"), [R1], lambda r: True) is None  # no kept quote: nowhere


def test_plan_draws_among_locatable_nodes_with_the_documented_seed():
    g = Graph(nodes=[_node("m", "Alpha beta gamma delta", kind="claim", level="main"),
                     _node("a", "Eta theta iota kappa"), _node("b", "Xi omicron pi rho"), _node("c"),
                     _node("z")],
              edges=[("a", "m", "supports"), ("b", "m", "supports"), ("c", "m", "supports"), ("z", "c", "supports")])
    dist = {"m": 0, "a": 1, "b": 1, "c": 1, "z": 2}
    items = plan("paper-1", g, dist, 7, [R1, R2, R3], lambda r: True)
    assert [(i.distance, i.item_id) for i in items] == [(0, "paper-1:d0"), (1, "paper-1:d1"), (2, "paper-1:d2")]
    assert (items[0].node.id, items[0].record.id) == ("m", "p1-r1")
    # d1: c has no quote, so the draw is among the locatable a and b (sorted), with the generator the
    # module documents: Random("<seed>|<paper>|<distance>")
    expected = random.Random("7|paper-1|1").choice(["a", "b"])
    assert items[1].node.id == expected and items[1].record.id == {"a": "p1-r2", "b": "p2-r1"}[expected]
    # d2: z is the only node and cannot be located: the item is kept, not built, without a record
    assert (items[2].node.id, items[2].record) == ("z", None)
    assert plan("paper-1", g, dist, 7, [R1, R2, R3], lambda r: True) == items  # reproducible


def test_the_draw_depends_on_seed_paper_and_distance_only():
    a = [rng_for(0, "p", 1).random() for _ in range(2)]
    assert a == [rng_for(0, "p", 1).random() for _ in range(2)]
    assert rng_for(0, "p", 1).random() != rng_for(1, "p", 1).random()
    assert rng_for(0, "p", 1).random() != rng_for(0, "q", 1).random()
    assert rng_for(0, "p", 1).random() != rng_for(0, "p", 2).random()


def test_editable_records():
    assert editable(R1, 100)
    assert not editable(R1, 10)  # 36 characters > 10
    assert not editable(TextRecord("x", 1, "caption", "Table 1: x", (0, 0, 1, 1)), 100)
    assert not editable(TextRecord("x", 1, "paragraph", "text", None), 100)
    assert not editable(TextRecord("x", 1, "paragraph", "text", (0, 0, 1, 1), part="references"), 100)
