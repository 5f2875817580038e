"""The `[revision]` table of a study: the models that play the roles and the cells to run.

    [revision]
    cells = ["LLL", "LHL", "LLH", "LHH"]   # Writer / Selector / Scorer letters; any subset
    repeats = 3                            # Scorer scores per side (original, final)
    feedback = "own"                       # or a letter, or per Writer: { L = "S", H = "own" }
    unchanged_final = "zero_noise"         # or "rescore" (UNCHANGED_FINAL below)
    [revision.models.L]
    provider = "local"
    model = "qwen2.5-coder-1.5b-instruct-q4_k_m"
    [revision.models.H]
    provider = "local"
    model = "qwen2.5-coder-0.5b-instruct-q4_k_m"

A letter is a model (seed: L = GPT-6-Luna, H = Claude Haiku 5.5). The Scorer is the study's standard
scoring review (template reviewer_scoring) with that letter's model, `repeats` samples per side: the
same requests as a template reviewer with that model, so original-side scores another cell (or the
study's own reviewers) already paid for replay. Defaults the paper leaves open are ours.
"""

import hashlib
import json
import re
from dataclasses import asdict, dataclass

from peerlake.reviewing.scoring import ReviewerConfig
from peerlake.warehouse import settings

# Record kinds a Writer may rewrite. Page markers, images, titles, references and equations are
# protected: the source paper's Writer keeps pages, non-text material and the leading records untouched.
EDITABLE_KINDS = ("paragraph", "caption", "footnote", "heading")
FEEDBACK = ("own",)  # or a role letter: that model's first scoring review of the original
# A final manuscript the Selector left unchanged (nothing accepted) is the original, so its true gain is
# 0. zero_noise: its final side reads the original's own scores and its gain counts as exactly 0 with no
# noise variance (the default: no call, and no noise that is not there enters ρ_adj). rescore: it is
# scored again in sessions of its own, like any final (the source paper scores every final in independent sessions).
UNCHANGED_FINAL = ("zero_noise", "rescore")
MODEL_KEYS = {"provider", "model", "base_url", "temperature", "max_output_tokens"}
KEYS = {"papers", "cells", "repeats", "models", "feedback", "manuscript_chars", "max_edits", "editable_kinds",
        "temperature", "writer_max_output_tokens", "selector_max_output_tokens", "reason_chars", "unchanged_final"}
CELL = re.compile(r"[A-Z]{3}")


class RevisionSpecError(ValueError):
    """A [revision] table that cannot be run; the message names the key."""


@dataclass(frozen=True)
class RoleModel:
    """One letter's model. temperature / max_output_tokens are the Scorer's (the standard review's)."""

    letter: str
    provider: str
    model: str
    base_url: str | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass(frozen=True)
class RevisionSpec:
    models: tuple[RoleModel, ...]
    cells: tuple[str, ...]
    repeats: int = 3
    papers: tuple[str, ...] = ()
    # Whose first review each Writer reads: "own" or a letter for every Writer, or per Writer as sorted
    # (writer, source) pairs (seed: the Luna Writer read GPT-5.6-Sol's review, the Haiku Writer its own).
    feedback: str | tuple[tuple[str, str], ...] = "own"
    # How much of the manuscript (record texts, in reading order) the Writer and Selector see: the
    # embedded model has a 4k-token context; a hosted model can take the whole paper (0 = all).
    manuscript_chars: int = 6000
    max_edits: int = 8
    editable_kinds: tuple[str, ...] = EDITABLE_KINDS
    temperature: float = 0.0  # Writer and Selector: one deterministic proposal per paper
    writer_max_output_tokens: int = 2000
    selector_max_output_tokens: int = 800
    reason_chars: int = 32  # seed: a Selector's reason is capped at 32 characters (truncation recorded)
    unchanged_final: str = "zero_noise"  # UNCHANGED_FINAL

    @classmethod
    def from_table(cls, table: dict) -> "RevisionSpec":
        if not isinstance(table, dict):
            raise RevisionSpecError("[revision] must be a table")
        unknown = sorted(set(table) - KEYS)
        if unknown:
            raise RevisionSpecError(f"[revision] has unknown keys {unknown}; known: {sorted(KEYS)}")
        raw_models = table.get("models")
        if not isinstance(raw_models, dict) or not raw_models:
            raise RevisionSpecError("[revision.models] must name at least one model per letter, e.g. "
                                    "[revision.models.L] provider = \"local\" model = \"...\"")
        defaults = settings.reviewer_defaults()
        models = []
        for letter, m in sorted(raw_models.items()):
            if not re.fullmatch(r"[A-Z]", letter):
                raise RevisionSpecError(f"[revision.models.{letter}]: a role is one upper-case letter")
            if not isinstance(m, dict) or (bad := sorted(set(m) - MODEL_KEYS)):
                raise RevisionSpecError(f"[revision.models.{letter}]: keys are {sorted(MODEL_KEYS)}"
                                        + (f"; unknown: {bad}" if isinstance(m, dict) else ""))
            provider = m.get("provider", defaults.provider)
            model = m.get("model") or (defaults.model if provider == defaults.provider else None)
            if not model:
                raise RevisionSpecError(f"[revision.models.{letter}]: set model (provider {provider!r} has no default)")
            models.append(RoleModel(letter, provider, model, m.get("base_url"), m.get("temperature"),
                                    m.get("max_output_tokens")))
        letters = {m.letter for m in models}
        if len({(m.provider, m.model, m.base_url) for m in models}) < len(models):
            raise RevisionSpecError("[revision.models]: two letters name the same model; a crossover needs "
                                    "distinct models")
        cells = table.get("cells")
        if not isinstance(cells, list) or not cells:
            raise RevisionSpecError("[revision] cells must list Writer/Selector/Scorer letter triples, "
                                    "e.g. [\"LLL\", \"LLH\"]")
        for c in cells:
            if not isinstance(c, str) or not CELL.fullmatch(c) or set(c) - letters:
                raise RevisionSpecError(f"[revision] cell {c!r}: three letters of {sorted(letters)} "
                                        "(Writer, Selector, Scorer)")
        if len(set(cells)) < len(cells):
            raise RevisionSpecError("[revision] cells lists a cell twice")
        feedback = _feedback(table.get("feedback", "own"), letters, {c[0] for c in cells})
        unchanged = table.get("unchanged_final", "zero_noise")
        if unchanged not in UNCHANGED_FINAL:
            raise RevisionSpecError(f"[revision] unchanged_final = {unchanged!r}: one of {list(UNCHANGED_FINAL)} "
                                    "(zero_noise: an unchanged final's gain is 0 with no noise; rescore: score it "
                                    "again in new sessions)")
        kinds = tuple(table.get("editable_kinds", EDITABLE_KINDS))
        if bad := sorted(set(kinds) - set(EDITABLE_KINDS)):
            raise RevisionSpecError(f"[revision] editable_kinds {bad}: only {list(EDITABLE_KINDS)} may be "
                                    "rewritten (page markers, images, titles, references stay as they are)")
        ints = {}
        for key, low in (("repeats", 2), ("manuscript_chars", 0), ("max_edits", 1), ("writer_max_output_tokens", 64),
                         ("selector_max_output_tokens", 64), ("reason_chars", 1)):
            if key in table:
                v = table[key]
                if isinstance(v, bool) or not isinstance(v, int) or v < low:
                    raise RevisionSpecError(f"[revision] {key} must be a whole number >= {low}"
                                            + (" (a gain's noise needs two scores per side)" if key == "repeats"
                                               else ""))
                ints[key] = v
        temperature = table.get("temperature", 0.0)
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature < 0:
            raise RevisionSpecError("[revision] temperature must be a number >= 0")
        papers = table.get("papers", [])
        if not isinstance(papers, list):
            raise RevisionSpecError("[revision] papers must be a list of paper ids")
        return cls(models=tuple(models), cells=tuple(cells), papers=tuple(map(str, papers)), feedback=feedback,
                   editable_kinds=kinds, temperature=float(temperature), unchanged_final=unchanged, **ints)

    # --- roles -------------------------------------------------------------------------------------

    def model(self, letter: str) -> RoleModel:
        return next(m for m in self.models if m.letter == letter)

    @property
    def conditions(self) -> list[tuple[str, str]]:
        """(Writer, Selector) pairs the cells need, in cell order."""
        return list(dict.fromkeys((c[0], c[1]) for c in self.cells))

    @property
    def writers(self) -> list[str]:
        return list(dict.fromkeys(c[0] for c in self.cells))

    @property
    def scorers(self) -> list[str]:
        return list(dict.fromkeys(c[2] for c in self.cells))

    def feedback_letter(self, writer: str) -> str:
        """The letter whose first review of the original this Writer reads."""
        source = dict(self.feedback).get(writer, "own") if isinstance(self.feedback, tuple) else self.feedback
        return writer if source == "own" else source

    def scorer_config(self, letter: str) -> ReviewerConfig:
        """The standard scoring review with this letter's model: the Scorer, and the Writer's feedback."""
        m = self.model(letter)
        d = settings.reviewer_defaults()
        return ReviewerConfig(provider=m.provider, model=m.model, template="reviewer_scoring", samples=self.repeats,
                              temperature=d.temperature if m.temperature is None else float(m.temperature),
                              max_output_tokens=m.max_output_tokens or d.max_output_tokens, base_url=m.base_url)

    def covers(self, paper_id: str) -> bool:
        return not self.papers or paper_id in self.papers

    @property
    def identity(self) -> str:
        """16 hex of what decides the Writer/Selector outcome (not the cells or Scorers): recorded on
        every outcome, so a changed setting makes new outcomes instead of mixing with the old."""
        ident = {k: v for k, v in asdict(self).items()
                 if k not in ("cells", "repeats", "papers")}
        if self.unchanged_final == "zero_noise":
            del ident["unchanged_final"]  # the default before it was a setting: outcomes keep their keys
        return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _feedback(raw, letters: set[str], writers: set[str]) -> str | tuple[tuple[str, str], ...]:
    """`feedback`: "own" or a letter for every Writer, or a table {Writer letter = "own" | letter}
    (a Writer the table leaves out reads its own review)."""
    def source(value, where: str) -> str:
        if value not in FEEDBACK and value not in letters:
            raise RevisionSpecError(f"[revision] {where} = {value!r}: 'own' (the Writer's own first review) "
                                    f"or a letter of {sorted(letters)}")
        return value

    if not isinstance(raw, dict):
        return source(raw, "feedback")
    if bad := sorted(set(raw) - writers):
        raise RevisionSpecError(f"[revision] feedback names {bad}, which write in no cell; Writers: {sorted(writers)}")
    return tuple(sorted((w, source(v, f"feedback.{w}")) for w, v in raw.items()))
