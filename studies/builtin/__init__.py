"""The built-in studies, one TOML file each beside this module, read as bytes: the file is the study's
text, and its SHA-256 the study's version in every lake that ran it, so nothing here builds or edits it.

- demo: the bundled synthetic corpus (4 papers) and its human reviews, and no judge: on a slow 2-core
  machine the demo's 14 judge calls took 4.7 of 11.4 minutes, over `make demo`'s 10.
- judging-demo: the four PRISM judges (judging/) on demo-001's first AI review and its first human
  review, the novelty judge checking at most 2 claims per review against its single most relevant
  candidate (defaults: 5 and 3): 14 calls, about 5 minutes on 2 cores. The review is the demo's own
  (the same reviewer configuration and sample), so after `make demo` it replays and only the judges are
  paid; on a fresh lake it is made first. A study may judge everything (drop [judging] papers/limits).
- systems-demo: each reviewer system of reviewing.systems in its simplest configuration on one demo
  paper (the README's one command for them; `make demo` leaves them out to stay under 10 minutes).
- robustness-demo: the robustness experiments (studies.experiments) on two demo papers with one
  cheap reviewer system, about 30 calls. demo-004 gets contradictions inserted, demo-001 a hidden
  prompt; the same reviewer also reads demo-001 with the hidden-text defence on.
- revision-demo: the revision crossover (reviewing.revision) on two demo papers, the Writer's full 2×2
  (Selector × Scorer) with the two embedded models as the roles: L the 1.5B model (settings.
  LOCAL_MODEL_NAME), H the 0.5B one (settings.LOCAL_SMALL_MODEL_NAME). About 40 calls; the numbers test
  the machinery, not the science.
- stress-demo: the stress suite (judging.stress, issue #49) on two demo papers, one template reviewer
  taking two samples of every manuscript (the noise its shifts are measured in needs two): 14 variants,
  41 calls on the embedded model, 43.8 minutes on 2 busy cores (docs/experiments/stress.md).
"""

from importlib.resources import files

from peerlake.studies.spec import DEMO

JUDGING_DEMO = "judging-demo"
SYSTEMS_DEMO = "systems-demo"
ROBUSTNESS_DEMO = "robustness-demo"
REVISION_DEMO = "revision-demo"
STRESS_DEMO = "stress-demo"
BUILTIN_STUDIES = (DEMO, JUDGING_DEMO, SYSTEMS_DEMO, ROBUSTNESS_DEMO, REVISION_DEMO, STRESS_DEMO)

# Built-in study texts of earlier releases: a lake that still holds one is upgraded to the current
# text (a study the user edited is left alone). The last demo judged demo-001 (now judging-demo's
# work); the last robustness-demo's first reviewer read hidden text by the old default (now it says so).
OLD_SHA256 = {
    DEMO: {"77f70eac2200c04d22e598a9a966cb737252862a474e4fe2c55f0f585e83ca59"},
    ROBUSTNESS_DEMO: {"cb072715cb1d736ca011cb7e63c4117bb63ba1b7e460ec1e965b2dc3c91fe576"},
    # judged by one configuration; now a panel at temperatures 0 and 0.7 (#45)
    JUDGING_DEMO: {"7e974c6ae91f19f53ab0ba284d1bb95ea2a92db3fa5b76cb9290e2ebe712bb8b"},
}


def builtin_text(name: str) -> str:
    """The built-in study's text, exactly as its file holds it (no newline translation: the bytes hash)."""
    if name not in BUILTIN_STUDIES:
        raise KeyError(f"no built-in study {name!r} (built-in: {', '.join(BUILTIN_STUDIES)})")
    return files(__name__).joinpath(f"{name}.toml").read_bytes().decode("utf-8")
