"""The stress suite's builder (issue #49): controlled edits of every paper, each a `paper_variant`
(kind "stress"), for the paired score shifts the stress marts measure. The entry point orchestration
calls (orchestration/assets/experiments.py, `paper_variants`): `build(ctx, papers, spec) -> BuildReport`,
with `Spec.from_table(study.experiment("stress"))`; it gets a JudgeContext because one edit, the
paraphrase, is a model's.

| module | holds |
|---|---|
| `spec.py` | the `[stress]` keys the builder owns (the tolerances the marts' verdicts use included), `Spec` |
| `paraphrase.py` | the paraphrase's calls (rewrite, validate) and its checks |
| `build.py` | every edit of every paper recorded as a variant; `BuildReport` |

The deterministic edits themselves are ingest.stress's; the judge of soundness variants' reviews is
judging/stress_mention.py.
"""

from peerlake.judging.stress.build import BuildReport, build
from peerlake.judging.stress.spec import EXPERIMENT, JUDGE, KEYS, PARSER_VERSION, TEMPLATES, Spec

__all__ = ["EXPERIMENT", "JUDGE", "KEYS", "PARSER_VERSION", "TEMPLATES", "BuildReport", "Spec", "build"]
