"""Severity as graph distance (the MLR paper): a node's distance is the length of its shortest path to the
nearest main claim; a main claim is at 0. The source paper is silent on two points, settled here as its spec
note proposes: edges are read undirected (a method that supports a claim is one step from it either
way), and a node no main claim reaches is left out (and counted), not given a distance."""

from collections import deque
from collections.abc import Iterable


def distances(nodes: Iterable[str], edges: Iterable[tuple[str, str]], sources: Iterable[str]) -> dict[str, int]:
    """Multi-source breadth-first search from `sources` over the undirected graph; the nodes it
    reaches with their distance (an edge naming a node not in `nodes` is ignored)."""
    known = set(nodes)
    neighbours: dict[str, set[str]] = {n: set() for n in known}
    for a, b in edges:
        if a in known and b in known and a != b:
            neighbours[a].add(b)
            neighbours[b].add(a)
    dist = {s: 0 for s in sources if s in known}
    queue = deque(sorted(dist))
    while queue:
        n = queue.popleft()
        for m in sorted(neighbours[n]):
            if m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    return dist


def unreachable(nodes: Iterable[str], dist: dict[str, int]) -> list[str]:
    """The nodes no source reaches, in the order given."""
    return [n for n in nodes if n not in dist]


def by_distance(dist: dict[str, int]) -> dict[int, list[str]]:
    """Node ids per distance, each list sorted (so a seeded draw does not depend on dict order)."""
    out: dict[int, list[str]] = {}
    for n, d in dist.items():
        out.setdefault(d, []).append(n)
    return {d: sorted(ns) for d, ns in sorted(out.items())}
