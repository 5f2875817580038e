"""Turn manuscripts into reviewer requests: one request per (paper, sample) under one configuration.

On a model that reads images the request's user message carries the manuscript's figures (seed 001,
appendix B.2: the Scorer is given the manuscript's images), chosen and sized within the provider's
limits by llm_calls.images.fit_figures; a text-only model gets none, and its study resolution says so
(`ReviewerConfig.figures`).
"""

from dataclasses import dataclass

from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse import EventLog, PaperIngested, settings


@dataclass(frozen=True)
class ReviewerConfig:
    provider: str
    model: str
    template: str
    samples: int
    temperature: float
    max_output_tokens: int
    base_url: str | None = None
    papers: tuple[str, ...] = ()  # the study's papers this reviewer reads (empty: all); not its identity
    # Read the manuscript as its rendered pages show it: the text ingest flagged hidden (white, tiny,
    # invisible, off the page) is left out, the defence against hidden prompt injection. False only
    # for the attack arm of the hidden-text experiment; it is then part of the identity.
    strip_hidden: bool = True

    def covers(self, paper_id: str) -> bool:
        """Whether this reviewer reads the paper; an experiment's variant of a listed paper too."""
        from peerlake.ingest.package import base_of

        return not self.papers or paper_id in self.papers or base_of(paper_id) in self.papers

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
        from peerlake.prompts import load_template

        t = load_template(self.template)
        probe = LlmRequest(provider=self.provider, model=self.model, messages=(),
                           params=self.params(0), response_schema=t.output_schema,
                           prompt_template=t.name, prompt_hash=t.hash, reads_hidden=not self.strip_hidden)
        return probe.reviewer_config

    def figures(self) -> str:
        """What this reviewer is shown of the figures, for the study resolution."""
        from peerlake.llm_calls.image_limits import limits_for
        from peerlake.llm_calls.images import SCORER_MAX_IMAGES, SCORER_MAX_LONG_EDGE_PX, accepts_images

        limits = limits_for(self.provider)
        if limits is None or not accepts_images(self.provider, self.model):
            return f"the Scorer reads text only on {self.provider}/{self.model}: no figures"
        return (f"the Scorer reads the figures on {self.provider}/{self.model}: at most "
                f"{min(SCORER_MAX_IMAGES, limits.max_images)} a request, long edge <= "
                f"{min(SCORER_MAX_LONG_EDGE_PX, limits.max_long_edge_px)} px, within {limits.source}")

    def reading(self, package):
        """The manuscript package as this reviewer reads it (the hidden records stay in the stored
        package as evidence either way)."""
        return package.without_hidden() if self.strip_hidden else package


def review_requests(log: EventLog, paper: PaperIngested, cfg: ReviewerConfig) -> list[LlmRequest]:
    from peerlake.ingest.manuscripts import load_package

    return package_review_requests(paper.paper_id, paper.title, load_package(log.blobs, paper.package_sha256), cfg)


def package_review_requests(paper_id: str, title: str | None, package, cfg: ReviewerConfig) -> list[LlmRequest]:
    """The review requests for a manuscript package, ingested or not (a dry run packages a PDF it
    has not ingested yet in memory: the same extraction gives the same requests, keys included)."""
    from peerlake.prompts import load_template

    template = load_template(cfg.template)
    reading = cfg.reading(package)
    messages = with_figures(template.render(title=title, paper_text=reading.review_text(
        settings.review_max_chars(cfg.provider))), reading, cfg, template.output_schema)
    return [
        LlmRequest(provider=cfg.provider, model=cfg.model, messages=tuple(messages),
                   params=cfg.params(k), response_schema=template.output_schema,
                   sample_index=k, prompt_template=template.name, prompt_hash=template.hash,
                   purpose="review", subject_id=paper_id, base_url=cfg.base_url,
                   prompt_source=template.source, reads_hidden=not cfg.strip_hidden)
        for k in range(cfg.samples)
    ]


def package_figures(package) -> list[dict]:
    """The package's images ({sha256, ext, width, height, pages}) in reading order, each once (a logo
    repeated on every page is one image)."""
    by_sha = {img["sha256"]: img for img in package.images}
    order = dict.fromkeys(r.image_sha256 for r in package.records if r.kind == "image" and r.image_sha256 in by_sha)
    return [by_sha[sha] for sha in order]


def with_figures(messages: list[dict], package, cfg: ReviewerConfig, schema: dict | None) -> list[dict]:
    """The messages with the figures on the last user message, when the model reads images."""
    from peerlake.llm_calls.images import IMAGES_KEY, fit_figures, request_text_bytes

    figures = package_figures(package)
    if not figures:
        return messages
    fit = fit_figures(cfg.provider, cfg.model, figures, request_text_bytes(messages, schema))
    if not fit.images:
        return messages
    messages = list(messages)
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[last] = {**messages[last], IMAGES_KEY: fit.images}
    return messages
