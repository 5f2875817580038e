"""Forced-decimal reviews and logprob score probes (reliability sections 5 and 6)."""

from dataclasses import replace

from peerlake.llm_calls.types import LlmRequest
from peerlake.reviewing.scoring import ReviewerConfig
from peerlake.warehouse import EventLog, PaperIngested, settings

DECIMAL_TEMPLATE = "reviewer_scoring_decimal"
PROBE_TEMPLATE = "score_probe"
PROBE_TOP_LOGPROBS = 20
PROBE_MAX_TOKENS = 16  # `{"overall_score": 10}` is about 8 tokens


def decimal_config(cfg: ReviewerConfig) -> ReviewerConfig:
    """The same reviewer (model, parameters) under the forced-decimal template."""
    return replace(cfg, template=DECIMAL_TEMPLATE, samples=settings.decimal_review_samples())


def probe_params(sample_index: int) -> dict:
    return {"temperature": 0.0, "max_tokens": PROBE_MAX_TOKENS, "seed": 2000 + sample_index}


def probe_code_version(cfg: ReviewerConfig) -> str:
    """Changes exactly when a probe's answer would: probe template text, model, parameters, schema."""
    from peerlake.prompts import load_template

    t = load_template(PROBE_TEMPLATE)
    return LlmRequest(provider=cfg.provider, model=cfg.model, messages=(), params=probe_params(0),
                      response_schema=t.output_schema, top_logprobs=PROBE_TOP_LOGPROBS,
                      prompt_template=t.name, prompt_hash=t.hash, reads_hidden=not cfg.strip_hidden).reviewer_config


def probe_requests(log: EventLog, paper: PaperIngested, cfg: ReviewerConfig) -> list[LlmRequest]:
    """Score-only calls recording the score token's top-20 logprobs; temperature 0 since only the
    logprobs matter (they are the model's distribution whatever the sampling temperature)."""
    from peerlake.ingest.manuscripts import load_package
    from peerlake.prompts import load_template

    template = load_template(PROBE_TEMPLATE)
    package = cfg.reading(load_package(log.blobs, paper.package_sha256))
    messages = template.render(title=paper.title,
                               paper_text=package.review_text(settings.review_max_chars(cfg.provider)))
    return [
        LlmRequest(provider=cfg.provider, model=cfg.model, messages=tuple(messages),
                   params=probe_params(k),
                   response_schema=template.output_schema, top_logprobs=PROBE_TOP_LOGPROBS,
                   sample_index=k, prompt_template=template.name, prompt_hash=template.hash,
                   purpose="score_probe", subject_id=paper.paper_id, base_url=cfg.base_url,
                   prompt_source=template.source, reads_hidden=not cfg.strip_hidden)
        for k in range(settings.score_probe_samples())
    ]


def probe_continuation(req: LlmRequest) -> LlmRequest:
    """The same probe with the answer forced to 10, so the token after "1" gives P("0" | "1")."""
    schema = {**req.response_schema,
              "properties": {"overall_score": {"type": "integer", "enum": [10]}}}
    return replace(req, response_schema=schema, purpose="score_probe_continuation")
