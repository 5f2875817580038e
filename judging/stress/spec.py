"""The `[stress]` study table, as far as the builder owns it (the mention judge owns `judge` and
`review_chars`: judging/stress_mention.py). Keys, defaults, and "ours" where no paper decides.

  papers                       list of paper ids to edit; default: every paper of the study
  edits                        list of edit names (ingest.stress.EDITS); default: all of them
  paraphrase_max_sections      int ≥ 1 or "all", default "all": how many body sections the paraphrase rewrites,
                               from the first (the feature asks for every one; a small model's study sets a few)
  builder                      table: the paraphrase's model (provider, model, temperature, max_output_tokens,
                               base_url); the rest from the study's [judging] (read by studies/experiments.py)
The tolerances the stress card's verdicts use (the dbt marts read them from the study's text; ours):
  invariance_max_noise_units   float > 0, default 1.0: a presentation / prestige / injection shift within this many
                               of the reviewer's noise units is "invariant"
  sensitivity_min_noise_units  float > 0, default 1.0: a soundness shift of at least this many noise units (down)
                               is "sensitive"
  noise_k                      float > 0, default 1.96: the band beyond which a paper's shift counts as a raise
  n_bootstrap                  int ≥ 100, default 2000: resamples of each bootstrap interval
"""

import hashlib
import json
from dataclasses import dataclass

from peerlake.ingest.stress import EDITS

EXPERIMENT = "stress"
JUDGE = "stress_edit"  # the purpose of its calls: judge_stress_edit_paraphrase, judge_stress_edit_validate
TEMPLATES = ("stress_paraphrase", "stress_paraphrase_validate")
PARSER_VERSION = "stress-edit-1"
# Bump when an edit would change for the same inputs: every variant's key changes with it.
EDITOR_VERSION = "stress-edits-1"
ALL_SECTIONS = "all"  # paraphrase_max_sections: every body section
TOLERANCES = {"invariance_max_noise_units": 1.0, "sensitivity_min_noise_units": 1.0, "noise_k": 1.96}
KEYS = frozenset({"papers", "edits", "builder", "paraphrase_max_sections", "n_bootstrap", *TOLERANCES})


def _positive_number(table: dict, key: str) -> float:
    v = table.get(key, TOLERANCES[key])
    if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
        raise ValueError(f"{EXPERIMENT}.{key}: {v!r} is not a number above 0; give one, e.g. {key} = "
                         f"{TOLERANCES[key]}, or leave it out for that default")
    return float(v)


def _whole(table: dict, key: str, default: int, lo: int) -> int:
    v = table.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ValueError(f"{EXPERIMENT}.{key}: {v!r} is not a whole number of at least {lo}; give one, e.g. "
                         f"{key} = {default}, or leave it out for that default")
    return v


def _max_sections(table: dict) -> int | None:
    """None: every body section (the key absent or "all")."""
    v = table.get("paraphrase_max_sections", ALL_SECTIONS)
    if v == ALL_SECTIONS:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{EXPERIMENT}.paraphrase_max_sections: {v!r} is neither a whole number of at least 1 "
                         f'nor "all"; give e.g. paraphrase_max_sections = 1, or leave it out for every body section')
    return v


@dataclass(frozen=True)
class Spec:
    papers: tuple[str, ...] | None = None  # None: every base paper of the study
    edits: tuple[str, ...] = tuple(EDITS)
    paraphrase_max_sections: int | None = None  # None: every body section
    invariance_max_noise_units: float = TOLERANCES["invariance_max_noise_units"]
    sensitivity_min_noise_units: float = TOLERANCES["sensitivity_min_noise_units"]
    noise_k: float = TOLERANCES["noise_k"]
    n_bootstrap: int = 2000

    @classmethod
    def from_table(cls, table: dict) -> "Spec":
        papers = table.get("papers")
        if papers is not None and (not isinstance(papers, list) or not papers
                                   or not all(isinstance(p, str) and p.strip() for p in papers)):
            raise ValueError(f"{EXPERIMENT}.papers: {papers!r} is not a non-empty list of paper ids; give e.g. "
                             'papers = ["demo-001"], or leave it out for every paper of the study')
        edits = table.get("edits", list(EDITS))
        if isinstance(edits, str):
            edits = [edits]
        if not isinstance(edits, list) or not edits or not all(isinstance(e, str) for e in edits):
            raise ValueError(f"{EXPERIMENT}.edits: {edits!r} is not a non-empty list of edit names; known: "
                             f"{', '.join(EDITS)}")
        if unknown := [e for e in edits if e not in EDITS]:
            import difflib

            close = [m for e in unknown for m in difflib.get_close_matches(e, list(EDITS), n=1)]
            hint = f"did you mean {', '.join(f'`{m}`' for m in close)}? " if close else ""
            raise ValueError(f"{EXPERIMENT}.edits: unknown edit(s) {', '.join(unknown)}; {hint}known: "
                             f"{', '.join(EDITS)}")
        return cls(papers=tuple(papers) if papers is not None else None, edits=tuple(dict.fromkeys(edits)),
                   paraphrase_max_sections=_max_sections(table),
                   invariance_max_noise_units=_positive_number(table, "invariance_max_noise_units"),
                   sensitivity_min_noise_units=_positive_number(table, "sensitivity_min_noise_units"),
                   noise_k=_positive_number(table, "noise_k"), n_bootstrap=_whole(table, "n_bootstrap", 2000, 100))

    def experiment_config(self) -> str:
        """16 hex: what decides a paper's variants apart from the paper and the paraphrase's calls (those
        are in each variant's key): not the list of edits (adding one leaves the others' variants as they
        are) nor the tolerances (they decide verdicts, not manuscripts)."""
        # "all" as a study says it, so a study that wrote 3 keeps the variants it had
        limit = ALL_SECTIONS if self.paraphrase_max_sections is None else self.paraphrase_max_sections
        ident = {"experiment": EXPERIMENT, "editor": EDITOR_VERSION, "paraphrase_max_sections": limit}
        return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]

    def tolerances(self) -> dict:
        """The stress card's tolerances, as the marts read them."""
        return {"invariance_max_noise_units": self.invariance_max_noise_units,
                "sensitivity_min_noise_units": self.sensitivity_min_noise_units,
                "noise_k": self.noise_k, "n_bootstrap": self.n_bootstrap}
