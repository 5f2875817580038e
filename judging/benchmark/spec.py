"""The `[contradictions]` study table, as far as the builder owns it (the detection judge owns the
rest: judging/detection.py). Keys and defaults; "ours" marks a choice the paper does not make.

  papers              list of paper ids to build from; default: every paper of the study
  seed                int, default 0: seeds the draw of one node per distance (ours: the paper does not say)
  validate            bool, default false: run the validation judge on each built variant (beyond the source paper)
  manuscript_chars    int, the paper text the graph call reads; default settings.judge_max_chars(provider)
                      (6,000 on the embedded model's 4k context, 128,000 on hosted models) (ours)
  max_nodes           int, nodes per graph (edges ≤ 2 × max_nodes); 0 = no cap. Default by the builder's
                      provider (Spec.nodes_cap): none on a hosted model, as the paper's builder (Gemini 2.5 Pro)
                      had no node limit and its graphs reach distance 8; 8 on `local`, what the
                      embedded model's context holds (ours: the paper does not say)
  max_items           int, default none: at most this many insertions per paper, the smallest distances
                      (the most severe) kept [ours, the paper does not say: for trial runs and tests]
  max_paragraph_chars int, default 1200: longer paragraphs are not rewritten (ours: the paper does not say)
  builder             table: the builder's model (provider, model, temperature, max_output_tokens,
                      base_url); the rest from the study's [judging] (read by studies/experiments.py)
"""

from dataclasses import dataclass

from peerlake.judging.caps import LOCAL_PROVIDER

EXPERIMENT = "contradictions"
JUDGE = "contradiction"  # the judgment_recorded.judge of the builder's graph / rewrite / validate steps
TEMPLATES = ("contradiction_graph", "contradiction_rewrite", "contradiction_validate")
PARSER_VERSION = "contradiction-1"
KEYS = {"papers", "seed", "validate", "builder", "manuscript_chars", "max_nodes", "max_paragraph_chars", "max_items"}
LOCAL_MAX_NODES = 8  # the embedded model: 8 nodes answer in 1,710 tokens of its 4,096-token context


def _int(table: dict, key: str, default: int | None, lo: int, example: int | None = None) -> int | None:
    v = table.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ValueError(f"{EXPERIMENT}.{key}: {v!r} is not an integer at least {lo}; give one, "
                         f"e.g. {key} = {example or default or lo}")
    return v


@dataclass(frozen=True)
class Spec:
    papers: tuple[str, ...] | None = None
    seed: int = 0
    validate: bool = False
    manuscript_chars: int | None = None  # None: settings.judge_max_chars(the builder's provider)
    max_nodes: int | None = None  # None: the builder's provider decides (nodes_cap); 0: no cap
    max_items: int | None = None  # None: one item per distance present
    max_paragraph_chars: int = 1200

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        papers = table.get("papers")
        if papers is not None and (not isinstance(papers, list) or not papers
                                   or not all(isinstance(p, str) and p.strip() for p in papers)):
            raise ValueError(f"{EXPERIMENT}.papers: {papers!r} is not a non-empty list of paper ids; "
                             "give e.g. papers = [\"demo-001\"], or leave it out for every paper of the study")
        validate = table.get("validate", False)
        if not isinstance(validate, bool):
            raise ValueError(f"{EXPERIMENT}.validate: {validate!r} is not true or false; write validate = true")
        seed = table.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"{EXPERIMENT}.seed: {seed!r} is not an integer; give one, e.g. seed = 0")
        return cls(papers=tuple(p.strip() for p in papers) if papers is not None else None, seed=seed,
                   validate=validate, manuscript_chars=_int(table, "manuscript_chars", None, 500),
                   max_nodes=_int(table, "max_nodes", None, 0, LOCAL_MAX_NODES),
                   max_items=_int(table, "max_items", None, 1),
                   max_paragraph_chars=_int(table, "max_paragraph_chars", 1200, 50))

    def nodes_cap(self, provider: str) -> int | None:
        """The node cap in force on the builder's provider: the study's max_nodes (0 = none), else
        LOCAL_MAX_NODES on the embedded model and none on a hosted one."""
        if self.max_nodes is None:
            return LOCAL_MAX_NODES if provider == LOCAL_PROVIDER else None
        return self.max_nodes or None
