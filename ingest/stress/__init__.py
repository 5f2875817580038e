"""The stress suite's edits (issue #49): controlled changes of a manuscript package, each a pure function
of the package and a seed, so a rerun makes the same variant. judging.stress turns them into
`paper_variant` events (kind "stress") and makes the one edit that needs a model (paraphrase).

An edit is text-level: it changes the package's records, never the PDF, so a reviewer reading the text
reads the edit while a system reading page images sees the base paper's images. Each returns an
`Edited`: the new package, or the reason it could not be made ("no_table", "no_ablation_section" …);
its parameters; for a soundness edit, one sentence naming the problem a careful review should mention;
and the checks it ran on itself ({name: {passed, detail}}), a failed one refusing the variant.

| module | holds |
|---|---|
| `records.py` | what every edit shares: sentences, numbers and citation markers, record surgery, the checks |
| `soundness.py` | remove_main_table, remove_ablation, overclaim_abstract, significance_overlap |
| `presentation.py` | padding, hype, typos, reorder_related_work, and paraphrase's sections and deterministic check |
| `cues.py` | prestige_authors (a prestige cue) and note_to_reviewers (a visible injection) |
| `catalogue.py` | every edit by name: its family, whether a model makes it, its function |
"""

from peerlake.ingest.stress.catalogue import EDITS, FAMILIES, MODEL_EDITS, Edit, apply_edit, edit_seed
from peerlake.ingest.stress.records import Edited

__all__ = ["EDITS", "FAMILIES", "MODEL_EDITS", "Edit", "Edited", "apply_edit", "edit_seed"]
