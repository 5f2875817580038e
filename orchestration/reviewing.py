"""Turn manuscripts into reviewer requests: one request per (paper, sample) under one configuration."""

from dataclasses import dataclass

from llm_calls.types import LlmRequest
from peerlake import settings
from warehouse import EventLog, PaperIngested


@dataclass(frozen=True)
class ReviewerConfig:
    provider: str
    model: str
    template: str
    samples: int
    temperature: float
    max_output_tokens: int
    base_url: str | None = None

    @classmethod
    def from_resource(cls, r) -> "ReviewerConfig":
        return cls(provider=r.provider, model=r.model, template=r.template, samples=r.samples,
                   temperature=r.temperature, max_output_tokens=r.max_output_tokens, base_url=r.base_url)

    @classmethod
    def default(cls) -> "ReviewerConfig":
        d = settings.reviewer_defaults()
        return cls(provider=d.provider, model=d.model, template="reviewer_scoring", samples=d.samples,
                   temperature=d.temperature, max_output_tokens=d.max_output_tokens, base_url=d.base_url)

    def params(self, sample_index: int) -> dict:
        # A fixed per-sample seed makes sample k the same request every run, so it replays.
        return {"temperature": self.temperature, "max_tokens": self.max_output_tokens,
                "seed": 1000 + sample_index}

    def code_version(self) -> str:
        """Changes exactly when the reviews' content would: template text, model, parameters, schema."""
        from prompts import load_template

        t = load_template(self.template)
        probe = LlmRequest(provider=self.provider, model=self.model, messages=(),
                           params=self.params(0), response_schema=t.output_schema,
                           prompt_template=t.name, prompt_hash=t.hash)
        return probe.reviewer_config


def latest_manuscripts(log: EventLog) -> list[PaperIngested]:
    """The newest version of every ingested paper, in paper-id order."""
    from ingest.manuscripts import latest_versions

    latest = latest_versions(log)
    return [latest[k] for k in sorted(latest)]


def review_requests(log: EventLog, paper: PaperIngested, cfg: ReviewerConfig) -> list[LlmRequest]:
    from ingest.manuscripts import load_package
    from prompts import load_template

    template = load_template(cfg.template)
    package = load_package(log.blobs, paper.package_sha256)
    messages = template.render(title=paper.title,
                               paper_text=package.review_text(settings.review_max_chars(cfg.provider)))
    return [
        LlmRequest(provider=cfg.provider, model=cfg.model, messages=tuple(messages),
                   params=cfg.params(k), response_schema=template.output_schema,
                   sample_index=k, prompt_template=template.name, prompt_hash=template.hash,
                   purpose="review", subject_id=paper.paper_id, base_url=cfg.base_url)
        for k in range(cfg.samples)
    ]


# ---- forced-decimal reviews and score probes (reliability sections 5 and 6) ------------------
DECIMAL_TEMPLATE = "reviewer_scoring_decimal"
PROBE_TEMPLATE = "score_probe"
PROBE_TOP_LOGPROBS = 20
PROBE_MAX_TOKENS = 16  # `{"overall_score": 10}` is about 8 tokens


def decimal_config(cfg: ReviewerConfig) -> ReviewerConfig:
    """The same reviewer (model, parameters) under the forced-decimal template."""
    from dataclasses import replace

    return replace(cfg, template=DECIMAL_TEMPLATE, samples=settings.decimal_review_samples())


def probe_params(sample_index: int) -> dict:
    return {"temperature": 0.0, "max_tokens": PROBE_MAX_TOKENS, "seed": 2000 + sample_index}


def probe_code_version(cfg: ReviewerConfig) -> str:
    """Changes exactly when a probe's answer would: probe template text, model, parameters, schema."""
    from prompts import load_template

    t = load_template(PROBE_TEMPLATE)
    return LlmRequest(provider=cfg.provider, model=cfg.model, messages=(), params=probe_params(0),
                      response_schema=t.output_schema, top_logprobs=PROBE_TOP_LOGPROBS,
                      prompt_template=t.name, prompt_hash=t.hash).reviewer_config


def probe_requests(log: EventLog, paper: PaperIngested, cfg: ReviewerConfig) -> list[LlmRequest]:
    """Score-only calls recording the score token's top-20 logprobs; temperature 0 since only the
    logprobs matter (they are the model's distribution whatever the sampling temperature)."""
    from ingest.manuscripts import load_package
    from prompts import load_template

    template = load_template(PROBE_TEMPLATE)
    package = load_package(log.blobs, paper.package_sha256)
    messages = template.render(title=paper.title,
                               paper_text=package.review_text(settings.review_max_chars(cfg.provider)))
    return [
        LlmRequest(provider=cfg.provider, model=cfg.model, messages=tuple(messages),
                   params=probe_params(k),
                   response_schema=template.output_schema, top_logprobs=PROBE_TOP_LOGPROBS,
                   sample_index=k, prompt_template=template.name, prompt_hash=template.hash,
                   purpose="score_probe", subject_id=paper.paper_id, base_url=cfg.base_url)
        for k in range(settings.score_probe_samples())
    ]


def probe_continuation(req: LlmRequest) -> LlmRequest:
    """The same probe with the answer forced to 10, so the token after "1" gives P("0" | "1")."""
    from dataclasses import replace

    schema = {**req.response_schema,
              "properties": {"overall_score": {"type": "integer", "enum": [10]}}}
    return replace(req, response_schema=schema, purpose="score_probe_continuation")
