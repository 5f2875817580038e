"""Which node gets a contradiction at each distance, and which paragraph holds it (the Multi-Layered Review paper).

For each distance d present in a paper's graph, one node at d is drawn with a `random.Random` seeded
from (seed, paper id, d), so a paper's items do not change when other papers join the study. The
draw is among the nodes at d whose paragraph can be found: a kept quote lies verbatim inside one
text record that is a body or front-matter paragraph, at most `max_paragraph_chars` long
[ours, the paper does not say: the rewrite answer must fit the model's output budget], and that the PDF
can rewrite in place (`ingest.rewrite_pdf.replaceable`). The source paper draws among all nodes at d and
locates them in LaTeX; a node we cannot locate would be a drop there too, so drawing among the
locatable ones keeps an item at d whenever one exists. When none is locatable, the item is kept as
not built (`paragraph_not_found`) for a node drawn among all nodes at d.
"""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from peerlake.ingest.package import TextRecord
from peerlake.judging.base import find_verbatim
from peerlake.judging.benchmark.distances import by_distance
from peerlake.judging.benchmark.graph import Graph, Node

EDITABLE_PARTS = ("front", "body")


@dataclass(frozen=True)
class Item:
    """One planned insertion: the node at `distance` and its paragraph (None: not found)."""

    paper_id: str
    distance: int
    node: Node
    record: TextRecord | None

    @property
    def item_id(self) -> str:
        return f"{self.paper_id}:d{self.distance}"


def rng_for(seed: int, paper_id: str, distance: int) -> random.Random:
    """A generator for one (paper, distance): a str seed is hashed with SHA-512 by `random`, so the
    draw is the same in every process (PYTHONHASHSEED does not enter)."""
    return random.Random(f"{seed}|{paper_id}|{distance}")


def editable(record: TextRecord, max_paragraph_chars: int) -> bool:
    return (record.kind == "paragraph" and record.part in EDITABLE_PARTS and record.bbox is not None
            and 0 < len(record.text) <= max_paragraph_chars)


def locate(node: Node, records: Sequence[TextRecord], ok: Callable[[TextRecord], bool]) -> TextRecord | None:
    """The first record (quotes in the node's order, records in reading order) that holds one of the
    node's kept quotes verbatim and passes `ok`."""
    for quote in node.quotes:
        for r in records:
            if find_verbatim(quote, r.text) is not None and ok(r):
                return r
    return None


def plan(paper_id: str, graph: Graph, dist: dict[str, int], seed: int, records: Sequence[TextRecord],
         ok: Callable[[TextRecord], bool]) -> list[Item]:
    """One item per distance present, in distance order."""
    items = []
    for d, node_ids in by_distance(dist).items():
        located = {n: locate(graph.node(n), records, ok) for n in node_ids}
        findable = [n for n in node_ids if located[n] is not None]
        rng = rng_for(seed, paper_id, d)
        chosen = rng.choice(findable or node_ids)
        items.append(Item(paper_id, d, graph.node(chosen), located[chosen]))
    return items
