"""Event types: frozen, typed, named in the past tense.

Each type maps one-to-one onto a Parquet schema (its own hive partition `event_type=<name>`), so
dbt reads typed columns rather than parsing JSON. A field change bumps `schema_version` and adds an
upcaster in UPCASTERS; stored events are never rewritten.
"""

import dataclasses
import functools
import json
import types
import typing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import pyarrow as pa
from ulid import ULID


def new_event_id() -> str:
    return str(ULID())


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, kw_only=True)
class Event:
    event_type: ClassVar[str] = "event"
    schema_version: ClassVar[int] = 1

    event_id: str = field(default_factory=new_event_id)
    occurred_at: datetime = field(default_factory=utcnow)

    # A type whose sealed log must hold at most one event per key (LlmCall: one success per
    # request_key). The seal routes a later event with an already-sealed key to `duplicate_type`,
    # so it stays auditable without counting twice. `unique_fields` are the columns the key needs.
    duplicate_type: ClassVar[str | None] = None
    unique_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def unique_key_of(cls, row: dict[str, Any]) -> str | None:
        """The key that must be unique for a row holding `unique_fields`; None: no constraint."""
        return None

    def unique_key(self) -> str | None:
        return self.unique_key_of({name: getattr(self, name) for name in self.unique_fields})

    def to_record(self) -> dict[str, Any]:
        """Plain JSON-able dict (the write-ahead line's payload)."""
        out: dict[str, Any] = {"schema_version": self.schema_version}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.isoformat() if isinstance(v, datetime) else v
        return out

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "Event":
        record = dict(record)
        version = int(record.pop("schema_version", cls.schema_version))
        for upcast in UPCASTERS.get((cls.event_type, version), []):
            record = upcast(record)
        if isinstance(record.get("occurred_at"), str):
            record["occurred_at"] = datetime.fromisoformat(record["occurred_at"])
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in record.items() if k in names})


@dataclass(frozen=True, kw_only=True)
class PaperIngested(Event):
    """A manuscript's bytes were read and turned into a manuscript package (a blob)."""

    event_type: ClassVar[str] = "paper_ingested"
    # v2 added the layout counts below (optional): a new schema segment then carries the columns
    # even in a lake whose v1 segments do not. v3 added n_hidden_records.
    schema_version: ClassVar[int] = 3

    paper_id: str
    title: str
    source_uri: str
    pdf_sha256: str
    package_sha256: str
    n_pages: int
    n_text_records: int
    n_chars: int
    venue: str | None = None
    is_synthetic: bool = False
    # Added with the real-PDF ingest (optional so older events still load): layout counts.
    n_images: int | None = None
    body_chars: int | None = None
    appendix_chars: int | None = None
    references_chars: int | None = None
    n_references: int | None = None
    n_sections: int | None = None
    year: int | None = None
    area: str | None = None
    # v3: text the rendered page does not show (white, tiny, invisible render mode, off the page;
    # ingest.hidden_text), counted; None for packages read before the check existed.
    n_hidden_records: int | None = None


@dataclass(frozen=True, kw_only=True)
class HumanReviewImported(Event):
    """A human review (OpenReview note shape) was imported; its full text is a blob."""

    event_type: ClassVar[str] = "human_review_imported"

    paper_id: str
    review_id: str
    source: str
    venue: str | None
    rating: float | None
    rating_scale: str | None
    confidence: float | None
    body_sha256: str


@dataclass(frozen=True, kw_only=True)
class LlmCall(Event):
    """One attempt at one model call, successful or not. A replay writes no llm_call: it is counted
    in a `calls_replayed` event instead."""

    event_type: ClassVar[str] = "llm_call"
    # v2 added `study` and `endpoint`, v3 `dagster_run_id`, `asset` and `batch_id`, v4 `system`, `step`
    # and `round`, v5 `param_changes_json` (all optional): each version's schema segment carries its columns.
    schema_version: ClassVar[int] = 5
    duplicate_type: ClassVar[str | None] = "llm_call_duplicated"
    unique_fields: ClassVar[tuple[str, ...]] = ("request_key", "status")

    request_key: str
    prompt_template: str | None
    prompt_hash: str | None
    reviewer_config: str
    purpose: str
    subject_id: str | None
    sample_index: int
    provider: str
    model: str
    params_json: str
    request_sha256: str
    response_sha256: str | None
    response_text: str | None
    finish_reason: str | None
    input_tokens: int | None
    cached_input_tokens: int | None
    cache_write_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None
    cost_usd: float | None
    cost_status: str
    price_table_version: str | None
    latency_ms: float
    attempt: int
    status: str
    error_type: str | None = None
    error_message: str | None = None
    logprobs_sha256: str | None = None
    # v2: the study whose run made (and paid for) this attempt; not part of request_key, so a
    # call shared by two studies is paid once, by the first.
    study: str | None = None
    # v2: the provider endpoint (normalized base URL; None = the provider's default), part of
    # request_key since v2.
    endpoint: str | None = None
    # v3: who made the call, for cost attribution (warehouse.attribution): the Dagster run and the
    # asset whose step made it; both None for a call made outside Dagster (the CLI, a notebook).
    dagster_run_id: str | None = None
    asset: str | None = None
    # v3: the provider batch (OpenAI Batch, Anthropic Message Batches) that answered this call, priced
    # at the batch rate; None for a call answered on its own.
    batch_id: str | None = None
    # v4: the reviewer system step that made the call (reviewing.systems): the system's name, the
    # step, and the round within it (a reflection round, a reviewer agent); `reviewer_config` is then
    # the system configuration's identity. Labels, not part of request_key: a step two systems share
    # is paid once, by the first, and keeps its first labels.
    system: str | None = None
    step: str | None = None
    round: int | None = None
    # v5: what the model's request rules (llm_calls/providers/model_rules.py) did to the asked
    # `params_json`: {"dropped": {name: asked value}, "changed": {name: sent value}}, e.g. o3's
    # temperature dropped and its max_completion_tokens raised by the reasoning headroom. None: sent
    # as asked (and every call before v5). Not part of request_key: the asked params are.
    param_changes_json: str | None = None

    @classmethod
    def unique_key_of(cls, row: dict[str, Any]) -> str | None:
        # One successful answer per request_key: errors may repeat, answers must not.
        return row["request_key"] if row["status"] == "ok" else None


@dataclass(frozen=True, kw_only=True)
class LlmCallDuplicated(LlmCall):
    """A successful llm_call for a request_key that already had one when it was sealed.

    Never written by a writer: the seal routes such an event here from the write-ahead file (a
    race, a lost WAL, a forged line). It was still paid for, so it is kept for the audit; replay
    and the answer marts read only `llm_call`, so each request keeps exactly one answer."""

    event_type: ClassVar[str] = "llm_call_duplicated"
    duplicate_type: ClassVar[str | None] = None
    unique_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def unique_key_of(cls, row: dict[str, Any]) -> str | None:
        return None


@dataclass(frozen=True, kw_only=True)
class PromptTemplateStored(Event):
    """A prompt template's source text was stored as a blob, once per prompt_hash per lake, before
    the first llm_call naming that hash; the blob's SHA-256 equals prompt_hash."""

    event_type: ClassVar[str] = "prompt_template_stored"

    prompt_template: str | None
    prompt_hash: str
    source_sha256: str


@dataclass(frozen=True, kw_only=True)
class IngestRejected(Event):
    """An input was set aside (quarantined) with the reason; the rest of its batch went on."""

    event_type: ClassVar[str] = "ingest_rejected"

    source: str  # pdf | openreview | asap | reviews | related_work
    path: str
    reason: str
    severity: str = "error"  # error | warning (e.g. a scan with no text layer)
    item: str | None = None  # note id, JSONL line number … within the file
    paper_id: str | None = None
    content_sha256: str | None = None


@dataclass(frozen=True, kw_only=True)
class PaperStatusRecorded(Event):
    """A venue's decision on a paper (or a withdrawal / desk rejection)."""

    event_type: ClassVar[str] = "paper_status_recorded"

    paper_id: str
    venue: str | None
    status: str  # accepted | rejected | withdrawn | desk_rejected
    decision: str | None  # the venue's own words, e.g. "Accept (Oral)"
    is_accepted: bool | None  # None for a status with no acceptance label
    source: str
    source_note_id: str | None = None
    title: str | None = None
    year: int | None = None
    area: str | None = None


@dataclass(frozen=True, kw_only=True)
class ExternalReviewImported(Event):
    """A review made by another system (or a panel) was imported; its text is a blob."""

    event_type: ClassVar[str] = "external_review_imported"

    paper_id: str
    review_id: str
    system: str
    sample_index: int
    score: float | None
    confidence: float | None
    body_sha256: str
    source_path: str
    line_no: int


@dataclass(frozen=True, kw_only=True)
class SampleDrawn(Event):
    """A stratified sample of papers was chosen, before any of them was reviewed."""

    event_type: ClassVar[str] = "sample_drawn"

    sample_id: str
    drawn_by: str
    seed: int
    strata: str  # comma-separated stratum keys
    size: int
    venue: str | None
    parent_sample_id: str | None
    quotas_json: str  # {stratum label: quota}
    paper_ids_json: str  # chosen paper ids in draw order


@dataclass(frozen=True, kw_only=True)
class StudyResolved(Event):
    """A study's definition (a TOML file, stored as a blob) was resolved into papers and reviewers.

    Written each time a study runs; the newest one per study is what the marts scope by. The study
    hash is the definition text's SHA-256, so an edited study is a new version, like a prompt."""

    event_type: ClassVar[str] = "study_resolved"

    study_id: str
    study_sha256: str  # the TOML text's SHA-256; the text itself is the blob of that hash
    paper_ids_json: str  # the papers the study covers, sorted
    reviewers_json: str  # [{reviewer_config, template, provider, model, samples}]
    external_systems_json: str  # imported systems whose reviews the study includes
    paper_source: str  # how the papers were chosen, e.g. "corpus:demo", "sample:<id>"
    asset: str  # the Dagster asset that resolved it (ai_reviews, ai_reviews_decimal, score_probes, judgments_*)
    # v2: the judges a judgments asset ran for the study: [{judge, judge_config, repeats, scope}]
    judges_json: str = "[]"
    schema_version: ClassVar[int] = 2


@dataclass(frozen=True, kw_only=True)
class JudgmentRecorded(Event):
    """What a judge extracted from one subject (a review, a paper, or a pool of reviews of one paper):
    validated units, or null with a reason. Derived only from the calls it names, so every number a
    mart computes from the units traces to those calls and their prompt text.

    Units are a JSON list of flat objects whose keys depend on (judge, step); see judging/README.md.
    `judgment_key` is the SHA-256 of what determines the units (judge, step, config, subject, repeat,
    the request keys behind it and the parser version): a replayed run finds it and writes nothing."""

    event_type: ClassVar[str] = "judgment_recorded"

    judgment_key: str
    judge: str  # depth | novelty | flaws | constructiveness | validation
    step: str  # units | claims | paper | pool | order | comments ...
    judge_config: str  # 16 hex: the judge's templates + model + parameters + schemas
    subject_key: str  # a review key (judging.reviews), "paper:<id>", or "pool:<paper>|<system>"
    paper_id: str | None
    repeat: int
    status: str  # ok | null
    null_reason: str | None
    units_json: str
    dropped_json: str  # {"not_verbatim": n, ...}: what validation removed, counted
    llm_call_ids_json: str  # the llm_call (and retrieval_call) event ids the units came from
    request_keys_json: str
    inputs_json: str = "{}"  # what the judge read: {"source", "system", "fields", "chars", "text_sha256"}
    study: str | None = None  # the study whose run recorded it (a label; judgments are shared)


@dataclass(frozen=True, kw_only=True)
class RetrievalCall(Event):
    """One search of a literature backend (offline index, Semantic Scholar), successful or not.
    Replayed like an llm_call: a request_key with an ok event is answered from the log."""

    event_type: ClassVar[str] = "retrieval_call"
    schema_version: ClassVar[int] = 2

    request_key: str
    backend: str  # offline | semantic_scholar
    query: str
    params_json: str  # limit, year filter, index version ...
    results_json: str | None  # [{candidate_id, title, abstract, year, venue, score, rank}]
    n_results: int | None
    latency_ms: float
    attempt: int
    status: str  # ok | error
    error_type: str | None = None
    error_message: str | None = None
    purpose: str | None = None  # e.g. judge_novelty_retrieval
    subject_id: str | None = None
    study: str | None = None
    # v2: the Dagster run and asset that made the search (None outside Dagster), as on LlmCall
    dagster_run_id: str | None = None
    asset: str | None = None


@dataclass(frozen=True, kw_only=True)
class RelatedWorkImported(Event):
    """A related-work record (title, abstract, year, venue) imported from a user's JSONL, for the
    offline literature index."""

    event_type: ClassVar[str] = "related_work_imported"

    work_id: str
    title: str
    abstract: str | None
    year: int | None
    venue: str | None
    source_path: str
    line_no: int


@dataclass(frozen=True, kw_only=True)
class SpanAnnotationImported(Event):
    """Human span annotations of one review (e.g. SubstanReview's claim / evidence spans), imported to
    validate what a judge extracts from the same review."""

    event_type: ClassVar[str] = "span_annotation_imported"

    review_key: str  # the judged review's key (judging.reviews), e.g. external:substanreview:<id>
    dataset: str  # e.g. substanreview
    split: str | None  # e.g. train | test
    annotator: str | None  # None: the dataset's final (adjudicated) labels
    # [{"start", "end", "label", "role": "claim"|"premise"|null, "pair", "judged_start", "judged_end"}]:
    # start/end index the dataset's raw text; judged_* the text the judge reads (ingest/substanreview.py)
    spans_json: str
    text_sha256: str  # the annotated text's SHA-256: the offsets are into exactly that text
    source_path: str
    line_no: int


@dataclass(frozen=True, kw_only=True)
class CallsReplayed(Event):
    """Requests one step answered from the log instead of paying again: counted, costing nothing.

    One event per batch of replays (a `call_many`, or one lone call), so re-running a study of 100k
    calls adds a handful of events, not 100k. `answer_event_ids_json[i]` is the ok event that
    answered `request_keys_json[i]`."""

    event_type: ClassVar[str] = "calls_replayed"

    door: str  # llm | retrieval
    n: int
    request_keys_json: str
    answer_event_ids_json: str
    study: str | None = None
    dagster_run_id: str | None = None
    asset: str | None = None


@dataclass(frozen=True, kw_only=True)
class PriceTableRecorded(Event):
    """A price table version, stored once per version per lake before the first call priced with it:
    its TOML source as a blob, and its rows, so dbt prices every call from the log alone."""

    event_type: ClassVar[str] = "price_table_recorded"

    version: str
    source_sha256: str
    # [{provider, model, effective_from "YYYY-MM-DD", input, cached_input, cache_write, output,
    #   batch_input, batch_output, checked "YYYY-MM-DD"}]: USD per million tokens; null = not listed
    prices_json: str


@dataclass(frozen=True, kw_only=True)
class RunEstimated(Event):
    """What a run was expected to cost before it started (`peerlake run --dry-run`, and every real
    run at its start), per call, so a mart can compare the estimate with what the run spent."""

    event_type: ClassVar[str] = "run_estimated"

    estimate_id: str
    study: str | None
    dagster_run_id: str | None  # None: a dry run
    method: str  # how tokens were estimated, e.g. "history:v1"
    # [{request_key, purpose, prompt_template, provider, model, new, est_input_tokens, est_output_tokens,
    #   est_cost_usd, est_cost_lo_usd, est_cost_hi_usd, basis}]; request_key null for a call whose request
    # depends on an earlier answer (a judge's later step)
    rows_json: str
    new_calls: int
    replayed_calls: int
    est_cost_usd: float | None
    est_cost_lo_usd: float | None
    est_cost_hi_usd: float | None


@dataclass(frozen=True, kw_only=True)
class CostCapReached(Event):
    """The gateway refused a new paid call: it would have taken the run past its cost cap."""

    event_type: ClassVar[str] = "cost_cap_reached"

    request_key: str
    purpose: str
    provider: str
    model: str
    cap_usd: float
    spent_usd: float  # by this run before the refused call (completed calls + calls in flight)
    estimated_cost_usd: float | None  # what the refused call was expected to cost (upper estimate)
    study: str | None = None
    dagster_run_id: str | None = None
    asset: str | None = None


@dataclass(frozen=True, kw_only=True)
class LlmBatchSubmitted(Event):
    """Requests sent to a provider's batch API (half price, answered within a day). Each answer comes
    back as an ordinary llm_call event carrying `batch_id`; a batch with no `llm_batch_finished` is
    polled again by the next run, even after a crash."""

    event_type: ClassVar[str] = "llm_batch_submitted"

    batch_id: str  # the provider's id
    provider: str
    endpoint: str | None
    model: str
    request_keys_json: str  # in the order of the uploaded lines (custom_id = request_key)
    input_sha256: str  # blob: the uploaded JSONL, redacted
    n: int
    study: str | None = None
    dagster_run_id: str | None = None
    asset: str | None = None


@dataclass(frozen=True, kw_only=True)
class LlmBatchFinished(Event):
    """A provider batch reached an end state; its answers were recorded as llm_call events."""

    event_type: ClassVar[str] = "llm_batch_finished"

    batch_id: str
    provider: str
    status: str  # completed | failed | expired | cancelled
    n_ok: int
    n_failed: int
    output_sha256: str | None = None  # blob: the provider's result file, redacted


@dataclass(frozen=True, kw_only=True)
class SystemReviewRecorded(Event):
    """The normalized review one reviewer system produced for one paper and sample, or null with the
    reason (a step whose output stayed unparseable). Derived only from the calls it names, in order,
    each with its step, round and member, so a mart can cost it and trace it.

    `review_key` is the SHA-256 of (system config, paper, sample, the request keys behind it, the
    assembler version): a replayed run finds it and writes nothing. `review_json` is the normalized
    review (reviewing.systems.normalized.NormalizedReview): summary, strengths, weaknesses,
    questions, recommendation, score on `score_scale` (null for a system that gives none),
    confidence, sub-scores and the raw sections."""

    event_type: ClassVar[str] = "system_review"

    review_key: str
    system: str  # mlr | mlr-combined | llm-review | ai-scientist | agentreview
    system_config: str  # 16 hex: templates + schemas + model + endpoint + options (the marts' reviewer_config)
    system_version: int  # the system's code version (its steps' logic)
    paper_id: str
    package_sha256: str  # the manuscript package the system read
    sample_index: int  # the n-th independent review of this paper by this configuration
    provider: str
    model: str
    status: str  # ok | null
    null_reason: str | None
    review_json: str  # the NormalizedReview ("{}" when null)
    score: float | None  # the review's overall score on score_scale (null: none given, or null review)
    score_scale: str | None  # e.g. "neurips_1_10"; null for a system that gives no score
    confidence: float | None
    calls_json: str  # [{request_key, llm_call_id, step, round, member}] in the order made
    options_json: str  # the system's options as resolved (ensemble size, agents, ...)
    study: str | None = None  # the study whose run recorded it (a label; reviews are shared)


@dataclass(frozen=True, kw_only=True)
class PaperVariantRecorded(Event):
    """A manuscript made from another for an experiment: a contradiction inserted (judging.benchmark),
    hidden text injected (ingest.hidden_text). Built variants are also ingested as papers of their
    own (`paper_ingested` under `variant_id`, is_synthetic), so any reviewer reads them like any paper;
    one that could not be built is still recorded (built = false, with the reason), as the source paper keeps
    its compile failures.

    `variant_key` is the SHA-256 of (kind, base package, experiment config, details, the request
    keys behind it): a replayed build finds it and writes nothing."""

    event_type: ClassVar[str] = "paper_variant"

    variant_key: str
    variant_id: str  # the variant's paper id: "<base>~<kind>-<variant_key[:10]>"
    kind: str  # contradiction | hidden_text
    base_paper_id: str
    base_package_sha256: str
    experiment_config: str  # 16 hex: what built it (templates, model, seed, method ...)
    built: bool
    reason: str | None  # why it was not built (e.g. "paragraph_not_found", "render_failed")
    pdf_sha256: str | None  # the variant's PDF (a blob), null when not built
    package_sha256: str | None  # the variant's manuscript package (a blob), null when not built
    details_json: str  # kind-specific: node, level, distance, original/modified paragraph / method, text
    judgment_keys_json: str = "[]"  # the builder's judgments (graph, rewrite) behind it
    request_keys_json: str = "[]"
    study: str | None = None  # the study whose run built it (a label; variants are shared)


@dataclass(frozen=True, kw_only=True)
class WithdrawalNoteImported(Event):
    """Why a paper was withdrawn, in its authors' words (an OpenReview withdrawal note or an arXiv
    withdrawal comment); the text is a blob."""

    event_type: ClassVar[str] = "withdrawal_note_imported"

    paper_id: str
    source: str  # openreview | arxiv | <file name>
    note_id: str | None
    comment_sha256: str  # blob: the withdrawal comment text
    comment_chars: int
    source_path: str | None = None
    line_no: int | None = None
    level: str | None = None  # the dataset's own label for the error, when it has one


@dataclass(frozen=True, kw_only=True)
class ReferenceLabelImported(Event):
    """A human-made label a judge is audited against (e.g. "this review does identify this
    contradiction", used for the detection judge's sensitivity), imported from JSONL."""

    event_type: ClassVar[str] = "reference_label_imported"

    dataset: str  # e.g. "detection_verified"
    subject_key: str  # what is labelled, e.g. "<variant_id>|<review_key>"
    paper_id: str | None
    label_json: str  # the label, e.g. {"identified": true}
    source_path: str
    line_no: int
    labelled_by: str | None = None


@dataclass(frozen=True, kw_only=True)
class RevisionOutcomeRecorded(Event):
    """What one (paper, Writer, Selector) condition of the revision crossover made:
    the Writer's candidate diffs, the Selector's decisions, the validators' checks, and the final
    manuscript (a `paper_variant` of kind revision) or why the paper is blocked from scoring.

    `outcome_key` is the SHA-256 of (study, revision settings, paper, roles, the request keys
    behind it): a replayed run finds it and writes nothing."""

    event_type: ClassVar[str] = "revision_outcome"

    outcome_key: str
    study_id: str
    spec_id: str  # 16 hex: the revision settings that decide Writer and Selector (RevisionSpec.identity)
    paper_id: str  # the original manuscript
    writer: str  # role letters, e.g. "L"
    selector: str
    writer_model: str  # provider/model
    selector_model: str
    status: str  # ok | blocked
    blocked_reason: str | None  # e.g. writer_unknown_record, selector_missing_decision, image_hash_mismatch
    n_candidates: int  # block diffs the Writer's edits made
    n_accepted: int
    n_reasons_truncated: int  # Selector reasons cut to the cap (seed: 32 characters)
    diffs_json: str  # [{diff_id, record_id, page, original, revised, accepted, reason, reason_truncated}]
    checks_json: str  # {check: {passed, detail}}: the validators and structural checks
    n_image_entries: int
    n_images_rehashed: int
    final_paper_id: str | None  # the final manuscript's paper id (the original's own when nothing changed)
    feedback_request_key: str | None
    writer_request_key: str | None
    selector_request_key: str | None


@dataclass(frozen=True, kw_only=True)
class HumanLabelImported(Event):
    """One person's labels of one item (a sentence, a comment, a review segment) of a human-labelled
    dataset (DISAPERE, RevUtil, ReviewCritique), as the dataset gives them and mapped onto a judge's
    labels by a declared mapping (prompts/label_mappings/, ingest/label_mapping.py). Each annotator
    is its own event, so the people's agreement on an item can be set beside a judge's.

    The item sits in an imported review (`external_review_imported` of system `dataset`); `start` /
    `end` index that review's text, `judged_*` the text the judge reads (null when the item is not
    found verbatim in it)."""

    event_type: ClassVar[str] = "human_label_imported"

    dataset: str  # disapere | revutil | reviewcritique
    item_key: str  # unique in the dataset: "<review_id>#<n>" (DISAPERE: the sentence index)
    review_key: str  # the judged review holding the item (judging.reviews), external:<dataset>:<review_id>
    paper_id: str | None
    split: str | None  # the dataset's split (DISAPERE train | dev | test), else null
    annotator: str | None  # the dataset's id of the person; null: an aggregate or unnamed experts
    is_reference: bool  # the dataset's own final label (DISAPERE final_dataset, RevUtil's majority, ReviewCritique's)
    item_text: str
    start: int | None
    end: int | None
    judged_start: int | None
    judged_end: int | None
    labels_json: str  # the dataset's labels of the item, as given (one annotator's)
    mapped_json: str  # {dimension: the judge's label or null} under the mapping
    mapping: str  # the mapping's name (prompts/label_mappings/<name>.toml)
    mapping_sha256: str  # blob: the mapping file's bytes, so a card row names exactly what mapped it
    source_path: str
    line_no: int | None = None  # the JSONL line or CSV row, when the file has lines


@dataclass(frozen=True, kw_only=True)
class HumanLabelEntered(Event):
    """One person's label of one item, entered in the browser (`peerlake label`, report/viewer/label.py):
    a judged review of a study, the label one of the judge's choices on one dimension, on the whole item or
    on a span of the text the judge read. Shaped like `human_label_imported` where they meet (item_key,
    review_key, paper_id, annotator, item_text, judged_start/judged_end, mapped_json), so a card reads both.

    Blind labelling is the default: `judge_shown` says whether the page showed the judge's labels."""

    event_type: ClassVar[str] = "human_label_entered"

    study: str
    judge: str  # depth | novelty | constructiveness
    judge_config: str  # the configuration whose judgment's text was shown (and whose labels, when shown)
    judgment_id: str  # that judgment_recorded event
    item_key: str  # the judged review's key (one label per item, dimension and annotator)
    review_key: str
    paper_id: str | None
    annotator: str
    dimension: str  # the judge's field labelled: aspect, stance, actionability, ...
    label: str  # one of the dimension's choices, as the judge writes it (a 0-2 rating as "0", "1", "2")
    mapped_json: str  # {dimension: the label, typed as the judge's units hold it}: human_label_imported's shape
    item_text: str | None  # the selected span's text; null: the whole item
    judged_start: int | None  # the span in the judged text (Python code points), null: the whole item
    judged_end: int | None
    text_sha256: str  # the judged text's SHA-256, as the judgment's inputs_json records it
    judge_shown: bool  # the judge's labels were on the page (false: blind)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.event_type: cls for cls in (PaperIngested, HumanReviewImported, LlmCall, IngestRejected,
                                    PaperStatusRecorded, ExternalReviewImported, SampleDrawn,
                                    LlmCallDuplicated, PromptTemplateStored,
                                    StudyResolved, JudgmentRecorded, RetrievalCall,
                                    RelatedWorkImported, SpanAnnotationImported, CallsReplayed,
                                    PriceTableRecorded, RunEstimated, CostCapReached, LlmBatchSubmitted,
                                    LlmBatchFinished, SystemReviewRecorded, PaperVariantRecorded,
                                    WithdrawalNoteImported, ReferenceLabelImported, RevisionOutcomeRecorded,
                                    HumanLabelImported, HumanLabelEntered)
}

# (event_type, stored schema_version) -> functions that lift a record one version at a time.
UPCASTERS: dict[tuple[str, int], list[typing.Callable[[dict], dict]]] = {}


def _paper_ingested_v1_to_v2(record: dict) -> dict:
    """v1 events predate the layout counts: they are unknown (None), not zero."""
    for name in ("n_images", "body_chars", "appendix_chars", "references_chars", "n_references",
                 "n_sections", "year", "area"):
        record.setdefault(name, None)
    return record


def _paper_ingested_v2_to_v3(record: dict) -> dict:
    """v2 packages predate the hidden-text check: unknown (None), not zero."""
    record.setdefault("n_hidden_records", None)
    return record


UPCASTERS[("paper_ingested", 1)] = [_paper_ingested_v1_to_v2, _paper_ingested_v2_to_v3]
UPCASTERS[("paper_ingested", 2)] = [_paper_ingested_v2_to_v3]


def _llm_call_v1_to_v2(record: dict) -> dict:
    """v1 calls predate studies and keyed endpoints: unknown (None)."""
    record.setdefault("study", None)
    record.setdefault("endpoint", None)
    return record


def _llm_call_v2_to_v3(record: dict) -> dict:
    """v2 calls predate cost attribution and batches: unknown (None)."""
    for name in ("dagster_run_id", "asset", "batch_id"):
        record.setdefault(name, None)
    return record


def _retrieval_call_v1_to_v2(record: dict) -> dict:
    record.setdefault("dagster_run_id", None)
    record.setdefault("asset", None)
    return record


def _llm_call_v3_to_v4(record: dict) -> dict:
    """v3 calls predate reviewer systems: no system step made them."""
    for name in ("system", "step", "round"):
        record.setdefault(name, None)
    return record


def _llm_call_v4_to_v5(record: dict) -> dict:
    """v4 calls predate the per-model request rules: every one was sent as asked."""
    record.setdefault("param_changes_json", None)
    return record


UPCASTERS[("llm_call", 1)] = [_llm_call_v1_to_v2, _llm_call_v2_to_v3, _llm_call_v3_to_v4, _llm_call_v4_to_v5]
UPCASTERS[("llm_call", 2)] = [_llm_call_v2_to_v3, _llm_call_v3_to_v4, _llm_call_v4_to_v5]
UPCASTERS[("llm_call", 3)] = [_llm_call_v3_to_v4, _llm_call_v4_to_v5]
UPCASTERS[("llm_call", 4)] = [_llm_call_v4_to_v5]
UPCASTERS[("retrieval_call", 1)] = [_retrieval_call_v1_to_v2]


def _study_resolved_v1_to_v2(record: dict) -> dict:
    """v1 resolutions predate judges: none ran."""
    record.setdefault("judges_json", "[]")
    return record


UPCASTERS[("study_resolved", 1)] = [_study_resolved_v1_to_v2]

_ARROW = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_(),
          datetime: pa.timestamp("us", tz="UTC")}


def _base_type(tp: Any) -> Any:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0]
    return tp


def arrow_schema(cls: type[Event]) -> pa.Schema:
    """Parquet schema of an event type; `event_type` itself lives in the hive partition path."""
    hints = typing.get_type_hints(cls)
    cols = [pa.field("schema_version", pa.int32(), nullable=False)]
    for f in dataclasses.fields(cls):
        cols.append(pa.field(f.name, _ARROW[_base_type(hints[f.name])]))
    return pa.schema(cols)


@functools.cache
def field_types(cls: type[Event]) -> dict[str, Any]:
    """Each field's declared type (typing.get_type_hints, once per event type)."""
    return typing.get_type_hints(cls)


def fits(value: Any, hint: Any, *, as_record: bool = False) -> bool:
    """Whether `value` has the type an event field declares: `X | None` takes None, a float field an
    int, a number never a bool; with `as_record`, a datetime is the ISO text with a zone `to_record`
    writes. Input from outside (a note's title that is a list, a bundle's line) is checked with it
    before it can reach a write-ahead line, where a wrong type would fail every later seal."""
    args = typing.get_args(hint)
    if type(None) in args:
        return value is None or any(fits(value, a, as_record=as_record) for a in args if a is not type(None))
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is datetime and as_record:
        try:
            return isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None
        except ValueError:
            return False
    return isinstance(value, hint) if isinstance(hint, type) else True


def parse_line(payload: dict[str, Any]) -> Event:
    return EVENT_TYPES[payload["event_type"]].from_record(payload["event"])


def to_json_line(event: Event) -> bytes:
    body = {"event_type": event.event_type, "event": event.to_record()}
    return (json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
