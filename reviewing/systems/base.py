"""What every reviewer system shares: its configuration and identity, one run of it on one paper
(requests from templates, answers parsed, a repair turn for an unreadable answer), the engine that
drives many runs through the gateway, and recording each normalized review once.

A system's `run` is a generator: it yields a list of requests (one step, or an ensemble's members
at once), receives their results in order, and finally returns a NormalizedReview. The engine runs
every (system, paper, sample) in lockstep and sends each wave's requests to the gateway grouped by
(system, step), so a hosted provider sees them concurrently and the progress bars read per system
and step. Every request is deterministic given the answers before it, so a second run replays the
whole chain from the log at no cost, and editing one step's template re-runs that step and what
follows it only.
"""

import dataclasses
import hashlib
import json
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from peerlake.llm_calls.gateway import CostCapRefused
from peerlake.llm_calls.types import LlmRequest, LlmResult, canonical_json
from peerlake.reviewing.systems.normalized import NormalizedReview
from peerlake.warehouse import EventLog
from peerlake.warehouse.events import SystemReviewRecorded

SEED_BASE = 5000  # system step seeds: 5000 + 100 * sample + member (reviews 1000 + k, judges 3000 + r)
PURPOSE = "system_step"  # every system step's llm_call; labels system, step, round say which


class SystemOptionError(ValueError):
    """A system name or option a study cannot use; the message says what to change."""


class StepFailed(Exception):
    """A step's answer stayed unusable after its repair turns: the review is null with this reason."""

    def __init__(self, step: str, reason: str):
        super().__init__(f"{step}: {reason}")
        self.step = step
        self.reason = reason


class CallFailed(Exception):
    """A call of the run failed (network, retries exhausted) or the cost cap refused it."""

    def __init__(self, exc: BaseException):
        super().__init__(str(exc))
        self.exc = exc


@dataclass(frozen=True)
class SystemConfig:
    """One reviewer system as a study runs it: the model, its options (the system's defaults with
    the study's overrides) and how many independent reviews of each paper."""

    system: str
    provider: str
    model: str
    options: tuple[tuple[str, Any], ...] = ()  # sorted (name, value); `opts` is the dict
    samples: int = 1
    max_output_tokens: int = 1500
    base_url: str | None = None
    papers: tuple[str, ...] = ()  # the study's papers this system reviews (empty: all); not its identity

    def covers(self, paper_id: str) -> bool:
        """Whether this reviewer reads the paper; an experiment's variant of a listed paper too."""
        from peerlake.ingest.package import base_of

        return not self.papers or paper_id in self.papers or base_of(paper_id) in self.papers

    @property
    def opts(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def impl(self) -> "ReviewerSystem":
        from peerlake.reviewing.systems import get_system

        return get_system(self.system)

    def identity(self) -> str:
        """16 hex: changes exactly when a review could (the system's code version, every template it
        uses under these options with its schema, model, endpoint, options, token limit). The
        sample count is not part of it: more samples extend a configuration."""
        from peerlake.prompts import load_template

        impl = self.impl
        parts = []
        for name in impl.templates(self.opts):
            t = load_template(name)
            parts.append({"template": name, "hash": t.hash, "schema": t.output_schema})
        probe = LlmRequest(provider=self.provider, model=self.model, messages=(), base_url=self.base_url)
        ident = {"system": self.system, "version": impl.version, "templates": parts, "provider": self.provider,
                 "model": self.model, "endpoint": probe.endpoint, "options": self.opts,
                 "max_output_tokens": self.max_output_tokens}
        return hashlib.sha256(canonical_json(ident).encode()).hexdigest()[:16]

    def code_version(self) -> str:  # what ReviewerConfig calls it: the marts' reviewer_config
        return self.identity()


@dataclass(frozen=True)
class PlannedStep:
    """What one run of a system will send at most, per step: for the dry-run cost estimate."""

    step: str
    calls: int
    input_chars: int  # characters of prompt per call
    max_output_tokens: int
    template: str | None = None  # the step's template (so the estimate meets the calls it predicted)
    model: str | None = None  # the step's own model when not the system's (MLR's appendix_model, ...)


@dataclass(frozen=True)
class CallRecord:
    request_key: str
    llm_call_id: str
    step: str
    round: int
    member: int


class ReviewerSystem:
    """A named, versioned pipeline of steps. Subclasses set the class attributes and write `run`."""

    name: ClassVar[str]
    version: ClassVar[int] = 1  # bump when the steps' logic changes (not for a template edit: that hashes itself)
    description: ClassVar[str] = ""
    score_scale: ClassVar[str | None] = None
    defaults: ClassVar[dict[str, Any]] = {}  # every option with its default; a study may override them
    listed: ClassVar[int] = 0  # its place in `peerlake systems` and reviewing.systems.SYSTEMS

    def templates(self, opts: dict[str, Any]) -> list[str]:
        """The templates a run under these options renders (their hashes are the config's identity)."""
        raise NotImplementedError

    def check(self, opts: dict[str, Any]) -> None:
        """Raise SystemOptionError for an option value the system cannot run with."""

    def defaults_for(self, provider: str | None) -> dict[str, Any]:
        """The defaults a run on this provider starts from (None: the embedded model's, `defaults`). A
        system whose budgets fit the embedded model's 4k-token context gives hosted models more here;
        the local defaults stay what they are, so local configurations keep their identity."""
        return self.defaults

    def resolve(self, overrides: dict[str, Any], provider: str | None = None) -> dict[str, Any]:
        defaults = self.defaults_for(provider)
        known = {**COMMON_OPTIONS, **defaults}
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise SystemOptionError(f"system {self.name!r}: unknown option(s) {', '.join(unknown)}; "
                              f"known: {', '.join(sorted(known)) or 'none'}")
        # A common option is in the resolved options only when a study sets it, so configurations
        # that never used it keep their identity (and their recorded reviews), except the recorded ones.
        opts = {**defaults, **{k: COMMON_OPTIONS[k] for k in RECORDED_OPTIONS}, **overrides}
        for key, value in overrides.items():
            default = known[key]
            if default is not None and not _same_kind(default, value):
                raise SystemOptionError(f"system {self.name!r}: option {key} = {value!r} should be like {default!r}")
        self.check(opts)
        return opts

    def run(self, run: "SystemRun") -> Generator[list[LlmRequest], list[LlmResult], NormalizedReview]:
        raise NotImplementedError

    def plan(self, opts: dict[str, Any], package, provider: str) -> list[PlannedStep]:
        """The calls one run makes at most under these options (reflections at their maximum)."""
        raise NotImplementedError


# Options every system accepts (the engine, not the system, acts on them):
# - strip_hidden: read the manuscript without the text its rendered pages do not show (white, tiny,
#   invisible or off-page text flagged at ingest; ingest.hidden_text) — the defence against hidden
#   prompt injection. On by default: a reviewer reads what a person sees on the page; the hidden-text
#   experiment sets it false to measure the attack.
COMMON_OPTIONS: dict[str, Any] = {"strip_hidden": True}
# Common options always in the resolved options, so a recorded system_review says what its run read.
# (Events written while strip_hidden was off by default lack the key: the marts read absent as false.)
RECORDED_OPTIONS = ("strip_hidden",)


def _same_kind(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, int | float):
        return isinstance(value, int | float)
    if isinstance(default, list | tuple):
        return isinstance(value, list | tuple)
    return isinstance(value, type(default))


@dataclass
class SystemRun:
    """One system reviewing one paper once (sample k): the requests it makes and the calls behind it."""

    cfg: SystemConfig
    system_config: str
    paper_id: str
    title: str | None
    package: Any  # ingest.package.ManuscriptPackage
    package_sha256: str
    sample: int = 0
    study: str | None = None
    calls: list[CallRecord] = field(default_factory=list)
    log: Any = None  # the lake's EventLog, set by run_systems: where a system's searches and page renders go

    @property
    def opts(self) -> dict[str, Any]:
        return self.cfg.opts

    def request(self, step: str, template: str, *, temperature: float, round: int = 0, member: int = 0,
                max_tokens: int | None = None, extra_messages: Sequence[dict] = (), **variables) -> LlmRequest:
        """One step's call: the template rendered with `variables`, labelled with the system, step and
        round. `member` tells apart identical calls of an ensemble (their seed differs)."""
        from peerlake.prompts import load_template

        t = load_template(template)
        tokens = min(max_tokens or self.cfg.max_output_tokens, self.cfg.max_output_tokens)
        return LlmRequest(provider=self.cfg.provider, model=self.cfg.model,
                          messages=tuple(t.render(**variables)) + tuple(extra_messages),
                          params={"temperature": temperature, "max_tokens": tokens,
                                  "seed": SEED_BASE + 100 * self.sample + member},
                          response_schema=t.output_schema, sample_index=self.sample, prompt_template=t.name,
                          prompt_hash=t.hash, purpose=PURPOSE, subject_id=self.paper_id,
                          base_url=self.cfg.base_url, prompt_source=t.source, study=self.study,
                          system=self.cfg.system, system_config=self.system_config, step=step, round=round)

    def ask(self, req: LlmRequest, parse: Callable[[LlmResult], Any], *, member: int = 0
            ) -> Generator[list[LlmRequest], list, Any]:
        """`value = yield from run.ask(req, parse)`: the call, its answer parsed. `parse` returns the
        value or raises ValueError saying what is wrong; the model then gets `repair_attempts` turns
        (option, default 1) to answer again, told why; after that the step fails (StepFailed)."""
        values = yield from self.ask_all([req], parse, members=[member])
        return values[0]

    def ask_all(self, reqs: Sequence[LlmRequest], parse: Callable[[LlmResult], Any],
                members: Sequence[int] | None = None) -> Generator[list[LlmRequest], list, list]:
        """Several calls at once (an ensemble, several agents), each parsed and repaired as `ask`."""
        members = list(members) if members is not None else list(range(len(reqs)))
        pending = list(enumerate(reqs))
        values: list[Any] = [None] * len(reqs)
        repairs = int(self.opts.get("repair_attempts", 1))
        for attempt in range(repairs + 1):
            results = yield [r for _, r in pending]
            retry = []
            for (i, req), res in zip(pending, results, strict=True):
                if isinstance(res, BaseException):
                    raise CallFailed(res)
                self.calls.append(CallRecord(res.request_key, res.event_id, req.step or "", req.round or 0,
                                             members[i]))
                try:
                    values[i] = parse(res)
                except ValueError as exc:
                    if attempt == repairs:
                        raise StepFailed(req.step or "", f"unparseable answer ({exc})") from None
                    retry.append((i, _repair(req, res, str(exc))))
            if not retry:
                return values
            pending = retry
        raise AssertionError("unreachable")


def _repair(req: LlmRequest, res: LlmResult, why: str) -> LlmRequest:
    """The same request with the model's unusable answer and what was wrong with it appended."""
    turn = ({"role": "assistant", "content": res.text or ""},
            {"role": "user", "content": f"Your answer could not be used: {why}. Answer again, in exactly the "
                                        "requested format, and nothing else."})
    return dataclasses.replace(req, messages=tuple(req.messages) + turn)


def json_fields(*required: str) -> Callable[[LlmResult], dict]:
    """A parser: the answer's JSON object, which must have the given keys (a ValueError says which not)."""

    def parse(res: LlmResult) -> dict:
        doc = res.json_object()
        if doc is None:
            why = "cut off at the token limit" if res.finish_reason in ("length", "max_tokens") else "no JSON object"
            raise ValueError(why)
        missing = [k for k in required if k not in doc]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        return doc

    return parse


def free_text(min_chars: int = 1) -> Callable[[LlmResult], str]:
    """A parser for a free-text step (notes, a summary): the text, which must not be empty."""

    def parse(res: LlmResult) -> str:
        text = (res.text or "").strip()
        if len(text) < min_chars:
            raise ValueError("empty answer" if not text else f"only {len(text)} characters")
        return text

    return parse


# ---- the engine ---------------------------------------------------------------------------------

@dataclass
class Outcome:
    """How one run ended: a review, a null review with a reason (recorded), or a failed or refused
    call (not recorded: the next run retries it)."""

    run: SystemRun
    review: NormalizedReview | None = None
    null_reason: str | None = None
    failed_call: str | None = None
    refused: bool = False
    event: SystemReviewRecorded | None = None

    @property
    def recorded(self) -> bool:
        return self.failed_call is None


def run_systems(gateway, runs: Sequence[SystemRun], *, progress: bool | None = None) -> list[Outcome]:
    """Drive every run to its end; results in input order."""
    outcomes: list[Outcome | None] = [None] * len(runs)
    gens: dict[int, Generator] = {}
    pending: dict[int, list[LlmRequest]] = {}

    def advance(i: int, send: Any) -> None:
        try:
            reqs = gens[i].send(send)
        except StopIteration as stop:
            outcomes[i] = Outcome(runs[i], review=stop.value)
            return
        except StepFailed as exc:
            outcomes[i] = Outcome(runs[i], null_reason=str(exc))
            return
        except CallFailed as exc:
            outcomes[i] = Outcome(runs[i], failed_call=str(exc.exc), refused=isinstance(exc.exc, CostCapRefused))
            return
        if not reqs:
            raise RuntimeError(f"system {runs[i].cfg.system} yielded no request")
        pending[i] = list(reqs)

    for i, run in enumerate(runs):
        if run.log is None:
            run.log = getattr(gateway, "log", None)
        gens[i] = run.cfg.impl.run(run)
        advance(i, None)
    while pending:
        groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for i, reqs in pending.items():
            for j, req in enumerate(reqs):
                groups.setdefault((req.system or "", req.step or ""), []).append((i, j))
        answers: dict[tuple[int, int], Any] = {}
        for (system, step), slots in groups.items():
            reqs = [pending[i][j] for i, j in slots]
            results = gateway.call_many(reqs, progress=progress, description=f"{system} · {step}",
                                        return_exceptions=True)
            answers.update(zip(slots, results, strict=True))
        current, pending = pending, {}
        for i, reqs in current.items():
            advance(i, [answers[(i, j)] for j in range(len(reqs))])
    return [o for o in outcomes if o is not None]


# ---- recording ----------------------------------------------------------------------------------

def review_key(system_config: str, paper_id: str, sample: int, request_keys: Iterable[str], version: int) -> str:
    ident = {"config": system_config, "paper": paper_id, "sample": sample, "requests": list(request_keys),
             "version": version}
    return hashlib.sha256(canonical_json(ident).encode()).hexdigest()


class SystemReviewRecorder:
    """Appends each normalized (or null) review once: a review whose key is in the log is not written
    again, so a replayed run writes nothing."""

    def __init__(self, log: EventLog, study: str | None = None):
        self.log = log
        self.study = study
        self.known = {e.review_key: e for e in log.iter_events("system_review")}
        self.written = 0
        self.skipped = 0

    def record(self, outcome: Outcome) -> SystemReviewRecorded | None:
        if not outcome.recorded:
            return None
        run = outcome.run
        impl = run.cfg.impl
        key = review_key(run.system_config, run.paper_id, run.sample, [c.request_key for c in run.calls],
                         impl.version)
        if key in self.known:
            self.skipped += 1
            outcome.event = self.known[key]
            return None
        review = outcome.review
        ok = review is not None and outcome.null_reason is None
        ev = SystemReviewRecorded(
            review_key=key, system=run.cfg.system, system_config=run.system_config, system_version=impl.version,
            paper_id=run.paper_id, package_sha256=run.package_sha256, sample_index=run.sample,
            provider=run.cfg.provider, model=run.cfg.model, status="ok" if ok else "null",
            null_reason=None if ok else (outcome.null_reason or "no review"),
            review_json=review.to_json() if ok else "{}",
            score=review.score if ok else None, score_scale=review.score_scale if ok else impl.score_scale,
            confidence=review.confidence if ok else None,
            calls_json=json.dumps([dataclasses.asdict(c) for c in run.calls]),
            options_json=canonical_json(run.cfg.opts), study=self.study)
        self.log.append(ev)
        self.known[key] = ev
        outcome.event = ev
        self.written += 1
        return ev
