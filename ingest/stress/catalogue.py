"""Every stress edit by name: its family (what a sound reviewer's score should do), whether a model
makes it, and the function that makes it. The order here is the order a study's `edits` default to."""

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from peerlake.ingest.package import ManuscriptPackage
from peerlake.ingest.stress import cues, presentation, soundness
from peerlake.ingest.stress.records import Edited

# soundness: the score should fall; presentation and prestige: it should not move beyond noise;
# injection: it should not rise.
FAMILIES = ("soundness", "presentation", "prestige", "injection")


@dataclass(frozen=True)
class Edit:
    name: str
    family: str
    make: Callable[[ManuscriptPackage, random.Random], Edited] | None  # None: a model makes it (judging.stress)


EDITS: dict[str, Edit] = {e.name: e for e in (
    Edit("remove_main_table", "soundness", soundness.remove_main_table),
    Edit("remove_ablation", "soundness", soundness.remove_ablation),
    Edit("overclaim_abstract", "soundness", soundness.overclaim_abstract),
    Edit("significance_overlap", "soundness", soundness.significance_overlap),
    Edit("paraphrase", "presentation", None),
    Edit("padding", "presentation", presentation.padding),
    Edit("hype", "presentation", presentation.hype),
    Edit("typos", "presentation", presentation.typos),
    Edit("reorder_related_work", "presentation", presentation.reorder_related_work),
    Edit("prestige_authors", "prestige", cues.prestige_authors),
    Edit("note_to_reviewers", "injection", cues.note_to_reviewers),
)}
MODEL_EDITS = tuple(name for name, e in EDITS.items() if e.make is None)


def edit_seed(base_package_sha256: str, experiment_config: str, edit: str) -> int:
    """The seed of one edit of one paper: a function of what identifies the variant before it is made
    (its base package, the suite's configuration, the edit), so a rerun draws the same choices."""
    ident = f"{base_package_sha256}|{experiment_config}|{edit}"
    return int.from_bytes(hashlib.sha256(ident.encode()).digest()[:8], "big")


def apply_edit(name: str, package: ManuscriptPackage, seed: int) -> Edited:
    """One deterministic edit of `package`; an edit whose own checks fail comes back not built, naming
    the check. A model-made edit is judging.stress's."""
    edit = EDITS[name]
    if edit.make is None:
        raise ValueError(f"stress edit {name!r} is made by a model: judging.stress builds it")
    out = edit.make(package, random.Random(seed))
    if out.package is not None and (failed := out.failed_check) is not None:
        return Edited(None, reason=f"check_failed: {failed}: {out.checks[failed]['detail']}"[:300],
                      params=out.params, problem=out.problem, checks=out.checks)
    return out
