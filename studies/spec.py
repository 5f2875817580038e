"""What a study says: its parts as frozen records (Study, ReviewerSpec, JudgingSpec, CostSpec), the names
its tables may use, and StudyError, the one error every study problem raises."""

import hashlib
import json
from dataclasses import dataclass, field

from peerlake.judging.registry import experiment_names, judge_names, variant_experiments
from peerlake.retrieval.backends import BACKENDS
from peerlake.reviewing.scoring import ReviewerConfig
from peerlake.reviewing.systems.base import SystemConfig, SystemOptionError
from peerlake.warehouse import settings

DEMO = "demo"  # the bundled synthetic corpus (papers.corpus), and the built-in study that reviews it
DEFAULT = "default"  # the study `peerlake review` writes when none is named
# The robustness experiments (a contradiction benchmark, hidden-text injection, withdrawn papers' real
# errors, score prediction from review text, focus, the stress suite) and the judges are declared by
# their own modules in judging/ (judging.registry finds them), so a study knows every one without a list
# kept here.
EXPERIMENTS = experiment_names()
VARIANT_EXPERIMENTS = variant_experiments()  # the ones that make new manuscripts
# The revision crossover (reviewing.revision): Writer / Selector / Scorer cells.
REVISION = "revision"
JUDGES = judge_names()
REVIEW_SOURCES = ("human", "peerlake", "external")
RETRIEVAL_BACKENDS = BACKENDS  # the registry's names, so a new backend needs no line here


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
        from peerlake.reviewing.systems import get_system

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


PANEL_NAME = r"[a-z0-9][a-z0-9._-]{0,31}"  # a panel member's name: a label, never part of any identity
# A judge model's keys (the [judging] table's, and each [[judging.panel]] member's)
JUDGE_MODEL_KEYS = ("provider", "model", "temperature", "max_output_tokens", "base_url")


@dataclass(frozen=True)
class PanelMember:
    """One [[judging.panel]] entry: its name and the model keys it sets (None: the [judging] table's)."""

    name: str
    provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class JudgeMember:
    """A judge configuration of the study, resolved: `label` is the panel member's name (None without a
    panel), `settings` a JudgeConfig's keywords (JudgingSpec.model_settings' shape)."""

    label: str | None
    settings: dict
    is_primary: bool


@dataclass(frozen=True)
class JudgingSpec:
    """Which reviews the study's judges read, and the judge model (unset: the environment's reviewer
    provider and model, at temperature 0 as PRISM)."""

    papers: tuple[str, ...] = ()
    # review keys (external:<system>:<id>, human:<id> ...): judge only these of the study's reviews; () = all.
    # `peerlake validate-judges` judges N labelled reviews, and a paper's other reviews would cost calls.
    reviews: tuple[str, ...] = ()
    sources: tuple[str, ...] = REVIEW_SOURCES
    peerlake_samples: int | None = None
    human_per_paper: int | None = None
    repeats: int = 1
    retrieval: str = "offline"
    max_claims: int | None = None  # the novelty_claims cap's older name (judging/caps.py)
    verify_top: int = 3
    # novelty: a review of a paper the lake has no manuscript of still has its claims extracted (their stances;
    # no search, so NS is null), as holding the claims against DISAPERE's labels needs; off: no call for it
    claims_without_paper: bool = False
    # [judging.caps] (judging/caps.py), 0 = no cap: a cap left out has the judge model's default (the
    # embedded model's values on `local`; none on a hosted model, as PRISM's prompts: "extract ALL").
    caps: tuple[tuple[str, int | None], ...] = ()
    # the depth judge's aspects and grounding scale: a file in prompts/taxonomies/ by name, or a path
    # (judging/depth_taxonomy.py); prism-reference = what PRISM's code ran for its published tables
    depth_taxonomy: str = "prism-reference"
    # [judging.probes] (judging/probes.py): the bias probes `peerlake probe-judges` runs (`peerlake run` never
    # runs any), the seed of their variants, and tolerances by probe or "probe.dimension" (unset: the
    # dimension's default, each judge module's PROBE_TOLERANCE, judging.probes.default_tolerances)
    probes: tuple[str, ...] = ()
    probe_seed: int = 0
    probe_tolerances: tuple[tuple[str, float], ...] = ()
    # [judging.require] (studies/parse.py REQUIRE_KEYS): what the judge's card must show before its quality
    # rows are published plainly (kappa_min, retest_alpha_min, position_shift_max) and on_fail = "block" |
    # "flag"; sorted (key, value) pairs, () = nothing required. A judge with a [judging.require.<judge>]
    # table is one more pair: (judge, its whole requirement as sorted pairs), which replaces the common
    # keys for that judge (int_judge_card_requirements). Not part of the judge's identity.
    require: tuple[tuple[str, object], ...] = ()
    provider: str | None = None
    model: str | None = None
    temperature: float = 0.0
    max_output_tokens: int | None = None
    base_url: str | None = None
    # [[judging.panel]]: several judge configurations judging the same reviews, each inheriting the model
    # keys above; () = one unnamed judge, the [judging] table's (the judge identities of before panels)
    panel: tuple[PanelMember, ...] = ()
    primary: str | None = None  # the panel member of the headline tables (None: the first)

    def model_settings(self) -> dict:
        """provider, model, temperature, max_output_tokens, base_url, repeats: a judge configuration (the
        [judging] table's own; experiment judges inherit it, whatever the panel says)."""
        return self._settings(self.provider, self.model, self.temperature, self.max_output_tokens, self.base_url,
                              "[judging]")

    def members(self) -> list[JudgeMember]:
        """The study's judge configurations, the primary first: without a panel, the [judging] table's alone
        (label None); else each member with the [judging] model keys it leaves unset. A member that names
        another provider does not inherit the table's model and base_url (they go with its provider)."""
        if not self.panel:
            return [JudgeMember(None, self.model_settings(), True)]
        primary = self.primary or self.panel[0].name
        out = []
        for m in sorted(self.panel, key=lambda m: m.name != primary):  # stable: the others in their order
            same = m.provider is None or m.provider == self.provider
            provider = m.provider if m.provider is not None else self.provider
            model = m.model if m.model is not None else (self.model if same else None)
            base_url = m.base_url if m.base_url is not None else (self.base_url if same else None)
            temperature = m.temperature if m.temperature is not None else self.temperature
            tokens = m.max_output_tokens if m.max_output_tokens is not None else self.max_output_tokens
            out.append(JudgeMember(m.name, self._settings(provider, model, temperature, tokens, base_url,
                                                          f"[[judging.panel]] {m.name!r}"), m.name == primary))
        return out

    def _settings(self, provider, model, temperature, max_output_tokens, base_url, who: str) -> dict:
        d = settings.reviewer_defaults()
        provider, model = _provider_and_model(provider, model, d, who)
        return {"provider": provider, "model": model, "temperature": temperature,
                "max_output_tokens": max_output_tokens or d.max_output_tokens,
                "base_url": base_url if base_url is not None else d.base_url,
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
    experiments_json: str = "{}"  # {experiment: its table}, checked by studies.experiments

    def experiment(self, name: str) -> dict | None:
        """The study's table for one experiment (EXPERIMENTS), None when the study does not run it."""
        return json.loads(self.experiments_json).get(name)

    @property
    def experiments(self) -> list[str]:
        return [e for e in EXPERIMENTS if self.experiment(e) is not None]

    def revision(self):
        """The study's revision crossover (reviewing.revision.spec.RevisionSpec), None without [revision]."""
        from peerlake.reviewing.revision.spec import RevisionSpec

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
