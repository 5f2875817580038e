"""Distances from the main claims (seed a.4): hand-drawn graphs, distances counted by hand."""

from peerlake.judging.benchmark.distances import by_distance, distances, unreachable


def test_multi_source_bfs_is_undirected_and_takes_the_nearest_main_claim():
    # m1 ← a ← b ← c   (edges point at what they support; read undirected)
    # m2 — x, and x — b: b is 2 from m1 (b-a-m1) and 2 from m2 (b-x-m2); c is 3.
    # x is 1 from m2 (and 3 from m1 via b-a): the nearer one counts.
    # e — f: no main claim reaches them.
    nodes = ["m1", "m2", "a", "b", "c", "x", "e", "f"]
    edges = [("a", "m1"), ("b", "a"), ("c", "b"), ("m2", "x"), ("x", "b"), ("e", "f")]
    dist = distances(nodes, edges, ["m1", "m2"])
    assert dist == {"m1": 0, "m2": 0, "a": 1, "x": 1, "b": 2, "c": 3}
    assert unreachable(nodes, dist) == ["e", "f"]
    assert by_distance(dist) == {0: ["m1", "m2"], 1: ["a", "x"], 2: ["b"], 3: ["c"]}


def test_edge_direction_does_not_matter():
    # the same chain written both ways gives the same distances: m - a - b
    assert distances(["m", "a", "b"], [("m", "a"), ("a", "b")], ["m"]) == \
        distances(["m", "a", "b"], [("b", "a"), ("a", "m")], ["m"]) == {"m": 0, "a": 1, "b": 2}


def test_no_main_claim_reaches_nothing():
    assert distances(["a", "b"], [("a", "b")], []) == {}
    assert unreachable(["a", "b"], {}) == ["a", "b"]


def test_edges_to_unknown_nodes_self_loops_and_unknown_sources_are_ignored():
    # "ghost" is no node: the edge m—ghost—a would otherwise make a reachable at 2
    dist = distances(["m", "a"], [("m", "ghost"), ("ghost", "a"), ("m", "m")], ["m", "nobody"])
    assert dist == {"m": 0}
