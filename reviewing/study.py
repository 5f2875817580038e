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
    [costs]                       # optional
    max_cost_usd = 5.0            # a run of this study stops before new paid calls would pass $5
    batch = false                 # reviews through the provider's batch API (half price, within a day)
"""

import hashlib
import json
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from reviewing.scoring import ReviewerConfig
from reviewing.systems.base import SystemConfig, SystemOptionError
from warehouse import EventLog, PaperIngested, settings
from warehouse.events import StudyResolved
from warehouse.judge_caps import check_caps
from warehouse.studies import StudyFiles

DEMO = "demo"
DEFAULT = "default"
PAPER_KEYS = {"corpus", "folders", "sample", "venues", "ids", "all_ingested"}
REVIEWER_KEYS = {"template", "samples", "provider", "model", "temperature", "max_output_tokens", "base_url",
                 "system", "options", "papers", "strip_hidden"}
# The robustness experiments (issue #11): each a table whose keys its own module checks
# (orchestration/experiments.py names them): a contradiction benchmark, hidden-text injection,
# withdrawn papers' real errors, score prediction from review text, and focus.
EXPERIMENTS = ("contradictions", "hidden_text", "withdrawals", "score_prediction", "focus")
VARIANT_EXPERIMENTS = ("contradictions", "hidden_text")  # the ones that make new manuscripts
# The revision crossover (issue #12, reviewing.revision): Writer / Selector / Scorer cells.
REVISION = "revision"
TOP_KEYS = {"name", "description", "papers", "reviewers", "external_systems", "judges", "judging", "costs",
            REVISION, *EXPERIMENTS}
COSTS_KEYS = {"max_cost_usd", "batch"}
JUDGES = ("depth", "novelty", "flaws", "constructiveness")
JUDGING_KEYS = {"papers", "sources", "peerlake_samples", "human_per_paper", "repeats", "retrieval", "max_claims",
                "verify_top", "caps", "depth_taxonomy",
                "provider", "model", "temperature", "max_output_tokens", "base_url"}
REVIEW_SOURCES = ("human", "peerlake", "external")
RETRIEVAL_BACKENDS = ("offline", "semantic_scholar")


class StudyError(ValueError):
    """A study file that cannot be used; the message says what to change."""


def _provider_and_model(provider: str | None, model: str | None, defaults, who: str) -> tuple[str, str]:
    """A reviewer's or judge's provider and model: unset ones from the environment's settings; the
    environment's model only goes with the environment's provider."""
    provider = provider or defaults.provider
    model = model or (defaults.model if provider == defaults.provider else "")
    if not model:
        raise StudyError(f"{who}: provider {provider!r} needs a model")
    return provider, model


@dataclass(frozen=True)
class ReviewerSpec:
    template: str = "reviewer_scoring"
    samples: int | None = None
    provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
    base_url: str | None = None
    system: str | None = None  # a reviewer system (reviewing.systems) instead of a single template
    options: tuple[tuple[str, object], ...] = ()  # the system's option overrides, sorted
    papers: tuple[str, ...] = ()  # review only these of the study's papers (default: all of them)
    strip_hidden: bool = True  # a template reviewer reads the visible text (a system: options.strip_hidden)

    def system_config(self) -> SystemConfig:
        """The reviewer system as configured: unset model settings come from the environment's."""
        from reviewing.systems import get_system

        d = settings.reviewer_defaults()
        provider, model = _provider_and_model(self.provider, self.model, d, f"reviewer system {self.system!r}")
        try:
            opts = get_system(self.system).resolve(dict(self.options), provider=provider)
        except SystemOptionError as exc:
            raise StudyError(str(exc)) from None
        return SystemConfig(system=self.system, provider=provider, model=model,
                            options=tuple(sorted(opts.items())), samples=self.samples or 1,
                            max_output_tokens=self.max_output_tokens or settings.system_max_output_tokens(provider),
                            base_url=self.base_url if self.base_url is not None else d.base_url,
                            papers=self.papers)

    def config(self) -> ReviewerConfig:
        """The concrete configuration: unset fields come from the environment's settings."""
        d = settings.reviewer_defaults()
        provider, model = _provider_and_model(self.provider, self.model, d, f"reviewer {self.template!r}")
        return ReviewerConfig(
            provider=provider, model=model, template=self.template,
            samples=self.samples if self.samples is not None else d.samples,
            temperature=self.temperature if self.temperature is not None else d.temperature,
            max_output_tokens=self.max_output_tokens or d.max_output_tokens,
            base_url=self.base_url if self.base_url is not None else d.base_url, papers=self.papers,
            strip_hidden=self.strip_hidden)


@dataclass(frozen=True)
class JudgingSpec:
    """Which reviews the study's judges read, and the judge model (unset: the environment's reviewer
    provider and model, at temperature 0 as PRISM)."""

    papers: tuple[str, ...] = ()
    sources: tuple[str, ...] = REVIEW_SOURCES
    peerlake_samples: int | None = None
    human_per_paper: int | None = None
    repeats: int = 1
    retrieval: str = "offline"
    max_claims: int | None = None  # the novelty_claims cap's older name (warehouse/judge_caps.py)
    verify_top: int = 3
    # [judging.caps] (warehouse/judge_caps.py), 0 = no cap: a cap left out has the judge model's default (the
    # embedded model's values on `local`; none on a hosted model, as PRISM's prompts: "extract ALL").
    caps: tuple[tuple[str, int | None], ...] = ()
    # the depth judge's aspects and grounding scale: a file in prompts/taxonomies/ by name, or a path
    # (judging/depth_taxonomy.py); prism-reference = what PRISM's code ran for its published tables
    depth_taxonomy: str = "prism-reference"
    provider: str | None = None
    model: str | None = None
    temperature: float = 0.0
    max_output_tokens: int | None = None
    base_url: str | None = None

    def model_settings(self) -> dict:
        """provider, model, temperature, max_output_tokens, base_url, repeats: a judge configuration."""
        d = settings.reviewer_defaults()
        provider, model = _provider_and_model(self.provider, self.model, d, "[judging]")
        return {"provider": provider, "model": model, "temperature": self.temperature,
                "max_output_tokens": self.max_output_tokens or d.max_output_tokens,
                "base_url": self.base_url if self.base_url is not None else d.base_url,
                "repeats": self.repeats, "caps": self.caps, "depth_taxonomy": self.depth_taxonomy}


@dataclass(frozen=True)
class CostSpec:
    """What a study may spend and how it pays: a cap per run, and the provider batch APIs."""

    max_cost_usd: float | None = None  # None: no cap (a run's --max-cost still applies)
    batch: bool = False


@dataclass(frozen=True)
class Study:
    name: str
    text: str
    description: str = ""
    corpus: str | None = None
    folders: tuple[str, ...] = ()
    sample: str | None = None
    venues: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    all_ingested: bool = False
    reviewers: tuple[ReviewerSpec, ...] = (ReviewerSpec(),)
    external_systems: tuple[str, ...] = ()
    judges: tuple[str, ...] = field(default=())
    judging: JudgingSpec = JudgingSpec()
    costs: CostSpec = CostSpec()
    experiments_json: str = "{}"  # {experiment: its table}, checked by orchestration.experiments

    def experiment(self, name: str) -> dict | None:
        """The study's table for one experiment (EXPERIMENTS), None when the study does not run it."""
        return json.loads(self.experiments_json).get(name)

    @property
    def experiments(self) -> list[str]:
        return [e for e in EXPERIMENTS if self.experiment(e) is not None]

    def revision(self):
        """The study's revision crossover (reviewing.revision.spec.RevisionSpec), None without [revision]."""
        from reviewing.revision.spec import RevisionSpec

        table = self.experiment(REVISION)
        return None if table is None else RevisionSpec.from_table(table)

    @property
    def makes_variants(self) -> bool:
        return any(self.experiment(e) is not None for e in VARIANT_EXPERIMENTS)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def reviewer_configs(self) -> list[ReviewerConfig]:
        """The single-template reviewers (the `ai_reviews` asset's)."""
        return [r.config() for r in self.reviewers if r.system is None]

    def first_template_reviewer(self, what: str) -> ReviewerConfig:
        """The study's first single-template reviewer (the decimal reviews and probes reuse its model)."""
        configs = self.reviewer_configs()
        if not configs:
            raise StudyError(f"study {self.name!r}: {what} need a template reviewer ([[reviewers]] template = "
                             "...); this study names reviewer systems only")
        return configs[0]

    def system_configs(self) -> list[SystemConfig]:
        """The reviewer systems (the `system_reviews` asset's)."""
        return [r.system_config() for r in self.reviewers if r.system is not None]

    @property
    def has_reviewers(self) -> bool:
        """Whether any reviewer (template or system) reads manuscripts."""
        return bool(self.reviewers)

    def paper_source(self) -> str:
        parts = [f"corpus:{self.corpus}"] if self.corpus else []
        parts += [f"folder:{f}" for f in self.folders]
        parts += [f"sample:{self.sample}"] if self.sample else []
        parts += [f"venue:{v}" for v in self.venues]
        parts += [f"ids:{len(self.ids)}"] if self.ids else []
        parts += ["all_ingested"] if self.all_ingested else []
        return " + ".join(parts)


def parse_study(name: str, text: str) -> Study:
    """Parse and check a study file; every problem is a StudyError naming the key."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"study {name!r}: not valid TOML: {exc}") from None
    _no_unknown(name, "", raw, TOP_KEYS)
    if raw.get("name", name) != name:
        raise StudyError(f"study {name!r}: the file says name = {raw['name']!r}; rename one of them")
    papers = raw.get("papers", {})
    _no_unknown(name, "papers.", papers, PAPER_KEYS)
    if not any(papers.get(k) for k in PAPER_KEYS):
        raise StudyError(f"study {name!r}: [papers] selects nothing; set one of {sorted(PAPER_KEYS)}")
    if papers.get("corpus") not in (None, DEMO):
        raise StudyError(f"study {name!r}: papers.corpus = {papers['corpus']!r}; the only corpus is 'demo'")
    reviewers = []
    # no [[reviewers]] table: the default reviewer; `reviewers = []`: imported reviews only
    for i, r in enumerate(raw.get("reviewers", [{}])):
        _no_unknown(name, f"reviewers[{i}].", r, REVIEWER_KEYS)
        if r.get("samples") is not None and (not isinstance(r["samples"], int) or r["samples"] < 1):
            raise StudyError(f"study {name!r}: reviewers[{i}].samples must be a whole number >= 1")
        if r.get("system") is not None and "template" in r:
            raise StudyError(f"study {name!r}: reviewers[{i}] names both a system and a template; a system "
                             "brings its own templates")
        if "options" in r and (r.get("system") is None or not isinstance(r["options"], dict)):
            raise StudyError(f"study {name!r}: reviewers[{i}].options is a table of a system's options "
                             "(needs system = ...)")
        if "strip_hidden" in r and (r.get("system") is not None or not isinstance(r["strip_hidden"], bool)):
            raise StudyError(f"study {name!r}: reviewers[{i}].strip_hidden is true or false for a template "
                             "reviewer; a system takes it in options = { strip_hidden = ... }")
        if not isinstance(r.get("papers", []), list):
            raise StudyError(f"study {name!r}: reviewers[{i}].papers must be a list of paper ids")
        _no_base_url_for_hosted(name, f"reviewers[{i}]", r)
        spec = ReviewerSpec(**{**r, "options": tuple(sorted(r.get("options", {}).items())),
                               "papers": tuple(str(p) for p in r.get("papers", ()))})
        if spec.system is not None:
            try:
                from reviewing.systems import get_system

                get_system(spec.system).resolve(dict(spec.options))
            except SystemOptionError as exc:
                raise StudyError(f"study {name!r}: reviewers[{i}]: {exc}") from None
        reviewers.append(spec)
    judges = raw.get("judges", [])
    if not isinstance(judges, list) or (unknown := sorted(set(map(str, judges)) - set(JUDGES))):
        raise StudyError(f"study {name!r}: judges must be a list of {', '.join(JUDGES)}"
                         + (f"; unknown: {', '.join(unknown)}" if isinstance(judges, list) else ""))
    judging = _judging(name, raw.get("judging", {}))
    costs = _costs(name, raw.get("costs", {}))
    experiments = {}
    for e in EXPERIMENTS:
        if e in raw:
            if not isinstance(raw[e], dict):
                raise StudyError(f"study {name!r}: [{e}] must be a table")
            experiments[e] = raw[e]
    if REVISION in raw:
        from reviewing.revision.spec import RevisionSpec, RevisionSpecError

        try:
            RevisionSpec.from_table(raw[REVISION])
        except RevisionSpecError as exc:
            raise StudyError(f"study {name!r}: {exc}") from None
        experiments[REVISION] = raw[REVISION]
    return Study(name=name, text=text, description=raw.get("description", ""),
                 corpus=papers.get("corpus"), folders=tuple(papers.get("folders", ())),
                 sample=papers.get("sample"), venues=tuple(papers.get("venues", ())),
                 ids=tuple(str(i) for i in papers.get("ids", ())),
                 all_ingested=bool(papers.get("all_ingested", False)), reviewers=tuple(reviewers),
                 external_systems=tuple(raw.get("external_systems", ())),
                 judges=tuple(j for j in JUDGES if j in judges), judging=judging, costs=costs,
                 experiments_json=json.dumps(experiments, sort_keys=True, default=str))


def _costs(name: str, table: dict) -> CostSpec:
    _no_unknown(name, "costs.", table, COSTS_KEYS)
    cap = table.get("max_cost_usd")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or cap < 0):
        raise StudyError(f"study {name!r}: costs.max_cost_usd must be a number of US dollars >= 0")
    batch = table.get("batch", False)
    if not isinstance(batch, bool):
        raise StudyError(f"study {name!r}: costs.batch must be true or false")
    return CostSpec(max_cost_usd=None if cap is None else float(cap), batch=batch)


def _no_base_url_for_hosted(name: str, where: str, table: dict) -> None:
    """OpenAI's and Anthropic's providers call their own API (or the SDK's OPENAI_BASE_URL /
    ANTHROPIC_BASE_URL): a study's base_url would be ignored there, and the calls go elsewhere than
    the study says. Refused, naming what to use instead."""
    if table.get("base_url") is not None and table.get("provider") in ("openai", "anthropic"):
        env = "OPENAI_BASE_URL" if table["provider"] == "openai" else "ANTHROPIC_BASE_URL"
        raise StudyError(f"study {name!r}: {where}.base_url is ignored by provider {table['provider']!r}; use "
                         f"provider = \"openai_compatible\" for another server, or set {env} for a proxy of "
                         "the same API")


def _judging(name: str, table: dict) -> JudgingSpec:
    _no_unknown(name, "judging.", table, JUDGING_KEYS)
    _no_base_url_for_hosted(name, "judging", table)
    for key in ("peerlake_samples", "human_per_paper", "repeats", "max_claims", "verify_top"):
        v = table.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
            raise StudyError(f"study {name!r}: judging.{key} must be a whole number >= 1")
    sources = tuple(table.get("sources", REVIEW_SOURCES))
    if bad := sorted(set(sources) - set(REVIEW_SOURCES)):
        raise StudyError(f"study {name!r}: judging.sources has {', '.join(bad)}; known: {', '.join(REVIEW_SOURCES)}")
    if table.get("retrieval", "offline") not in RETRIEVAL_BACKENDS:
        raise StudyError(f"study {name!r}: judging.retrieval = {table['retrieval']!r}; "
                         f"known: {', '.join(RETRIEVAL_BACKENDS)}")
    t = table.get("temperature", 0.0)
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
        raise StudyError(f"study {name!r}: judging.temperature must be a number >= 0")
    raw_caps = table.get("caps", {})
    if not isinstance(raw_caps, dict):
        raise StudyError(f"study {name!r}: judging.caps must be a table, e.g. [judging.caps] depth_units = 12")
    try:
        caps = check_caps(raw_caps)
    except ValueError as exc:
        raise StudyError(f"study {name!r}: {exc}") from None
    if table.get("max_claims") is not None:
        caps.setdefault("novelty_claims", table["max_claims"])
    depth_taxonomy = table.get("depth_taxonomy", "prism-reference")
    if not isinstance(depth_taxonomy, str) or not depth_taxonomy.strip():
        raise StudyError(f"study {name!r}: judging.depth_taxonomy must be a shipped taxonomy's name "
                         "(prism-reference, prism-paper) or a path to a TOML file")
    return JudgingSpec(papers=tuple(str(p) for p in table.get("papers", ())), sources=sources,
                       peerlake_samples=table.get("peerlake_samples"), human_per_paper=table.get("human_per_paper"),
                       repeats=table.get("repeats", 1), retrieval=table.get("retrieval", "offline"),
                       max_claims=table.get("max_claims"), verify_top=table.get("verify_top", 3),
                       caps=tuple(sorted(caps.items())), depth_taxonomy=depth_taxonomy.strip(),
                       provider=table.get("provider"),
                       model=table.get("model"), temperature=float(t),
                       max_output_tokens=table.get("max_output_tokens"), base_url=table.get("base_url"))


def _no_unknown(name: str, prefix: str, table: dict, known: set[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise StudyError(f"study {name!r}: unknown key(s) {', '.join(prefix + k for k in unknown)}; "
                         f"known: {', '.join(prefix + k for k in sorted(known))}")


def study_text(name: str, *, description: str = "", corpus: str | None = None,
               folders: list[str] = (), sample: str | None = None, venues: list[str] = (),
               ids: list[str] = (), all_ingested: bool = False, samples: int | None = None,
               template: str = "reviewer_scoring", external_systems: list[str] = (),
               reviewers: bool = True, judges: list[str] = (), judging: dict | None = None,
               systems: list[str] = ()) -> str:
    """A study file as `peerlake study new` writes it (TOML, stable key order, so equal studies hash equal)."""
    lines = ["# A peerlake study (see `peerlake study --help`). Its SHA-256 is its version.",
             f"name = {json.dumps(name)}"]
    if description:
        lines.append(f"description = {json.dumps(description)}")
    if external_systems:
        lines.append(f"external_systems = {json.dumps(list(external_systems))}")
    lines += [f"judges = {json.dumps(list(judges))}", "", "[papers]"]
    if corpus:
        lines.append(f"corpus = {json.dumps(corpus)}")
    if folders:
        lines.append(f"folders = {json.dumps([str(Path(f).resolve()) for f in folders])}")
    if sample:
        lines.append(f"sample = {json.dumps(sample)}")
    if venues:
        lines.append(f"venues = {json.dumps(list(venues))}")
    if ids:
        lines.append(f"ids = {json.dumps(list(ids))}")
    if all_ingested:
        lines.append("all_ingested = true")
    if reviewers and systems:  # reviewer systems instead of the single-prompt reviewer
        for name_ in systems:
            lines += ["", "[[reviewers]]", f"system = {json.dumps(name_)}"]
            if samples is not None:
                lines.append(f"samples = {samples}")
            lines.append("# options = { }  # see `peerlake systems " + name_ + "`")
    elif reviewers:
        lines += ["", "[[reviewers]]", f"template = {json.dumps(template)}"]
        if samples is not None:
            lines.append(f"samples = {samples}")
    else:  # top-level keys must precede the tables
        lines.insert(2, "reviewers = []  # imported reviews only (external_systems)")
    if judging:
        lines += ["", "[judging]"] + [f"{k} = {json.dumps(v)}" for k, v in judging.items()]
    text = "\n".join(lines) + "\n"
    parse_study(name, text)  # never write a file that would not load
    return text


# The demo itself names no judge: on a slow 2-core machine its 14 judge calls took 4.7 of 11.4 minutes,
# over `make demo`'s 10. `peerlake run judging-demo` (below) runs the four PRISM judges instead.
DEMO_TEXT = study_text(DEMO, description="The bundled synthetic demo corpus (4 papers) and its human reviews.",
                       corpus=DEMO)


# `peerlake run judging-demo`: the four PRISM judges (judging/) on demo-001's first AI review and its first
# human review, the novelty judge checking at most 2 claims per review against its single most relevant
# candidate (defaults: 5 and 3): 14 calls, about 5 minutes on 2 cores. The review is the demo's own
# (the same reviewer configuration and sample), so after `make demo` it replays and only the judges
# are paid; on a fresh lake it is made first. A study may judge everything (drop [judging] papers/limits).
JUDGING_DEMO = "judging-demo"
DEMO_JUDGING = {"papers": ["demo-001"], "peerlake_samples": 1, "human_per_paper": 1, "max_claims": 2,
                "verify_top": 1}
JUDGING_DEMO_TEXT = f"""\
# A peerlake study (see `peerlake study --help`). Its SHA-256 is its version.
# The four PRISM review-quality judges on one demo paper: its first AI review and its first human review.
name = "judging-demo"
description = "Depth, novelty, flaws and constructiveness judges on demo-001's first AI and first human review."
judges = {json.dumps(list(JUDGES))}

[papers]
corpus = "demo"

[[reviewers]]
template = "reviewer_scoring"
samples = 1
papers = ["demo-001"]

[judging]
""" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in DEMO_JUDGING.items())


# `peerlake run systems-demo`: each reviewer system of reviewing.systems in its simplest configuration on
# one demo paper (the README's one command for them; `make demo` leaves them out to stay under 10 minutes).
SYSTEMS_DEMO = "systems-demo"
SYSTEMS_DEMO_TEXT = """\
# A peerlake study (see `peerlake study --help`). Its SHA-256 is its version.
# The reviewer systems side by side, each in its simplest configuration, on one demo paper.
name = "systems-demo"
description = "MLR, LLM-Review, the AI Scientist reviewer and AgentReview on demo-001 (simplest configurations)."
judges = []

[papers]
corpus = "demo"

[[reviewers]]
system = "mlr"
papers = ["demo-001"]

[[reviewers]]
system = "llm-review"
papers = ["demo-001"]

[[reviewers]]
system = "ai-scientist"
papers = ["demo-001"]
options = { ensemble = 1, reflections = 1 }

[[reviewers]]
system = "agentreview"
papers = ["demo-001"]
options = { sample_one = true }
"""

# `peerlake run robustness-demo`: the robustness experiments (orchestration.experiments) on two demo
# papers with one cheap reviewer system, about 30 calls (the README's one command for them; `make demo`
# leaves them out to stay under 10 minutes). demo-004 gets contradictions inserted, demo-001 a hidden
# prompt; the same reviewer also reads demo-001 with the hidden-text defence on.
ROBUSTNESS_DEMO = "robustness-demo"
ROBUSTNESS_DEMO_TEXT = """\
# A peerlake study (see `peerlake study --help`). Its SHA-256 is its version.
# The robustness experiments on two demo papers: contradictions, hidden text, score prediction, focus.
name = "robustness-demo"
description = "Can a reviewer find what is wrong? Contradictions in demo-004, hidden text in demo-001."
judges = []

[papers]
corpus = "demo"

# the attack: this reviewer reads the text layer whole, hidden text included
[[reviewers]]
system = "agentreview"
papers = ["demo-001", "demo-004"]
options = { sample_one = true, strip_hidden = false }

# the same reviewer with the defence (the default): it reads only the text the rendered pages show
[[reviewers]]
system = "agentreview"
papers = ["demo-001"]
options = { sample_one = true, strip_hidden = true }

# the graph from the first 3,000 characters with at most 5 nodes: about a minute on the embedded model
[contradictions]
papers = ["demo-004"]
max_items = 2
max_nodes = 5
manuscript_chars = 3000

[contradictions.judge]
repeats = 1

[hidden_text]
papers = ["demo-001"]
methods = ["white"]

[score_prediction]
papers = ["demo-001"]

[focus]
papers = ["demo-001"]
max_items = 3
"""

# `peerlake run revision-demo`: the revision crossover (reviewing.revision) on two demo papers, the
# Writer's full 2×2 (Selector × Scorer) with the two embedded models as the roles: L the 1.5B model,
# H the 0.5B one. About 40 calls; the numbers test the machinery, not the science.
REVISION_DEMO = "revision-demo"
REVISION_DEMO_TEXT = f"""\
# A peerlake study (see `peerlake study --help`). Its SHA-256 is its version.
# The revision crossover: does revising a paper to please a reviewer make it better, and who says so?
name = "revision-demo"
description = "Writer / Selector / Scorer crossover on two demo papers with the two embedded models."
judges = []
reviewers = []

[papers]
corpus = "demo"

[revision]
papers = ["demo-001", "demo-002"]
# Writer / Selector / Scorer letters: L's edits, selected by L or H, scored by L and H
cells = ["LLL", "LHL", "LLH", "LHH"]
repeats = 3
# the embedded models have a 4k-token context: the Writer sees the first 2,500 characters
manuscript_chars = 2500
max_edits = 3

[revision.models.L]
provider = "local"
model = "{settings.LOCAL_MODEL_NAME}"

[revision.models.H]
provider = "local"
model = "{settings.LOCAL_SMALL_MODEL_NAME}"
"""
BUILTIN_STUDIES = {DEMO: lambda: DEMO_TEXT, JUDGING_DEMO: lambda: JUDGING_DEMO_TEXT,
                   SYSTEMS_DEMO: lambda: SYSTEMS_DEMO_TEXT, ROBUSTNESS_DEMO: lambda: ROBUSTNESS_DEMO_TEXT,
                   REVISION_DEMO: lambda: REVISION_DEMO_TEXT}


# Built-in study texts of earlier releases: a lake that still holds one is upgraded to the current
# text (a study the user edited is left alone). The last demo judged demo-001 (now judging-demo's
# work); the last robustness-demo's first reviewer read hidden text by the old default (now it says so).
_OLD_BUILTIN_SHA256 = {
    DEMO: {hashlib.sha256(study_text(
        DEMO, description="The bundled synthetic demo corpus (4 papers) and its human reviews.", corpus=DEMO,
        judges=list(JUDGES), judging=DEMO_JUDGING).encode()).hexdigest()},
    ROBUSTNESS_DEMO: {"cb072715cb1d736ca011cb7e63c4117bb63ba1b7e460ec1e965b2dc3c91fe576"},
}


def load_study(log: EventLog, name: str) -> Study:
    """The study file from the lake; the built-in studies (BUILTIN_STUDIES) are written on first use."""
    files = StudyFiles(log.lake)
    if name in BUILTIN_STUDIES and (not files.exists(name) or hashlib.sha256(files.read(name).encode()).hexdigest()
                                    in _OLD_BUILTIN_SHA256.get(name, ())):
        files.write(name, BUILTIN_STUDIES[name]())
    return parse_study(name, files.read(name))


def save_study(log: EventLog, name: str, text: str) -> Path:
    parse_study(name, text)
    return StudyFiles(log.lake).write(name, text)


def default_study_text(log: EventLog, samples: int | None = None, template: str = "reviewer_scoring") -> str:
    """`peerlake review` without a study: the papers the user ingested -- the newest `peerlake sample`
    draw when there is one (the sample is what gets reviewed), else every non-synthetic paper.
    Never the demo corpus."""
    has_sample = log.count("sample_drawn") > 0
    return study_text(DEFAULT, description="The papers you ingested (written by `peerlake review`).",
                      sample="latest" if has_sample else None, all_ingested=not has_sample,
                      samples=samples, template=template, external_systems=["*"])


@dataclass(frozen=True)
class Resolution:
    paper_ids: list[str]  # every selected paper the lake knows (manuscript, human review, status, import)
    manuscripts: list[PaperIngested]  # newest version of those with a manuscript: what a reviewer reads
    missing: list[str]  # selected but unknown to the lake

    @property
    def reviewable(self) -> list[str]:
        return [m.paper_id for m in self.manuscripts]


def study_pdfs(study: Study) -> list[tuple[str, Path, bool]]:
    """(paper_id, PDF path, is_synthetic) the study's run ingests: the demo corpus and its folders."""
    out: list[tuple[str, Path, bool]] = []
    if study.corpus == DEMO:
        from ingest.demo_corpus import demo_papers

        only = settings.demo_only()
        out += [(p.stem, p, True) for p in demo_papers() if only is None or p.stem in only]
    for folder in study.folders:
        path = Path(folder)
        if not path.is_dir():
            raise StudyError(f"study {study.name!r}: papers folder {folder} does not exist")
        out += [(p.stem, p, False) for p in sorted(path.glob("*.pdf"))]
    return out


def study_review_files(study: Study) -> list[Path]:
    """Human-review files the study's run imports (the demo corpus's OpenReview-shaped notes)."""
    if study.corpus != DEMO:
        return []
    from ingest.demo_corpus import demo_reviews

    only = settings.demo_only()
    return [p for p in demo_reviews() if only is None or p.stem in only]


def resolve_papers(log: EventLog, study: Study) -> Resolution:
    """The paper ids the study covers now: the union of its selectors, restricted to papers the lake
    knows; those with a manuscript are the ones a reviewer can read."""
    from ingest.manuscripts import latest_versions

    latest = latest_versions(log)
    statuses = list(log.iter_events("paper_status_recorded"))
    known = set(latest) | {e.paper_id for e in statuses}
    known |= {e.paper_id for e in log.iter_events("human_review_imported")}
    known |= {e.paper_id for e in log.iter_events("external_review_imported")}
    synthetic = {pid for pid, e in latest.items() if e.is_synthetic}
    chosen: set[str] = {pid for pid, _, _ in study_pdfs(study)}
    chosen |= set(study.ids)
    if study.sample:
        chosen |= set(_sample_ids(log, study))
    if study.venues:
        chosen |= {pid for pid, e in latest.items() if e.venue in study.venues}
        chosen |= {e.paper_id for e in statuses if e.venue in study.venues}
    if study.all_ingested:
        chosen |= known - synthetic
    # The experiments' variants of those papers (a contradiction inserted, hidden text injected), as
    # the `paper_variants` asset last recorded them for this version of the study.
    chosen |= set(variant_ids(log, study)) & set(latest)
    return Resolution(paper_ids=sorted(chosen & known),
                      manuscripts=[latest[p] for p in sorted(chosen & set(latest))],
                      missing=sorted(chosen - known))


VARIANTS_ASSET = "paper_variants"


def variant_ids(log: EventLog, study: Study) -> list[str]:
    """The built variants the `paper_variants` asset recorded for this version of the study (its newest
    `study_resolved` event of that asset), none when the study has no experiment that makes any."""
    if not study.makes_variants:
        return []
    mine = [e for e in log.iter_events("study_resolved")
            if e.asset == VARIANTS_ASSET and e.study_id == study.name and e.study_sha256 == study.sha256]
    newest = max(mine, key=lambda e: e.event_id, default=None)
    return list(json.loads(newest.paper_ids_json)) if newest is not None else []


def _sample_ids(log: EventLog, study: Study) -> list[str]:
    draws = list(log.iter_events("sample_drawn"))
    if study.sample == "latest":
        if not draws:
            raise StudyError(f"study {study.name!r}: papers.sample = 'latest' but no sample was drawn "
                             "(run `peerlake sample ...` first)")
        draw = max(draws, key=lambda e: e.event_id)
    else:
        found = [e for e in draws if e.sample_id == study.sample]
        if not found:
            raise StudyError(f"study {study.name!r}: no sample {study.sample!r} in this lake "
                             f"(known: {', '.join(sorted(e.sample_id for e in draws)) or 'none'})")
        draw = found[-1]
    return list(json.loads(draw.paper_ids_json))


def resolution_event(study_id: str, study_sha256: str, paper_ids, reviewers: list[dict],
                     external_systems=(), paper_source: str = "", asset: str = "ai_reviews",
                     judges: list[dict] = ()) -> StudyResolved:
    """The `study_resolved` event; `reviewers` are {reviewer_config, samples, ...} rows (what the marts
    read: int_study_reviewers); `judges` are {judge, judge_config, repeats, review_keys, ...} rows (the
    judgments asset's: which reviews each judge covered for the study)."""
    return StudyResolved(study_id=study_id, study_sha256=study_sha256,
                         paper_ids_json=json.dumps(sorted(paper_ids)), reviewers_json=json.dumps(reviewers),
                         external_systems_json=json.dumps(list(external_systems)),
                         paper_source=paper_source, asset=asset, judges_json=json.dumps(list(judges)))


def record_resolution(log: EventLog, study: Study, paper_ids: list[str],
                      configs: list[ReviewerConfig] | list[SystemConfig],
                      asset: str, code_versions: list[str] | None = None,
                      judges: list[dict] = ()) -> StudyResolved:
    """Append what the study covered in this run (the text goes to the blob store first)."""
    log.blobs.put_text(study.text)
    versions = code_versions or [c.code_version() for c in configs]
    reviewers = [{"reviewer_config": v, "provider": c.provider, "model": c.model, "samples": c.samples,
                  **({"system": c.system, "strip_hidden": bool(c.opts.get("strip_hidden", True))}
                     if isinstance(c, SystemConfig) else {"template": c.template, "strip_hidden": c.strip_hidden})}
                 for c, v in zip(configs, versions, strict=True)]
    return log.append(resolution_event(study.name, study.sha256, paper_ids, reviewers, study.external_systems,
                                       study.paper_source(), asset, judges))


def with_study(requests: list, study: Study) -> list:
    """Label requests with the study that asks (recorded on a paid call; not part of its identity)."""
    return [replace(r, study=study.name) for r in requests]
