"""Studies: which papers, which reviewer configurations, how many samples, which judges.

A study is a small TOML file kept in the lake (warehouse.studies). Its SHA-256 is its version, like a
prompt template's. Each time a study runs, what it resolved to (the exact paper ids and reviewer
configuration hashes) is recorded as a `study_resolved` event, and every analysis mart is keyed by
study: the demo's numbers and a user's never mix, and calls shared by two studies are paid once.

    name = "iclr-pilot"
    description = "..."
    [papers]                      # the union of every selector given
    corpus = "demo"               # the bundled synthetic demo corpus (only the `demo` study uses it)
    folders = ["papers/"]         # PDFs in these folders (ingested by the study's run; id = file stem)
    sample = "latest"             # a `peerlake sample` draw: its sample_id, or "latest"
    venues = ["ICLR.cc/2022/Conference"]
    ids = ["abc123"]
    all_ingested = true           # every ingested paper that is not synthetic
    [[reviewers]]                 # provider / model / temperature / max_output_tokens default to
    template = "reviewer_scoring" # the environment's settings (PEERLAKE_PROVIDER, ...)
    samples = 3
    strip_hidden = true           # read only the text the pages show (default; false: the attack arm)
    [[reviewers]]                 # a reviewer system (reviewing.systems): mlr, mlr-combined,
    system = "ai-scientist"       # llm-review, ai-scientist, agentreview
    samples = 1                   # independent reviews of each paper (default 1 for a system)
    options = { ensemble = 5 }    # the system's options (see `peerlake systems`)
    external_systems = ["*"]      # imported reviews (`peerlake ingest reviews --system X`) to include
    judges = ["depth", "novelty", "flaws", "constructiveness"]   # PRISM review-quality judges
    [judging]                     # optional; which reviews the judges read and on which model
    papers = ["abc123"]           # judge only these of the study's papers (default: all)
    sources = ["human", "peerlake", "external"]   # whose reviews (default: all three)
    peerlake_samples = 1          # the first n samples of each reviewer configuration (default: all)
    human_per_paper = 2           # at most n human reviews per paper, in review-id order (default: all)
    repeats = 1                   # each judge step r times (judge repeatability; needs temperature > 0)
    retrieval = "offline"         # novelty's literature backend: offline | semantic_scholar
    max_claims = 5                # novelty claims verified per review (the first n)
    verify_top = 3                # candidates verified per claim (the most relevant; s_c uses the top 3)
    provider = "local"            # model, temperature (default 0), max_output_tokens, base_url as reviewers
    primary = "t0"                # optional: the panel member of the headline tables (default: the first)
    [[judging.panel]]             # optional: several judge configurations, each judging the same reviews;
    name = "t0"                   # a label ([a-z0-9][a-z0-9._-]{0,31}), never part of the judge's identity
    [[judging.panel]]             # each member inherits the [judging] model keys it leaves unset (model and
    name = "t07"                  # base_url only on the same provider); repeats stays study-wide
    temperature = 0.7
    [costs]                       # optional
    max_cost_usd = 5.0            # a run of this study stops before new paid calls would pass $5
    batch = false                 # reviews through the provider's batch API (half price, within a day)

The package, one job a module: spec (the records and StudyError), parse (file -> Study), text (Study
file as `peerlake study new` writes it), builtin (the built-in studies' .toml files), files (load and
save in the lake), resolve (the papers a study covers now), events (the `study_resolved` record).
"""

from peerlake.studies.builtin import (
    BUILTIN_STUDIES,
    JUDGING_DEMO,
    REVISION_DEMO,
    ROBUSTNESS_DEMO,
    SYSTEMS_DEMO,
    builtin_text,
)
from peerlake.studies.events import record_resolution, resolution_event, with_study
from peerlake.studies.files import load_study, save_study
from peerlake.studies.parse import parse_study
from peerlake.studies.resolve import (
    VARIANTS_ASSET,
    Resolution,
    resolve_papers,
    study_pdfs,
    study_review_files,
    variant_ids,
)
from peerlake.studies.spec import (
    DEFAULT,
    DEMO,
    EXPERIMENTS,
    JUDGES,
    REVISION,
    VARIANT_EXPERIMENTS,
    CostSpec,
    JudgingSpec,
    ReviewerSpec,
    Study,
    StudyError,
)
from peerlake.studies.text import default_study_text, study_text

__all__ = [
    "BUILTIN_STUDIES", "DEFAULT", "DEMO", "EXPERIMENTS", "JUDGES", "JUDGING_DEMO", "REVISION", "REVISION_DEMO",
    "ROBUSTNESS_DEMO", "SYSTEMS_DEMO", "VARIANTS_ASSET", "VARIANT_EXPERIMENTS", "CostSpec", "JudgingSpec",
    "Resolution", "ReviewerSpec", "Study", "StudyError", "builtin_text", "default_study_text", "load_study",
    "parse_study", "record_resolution", "resolution_event", "resolve_papers", "save_study", "study_pdfs",
    "study_review_files", "study_text", "variant_ids", "with_study",
]
