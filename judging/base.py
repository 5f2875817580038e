"""What every judge shares: its configuration and identity, its requests, reading its answers, and
recording what it extracted as `judgment_recorded` events (once: a replayed run writes nothing)."""

import dataclasses
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from peerlake.judging.caps import check_caps, resolve_caps
from peerlake.llm_calls.types import LlmRequest, LlmResult, canonical_json
from peerlake.warehouse import EventLog
from peerlake.warehouse.events import JudgmentRecorded

SEED_BASE = 3000  # judge repeat r uses seed 3000 + r (reviews use 1000 + k, probes 2000 + k)


@dataclass(frozen=True)
class ReviewMetric:
    """A review-level number a quality judge yields: a column of its per-review model
    (int_quality_<judge>), listed by the long-form quality marts, the report and the judge card."""

    name: str
    label: str  # how the report names it ("Depth: DoA")
    headline: bool = False  # a column of quality_reviews and a line of the report's PRISM profile
    null_reason: str | None = None  # why it is null on a scored review (its denominator is empty) ...
    null_reason_column: str | None = None  # ... or the per-review column that says why
    # For a judge with no dbt model of its own (a plug-in; its module sets UNITS): the metric of one judgment
    # as a SQL aggregate over its units, one row per unit, each a struct `unit` of UNITS' fields (null for
    # a judgment without units): `count(unit)`, `avg(cast(unit.answered as double))`. dbt computes it.
    sql: str | None = None

    def declaration(self) -> dict:
        """As dbt reads it (the `quality_judges` var of dbt_project.yml): only what is set."""
        out = {"name": self.name}
        if self.headline:
            out["headline"] = True
        for key in ("null_reason", "null_reason_column", "sql"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class JudgeConfig:
    """The model a judge runs on. Temperature 0 as PRISM; `repeats` > 1 measures the judge's own
    noise and needs a temperature above 0 to differ (a seed alone does not change a greedy answer)."""

    provider: str
    model: str
    temperature: float = 0.0
    max_output_tokens: int = 700
    base_url: str | None = None
    repeats: int = 1
    # The study's [judging.caps] (judging/caps.py): ((name, cap or None), ...); a cap it leaves out has
    # the provider's default (the embedded model's values on `local`, none on a hosted model).
    caps: tuple[tuple[str, int | None], ...] = ()
    # The depth judge's aspects and grounding scale (judging/depth_taxonomy.py): a shipped name or a path.
    # Default: the PRISM reference code's, what made PRISM's published tables.
    depth_taxonomy: str = "prism-reference"

    def cap(self, name: str) -> int | None:
        """The cap in force for `name` (judging.caps.CAP_NAMES); None = keep everything."""
        return self.resolved_caps()[name]

    def resolved_caps(self) -> dict[str, int | None]:
        return resolve_caps(self.provider, dict(self.caps))

    def params(self, repeat: int, max_tokens: int | None = None) -> dict:
        return {"temperature": self.temperature, "max_tokens": min(max_tokens or self.max_output_tokens,
                                                                    self.max_output_tokens),
                "seed": SEED_BASE + repeat}

    def identity(self, judge: str, templates: Sequence[str]) -> str:
        """16 hex: changes exactly when the judge's answers could (template texts, schemas, model,
        endpoint, parameters); the repeat count and the study are not part of it."""
        from peerlake.prompts import load_template

        parts = []
        for name in templates:
            t = load_template(name)
            parts.append({"template": name, "hash": t.hash, "schema": t.output_schema})
        probe = LlmRequest(provider=self.provider, model=self.model, messages=(), base_url=self.base_url)
        ident = {"judge": judge, "templates": parts, "provider": self.provider, "model": self.model,
                 "endpoint": probe.endpoint, "temperature": self.temperature,
                 "max_output_tokens": self.max_output_tokens, "caps": self.resolved_caps()}
        if judge == "depth":  # its prompts render the taxonomy's labels and definitions, not in its templates
            from peerlake.judging.depth_taxonomy import load

            tax = load(self.depth_taxonomy)
            ident["depth_taxonomy"] = {"name": tax.name, "sha256": tax.sha256}
        return hashlib.sha256(canonical_json(ident).encode()).hexdigest()[:16]


def budgeted(cfg: JudgeConfig, need: int) -> tuple[JudgeConfig, int]:
    """The configuration and max_tokens of a call whose answer needs `need` tokens. On the embedded model
    max_output_tokens stays the ceiling (its 4k-token context bounds prompt + answer); on a hosted model
    it is a floor, never a cut: a hosted model bills the tokens it writes, not the budget, and an answer
    cut at the budget is a judgment lost."""
    if cfg.provider == "local":
        return cfg, min(need, cfg.max_output_tokens)
    tokens = max(need, cfg.max_output_tokens)
    return (cfg if tokens == cfg.max_output_tokens else dataclasses.replace(cfg, max_output_tokens=tokens)), tokens


def judge_request(cfg: JudgeConfig, judge: str, step: str, template: str, *, subject_id: str,
                  repeat: int = 0, max_tokens: int | None = None, **ctx) -> LlmRequest:
    """One judge call: purpose `judge_<judge>_<step>`, so every llm_call event says which judge and
    step made it; the repeat is the sample index."""
    from peerlake.prompts import load_template

    t = load_template(template)
    return LlmRequest(provider=cfg.provider, model=cfg.model, messages=tuple(t.render(**ctx)),
                      params=cfg.params(repeat, max_tokens), response_schema=t.output_schema,
                      sample_index=repeat, prompt_template=t.name, prompt_hash=t.hash,
                      purpose=f"judge_{judge}_{step}", subject_id=subject_id, base_url=cfg.base_url,
                      prompt_source=t.source)


def answer(result: LlmResult | BaseException | None) -> dict | None:
    """The JSON object a judge answered, or None (failed call, no JSON; see LlmResult.json_object)."""
    if result is None or isinstance(result, BaseException):
        return None
    return result.json_object()


def answer_list(j: "Judgment", result: LlmResult | BaseException, key: str) -> list | None:
    """The list under `key` of a judge's JSON answer, with what it says recorded on the judgment: a failed
    call sets failed_call (the judgment is not recorded, so the next run retries it), an answer without the
    list sets null_reason `unparseable:<key>`; else the result joins the judgment's results."""
    if isinstance(result, BaseException):  # already an error event
        j.failed_call = f"{type(result).__name__}: {result}"
        return None
    j.results.append(result)
    doc = answer(result)
    items = doc.get(key) if doc is not None else None
    if not isinstance(items, list):
        j.null_reason = f"unparseable:{key}"
        return None
    return items


_WS = re.compile(r"\s+")
# Typography a judge changes when it quotes (PRISM's judges drop markdown and straighten quotes): a
# strict check then loses every quote of a review written in markdown. Markup is dropped, the rest
# mapped to one form, on both sides, so an offset still points into the original text.
_MARKUP = frozenset("*_`")
_TYPOGRAPHY = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
                             "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"', "«": '"', "»": '"',
                             "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "―": "-", "−": "-"})
_SURROUNDING = "\"“”'"


@dataclass(frozen=True)
class Verbatim:
    """Where a copied span sits in a text: [start, end) in the original, and whether it matched
    strictly (up to whitespace runs and surrounding quotes only) or only after typography was
    normalized (markdown emphasis, curly quotes, dashes)."""

    start: int
    end: int
    strict: bool

    @property
    def how(self) -> str:
        return "strict" if self.strict else "normalized"


def _squash(text: str, typography: bool = False) -> tuple[str, list[int]]:
    """Text with every whitespace run as one space, and each kept char's offset in the original;
    with `typography`, markup characters are dropped and quotes and dashes mapped to ASCII."""
    out, where, prev_space = [], [], False
    for i, ch in enumerate(text):
        if ch.isspace():
            if prev_space:
                continue
            out.append(" ")
            prev_space = True
        elif typography and ch in _MARKUP:
            continue
        else:
            out.append(ch.translate(_TYPOGRAPHY) if typography else ch)
            prev_space = False
        where.append(i)
    return "".join(out), where


def _clean_span(span: str, typography: bool) -> str:
    if typography:
        span, _ = _squash(span, typography=True)
        return span.strip().strip("\"'").strip()
    return _WS.sub(" ", span.strip().strip(_SURROUNDING).strip())


def _search(span: str, text: str, start: int, typography: bool) -> tuple[int, int] | None:
    want = _clean_span(span, typography)
    if not want:
        return None
    squashed, where = _squash(text, typography)
    s0 = next((k for k, i in enumerate(where) if i >= start), len(squashed))  # the start, in squashed offsets
    k = squashed.find(want, s0)
    return (where[k], where[k + len(want) - 1] + 1) if k >= 0 else None


def match_verbatim(span: str, text: str, start: int = 0) -> Verbatim | None:
    """Where `span` sits in `text` at or after `start`: strictly if it can (whitespace runs and
    surrounding quotes aside), else up to typography; None when the words are not the text's."""
    for typography in (False, True):
        if (hit := _search(span, text, start, typography)) is not None:
            return Verbatim(hit[0], hit[1], strict=not typography)
    return None


def find_verbatim(span: str, text: str, start: int = 0) -> int | None:
    """The offset of `span` in `text`, or None. Verbatim up to whitespace (a model re-wraps lines),
    surrounding quotes and typography (markdown emphasis, curly quotes, dashes: see match_verbatim);
    anything else is not the review's own words."""
    hit = match_verbatim(span, text, start)
    return hit.start if hit else None


def judgment_key(judge: str, step: str, judge_config: str, subject_key: str, repeat: int,
                 request_keys: Iterable[str], parser_version: str) -> str:
    ident = {"judge": judge, "step": step, "config": judge_config, "subject": subject_key, "repeat": repeat,
             "requests": sorted(set(request_keys)), "parser": parser_version}
    return hashlib.sha256(canonical_json(ident).encode()).hexdigest()


@dataclass
class Judgment:
    """What one judge step extracted from one subject, before it is recorded."""

    judge: str
    step: str
    subject_key: str
    paper_id: str | None
    repeat: int
    units: list[dict] = field(default_factory=list)
    null_reason: str | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    results: list = field(default_factory=list)  # LlmResults / retrieval results behind the units
    inputs: dict = field(default_factory=dict)  # what the judge read (fields, source, system, chars ...)
    # A call that failed (network, retries exhausted) is not an answer: the judgment is not recorded,
    # so the next run retries it; the mart shows the review as not judged meanwhile.
    failed_call: str | None = None

    def drop(self, why: str, n: int = 1) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + n


@dataclass
class JudgeContext:
    """What a judge module needs to run: the lake, the gateway, its configuration and identity."""

    log: EventLog
    gateway: object  # llm_calls.gateway.Gateway
    cfg: JudgeConfig
    judge_config: str
    repeat: int = 0
    study: str | None = None
    progress: bool | None = None
    retrieval: object | None = None  # retrieval.RetrievalClient (novelty only)
    options: dict = field(default_factory=dict)  # judge-specific settings (retrieval backend, verify_top ...)
    label: str | None = None  # the study's judge panel member (progress lines only; in no identity or request)

    def call_many(self, requests: Sequence[LlmRequest], description: str) -> list:
        """Results in order; a failed call's slot holds its exception (already an error event)."""
        reqs = [dataclasses.replace(r, study=self.study) for r in requests]
        if self.label is not None:
            description = f"{description} [{self.label}]"
        return self.gateway.call_many(reqs, progress=self.progress, description=description,
                                      return_exceptions=True)


def review_inputs(review) -> dict:
    """A judged review's description, stored with its judgment (inputs_json): `fields` are the fields the
    judge read (its view, JudgedReview.for_judge), `fields_not_read` the review's others."""
    text = review.text
    return {"source": review.source, "system": review.system, "fields": list(review.fields),
            "view": getattr(review, "view", None), "fields_not_read": list(getattr(review, "not_read", ())),
            "chars": len(text), "text_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "sample_index": review.sample_index}


class Recorder:
    """Appends each judgment once: a judgment whose key is already in the log is not written again."""

    def __init__(self, log: EventLog, judge_config: str, parser_version: str, study: str | None = None):
        self.log = log
        self.judge_config = judge_config
        self.parser_version = parser_version
        self.study = study
        self.known = {e.judgment_key for e in log.iter_events("judgment_recorded")}
        self.written = 0
        self.skipped = 0
        self.failed = 0

    def record(self, j: Judgment) -> JudgmentRecorded | None:
        if j.failed_call is not None:
            self.failed += 1
            return None
        keys = [r.request_key for r in j.results if r is not None and not isinstance(r, BaseException)]
        ids = [r.event_id for r in j.results if r is not None and not isinstance(r, BaseException)]
        key = judgment_key(j.judge, j.step, self.judge_config, j.subject_key, j.repeat, keys,
                           self.parser_version)
        if key in self.known:
            self.skipped += 1
            return None
        ok = j.null_reason is None
        ev = JudgmentRecorded(judgment_key=key, judge=j.judge, step=j.step, judge_config=self.judge_config,
                              subject_key=j.subject_key, paper_id=j.paper_id, repeat=j.repeat,
                              status="ok" if ok else "null", null_reason=j.null_reason,
                              units_json=json.dumps(j.units if ok else [], ensure_ascii=False),
                              dropped_json=json.dumps(j.dropped, sort_keys=True),
                              llm_call_ids_json=json.dumps(sorted(set(ids))),
                              request_keys_json=json.dumps(sorted(set(keys))),
                              inputs_json=json.dumps(j.inputs, sort_keys=True, ensure_ascii=False),
                              study=self.study)
        self.log.append(ev)
        self.known.add(key)
        self.written += 1
        return ev


MODEL_KEYS = ("provider", "model", "temperature", "max_output_tokens", "base_url", "repeats", "caps",
              "depth_taxonomy")


def judge_config_from(table: dict, defaults: dict, *, repeats: int | None = None) -> JudgeConfig:
    """An experiment judge's model: the keys of MODEL_KEYS its study table sets, the study's
    [judging] model for the rest (`defaults` = JudgingSpec.model_settings()); `repeats` is the
    experiment's own default repeat count when the table sets none."""
    settings_ = {k: defaults[k] for k in MODEL_KEYS if k in defaults}
    if repeats is not None:
        settings_["repeats"] = repeats
    settings_.update({k: table[k] for k in MODEL_KEYS if k in table})
    if isinstance(settings_.get("caps"), dict):  # an experiment's own caps table
        settings_["caps"] = tuple(sorted({**dict(defaults.get("caps", ())), **check_caps(settings_["caps"])}.items()))
    return JudgeConfig(**settings_)
