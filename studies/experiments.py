"""The robustness experiments a study may run and the modules behind each: a builder that
makes new manuscripts (contradiction benchmark, hidden-text injection, the stress suite's edits) and a
judge that reads the reviews (detection, injection mention, withdrawal match, score prediction, focus,
stress mention).

A study's experiment table (`[contradictions]`, `[hidden_text]` …) is checked here against the keys
its modules own, so a typo is refused with the known keys before any call is made."""

import hashlib
import importlib
from dataclasses import dataclass
from types import ModuleType

from peerlake.ingest.package import base_of
from peerlake.judging import registry
from peerlake.judging.base import JudgeConfig, judge_config_from
from peerlake.judging.reviews import JudgedReview, external_reviews, human_reviews, peerlake_reviews, system_reviews
from peerlake.studies.parse import did_you_mean
from peerlake.studies.resolve import Resolution
from peerlake.studies.spec import EXPERIMENTS, Study, StudyError
from peerlake.warehouse import EventLog

# experiment -> the module that builds its manuscripts / the module of its judge (judging.registry)
BUILDERS = {e: registry.builder_module(e) for e in registry.variant_experiments()}
JUDGES = {e: m.__name__ for e, m in registry.experiments().items()}
assert set(JUDGES) == set(EXPERIMENTS)
# Keys every experiment table accepts: `papers` narrows the experiment (its builder, its judge's
# reviews) to those papers of the study and their variants.
COMMON_KEYS = {"papers"}


def builder(experiment: str) -> ModuleType | None:
    name = BUILDERS.get(experiment)
    return importlib.import_module(name) if name else None


def judge_module(experiment: str) -> ModuleType:
    return importlib.import_module(JUDGES[experiment])


@dataclass(frozen=True)
class Experiment:
    """One experiment of a study, its table checked: the builder's and the judge's specs."""

    name: str
    table: dict
    builder_spec: object | None
    judge_spec: object

    def covers(self, paper_id: str) -> bool:
        """Whether the experiment reads this paper (a variant by its base paper)."""
        papers = self.table.get("papers")
        return papers is None or base_of(paper_id) in papers

    @property
    def judge(self) -> ModuleType:
        return judge_module(self.name)

    def judge_config(self, study: Study) -> JudgeConfig:
        sub = self.table.get("judge", {})
        return judge_config_from(sub, study.judging.model_settings(), repeats=self.judge.DEFAULT_REPEATS)

    def judge_config_id(self, cfg: JudgeConfig) -> str:
        """16 hex: the judge's templates, model and parameters, and whatever else of its spec changes
        its answers (a module's `identity_extra(spec)`, e.g. the focus taxonomy's hash)."""
        base = cfg.identity(self.judge.JUDGE, self.judge.TEMPLATES)
        extra = getattr(self.judge, "identity_extra", None)
        if extra is None:
            return base
        return hashlib.sha256(f"{base}|{extra(self.judge_spec)}".encode()).hexdigest()[:16]

    def builder_config(self, study: Study) -> JudgeConfig:
        """The model of a builder that calls one ([contradictions.builder], [stress.builder]; the study's
        [judging] model for the keys it leaves unset)."""
        return judge_config_from(self.table.get("builder", {}), study.judging.model_settings(), repeats=1)


def experiments(study: Study) -> list[Experiment]:
    """The study's experiments, each table checked (StudyError naming the key and the known ones)."""
    out = []
    for name in study.experiments:
        table = study.experiment(name)
        mods = [m for m in (builder(name), judge_module(name)) if m is not None]
        known = set().union(COMMON_KEYS, *(m.KEYS for m in mods))
        unknown = sorted(set(table) - known)
        if unknown:
            raise StudyError(f"study {study.name!r}: [{name}] has unknown key(s) {', '.join(unknown)}; "
                             f"{did_you_mean(unknown, known)}known: {', '.join(sorted(known))}")
        for sub in ("judge", "builder"):
            if sub in table and not isinstance(table[sub], dict):
                raise StudyError(f"study {study.name!r}: [{name}.{sub}] must be a table (provider, model, "
                                 "temperature, max_output_tokens, base_url, repeats)")
        try:
            b = builder(name)
            bspec = b.Spec.from_table(table) if b is not None else None
            jspec = judge_module(name).Spec.from_table(table)
        except (ValueError, TypeError) as exc:
            raise StudyError(f"study {study.name!r}: [{name}]: {exc}") from None
        papers = table.get("papers")
        if papers is not None and not (isinstance(papers, list) and all(isinstance(p, str) for p in papers)):
            raise StudyError(f"study {study.name!r}: [{name}] papers must be a list of paper ids")
        out.append(Experiment(name=name, table=table, builder_spec=bspec, judge_spec=jspec))
    return out


def study_reviews(log: EventLog, study: Study, resolution: Resolution) -> tuple[list[str], list[JudgedReview]]:
    """Every review of the study's papers (variants included) that an experiment judge may read: the
    human reviews, each template reviewer's and system's samples, the study's imported systems."""
    paper_ids = resolution.paper_ids
    reviews = list(human_reviews(log, paper_ids))
    templates = {c.code_version(): c.samples for c in study.reviewer_configs()}
    if templates:
        reviews += peerlake_reviews(log, paper_ids, templates, samples=templates)
    systems = {c.identity(): c.samples for c in study.system_configs()}
    if systems:
        reviews += system_reviews(log, paper_ids, systems)
    if study.external_systems:
        reviews += external_reviews(log, paper_ids, study.external_systems)
    return paper_ids, reviews
