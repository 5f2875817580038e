"""The contradiction benchmark builder (the Multi-Layered Review paper): knowledge graph → distances →
one rewritten paragraph per distance → a re-rendered PDF recorded as a `paper_variant`.

The entry point orchestration calls (orchestration/assets/experiments.py, `paper_variants`):
`build(ctx, papers, spec) -> BuildReport`, with `Spec.from_table(study.experiment("contradictions"))`.

| module | holds |
|---|---|
| `spec.py` | the `[contradictions]` keys the builder owns, their defaults, `Spec.from_table` |
| `graph.py` | the graph answer checked (verbatim quotes, known ids), its unit rows |
| `distances.py` | multi-source BFS from the main claims (undirected; unreachable left out) |
| `insertion.py` | the seeded draw of one node per distance and the paragraph holding it |
| `build.py` | the calls, judgments, PDF edits and variants; `BuildReport` |
"""

from peerlake.judging.benchmark.build import BuildReport, build
from peerlake.judging.benchmark.spec import EXPERIMENT, JUDGE, KEYS, PARSER_VERSION, TEMPLATES, Spec

__all__ = ["EXPERIMENT", "JUDGE", "KEYS", "PARSER_VERSION", "TEMPLATES", "BuildReport", "Spec", "build"]
