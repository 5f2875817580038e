"""A run's cost cap: the most a new paid call may cost, and what the run has spent so far.

Before a new paid call the gateway asks the ledger whether spent + in flight + this call's upper
estimate stays within the cap. Spent is the cost of the `ok` llm_call events of the same Dagster run,
read from the log (so every gateway and process of one run shares it); without a run id, what this
gateway itself spent. The upper estimate bounds what the request lets the provider bill:
- input: the rendered request's characters at UPPER_TOKENS_PER_CHAR (real text runs ~0.25 tokens
  per character; 0.5 bounds dense text, numbers and JSON) — or the highest ratio this gateway has
  seen the model report, if that is higher — plus IMAGE_TOKENS_BOUND per page image, every input
  token at the model's dearest input rate (a cache write costs 1.25x input at Anthropic);
- output: the provider's `output_bound`, the output tokens the request as *sent* allows: an OpenAI
  reasoning model's answer budget plus its reasoning headroom (none at GPT-5.1+'s effort "none"), a
  Claude answer budget plus its thinking budget, a Gemini maxOutputTokens (the answer budget plus the
  thinking budget, or the model's largest budget when thinking is dynamic: thoughts count inside it
  and may overrun the budget, never the ceiling) — all three bill hidden reasoning as output — else
  the asked max_tokens.
So the cap is passed only if a call uses more input tokens per character than any call before it in
this process, or by calls other processes still have in flight (not seen until they are recorded).
"""

from dataclasses import dataclass, field

from peerlake.llm_calls.cost import Price, PriceTable, compute_cost
from peerlake.llm_calls.types import LlmRequest, Usage, canonical_json

UPPER_TOKENS_PER_CHAR = 0.5
MESSAGE_OVERHEAD_TOKENS = 8  # role markers and separators per message (OpenAI documents ~4, we double it)
# A request without max_tokens has no output bound of its own: the providers' largest common default.
DEFAULT_MAX_OUTPUT_TOKENS = 4096
# Input tokens one page image can bill. OpenAI's vision guide: patch models cap an image at 1,536
# 32-px patches times a per-model multiplier (gpt-4.1-nano 2.46: 3,779), tile models at 85 + 8·170 =
# 1,445 (2048x768, eight 512-px tiles); Anthropic's vision page: width·height/750 after the long edge
# is cut to 1,568 px, ~1,600. gpt-4o-mini bills images at 2,833 + 5,667 per tile: 48,169 at most.
IMAGE_TOKENS_BOUND = 4_000
IMAGE_TOKENS_BOUND_BY_MODEL = {"gpt-4o-mini": 48_200}


def request_chars(messages, response_schema: dict | None) -> int:
    """The characters a model reads: every message's text, plus the output schema's JSON (providers
    put it into the prompt)."""
    chars = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):  # content blocks (Anthropic cache breakpoints): their texts
            chars += sum(len(b.get("text") or "") for b in content if isinstance(b, dict))
    if response_schema is not None:
        chars += len(canonical_json(response_schema))
    return chars


def max_output_tokens(req: LlmRequest) -> int:
    """The answer budget the caller asked for (what a provider adds for reasoning is its output_bound)."""
    value = req.params.get("max_tokens")
    return int(value) if isinstance(value, int | float) and value > 0 else DEFAULT_MAX_OUTPUT_TOKENS


def image_count(messages) -> int:
    return sum(len(m.get("images") or ()) for m in messages)


def image_tokens_bound(model: str) -> int:
    base = model.removeprefix("ft:").split(":")[0]
    for name, bound in IMAGE_TOKENS_BOUND_BY_MODEL.items():
        if base == name or base.startswith(f"{name}-"):
            return bound
    return IMAGE_TOKENS_BOUND


def upper_usage(req: LlmRequest, tokens_per_char: float = UPPER_TOKENS_PER_CHAR,
                output_tokens: int | None = None) -> Usage:
    """Input and output tokens no larger than the call can bill; `output_tokens` is the provider's
    output_bound (default: the asked max_tokens, right only for a model that does not reason)."""
    chars = request_chars(req.messages, req.response_schema)
    ratio = max(tokens_per_char, UPPER_TOKENS_PER_CHAR)
    input_tokens = (int(chars * ratio) + 1 + MESSAGE_OVERHEAD_TOKENS * len(req.messages)
                    + image_count(req.messages) * image_tokens_bound(req.model))
    return Usage(input_tokens=input_tokens,
                 output_tokens=max_output_tokens(req) if output_tokens is None else output_tokens)


def upper_cost_usd(req: LlmRequest, table: PriceTable, tokens_per_char: float = UPPER_TOKENS_PER_CHAR,
                   output_tokens: int | None = None) -> float | None:
    """The most this call can cost: every input token at the dearest input rate (a cache write may
    cost more than plain input), output up to `output_tokens`; None when the model has no price."""
    price = table.lookup(req.provider, req.model)
    if price is None:
        return None
    dearest = max(price.input, price.cached_input, price.cache_write)
    return compute_cost(upper_usage(req, tokens_per_char, output_tokens),
                        Price(input=dearest, cached_input=dearest, cache_write=dearest, output=price.output))


@dataclass
class Ledger:
    """Spending per Dagster run (from the log's ok events) and reservations of calls in flight.
    Not thread-safe: the gateway holds its lock around every method."""

    by_run: dict[str, float] = field(default_factory=dict)
    own: float = 0.0  # this gateway's spending on calls made outside any run
    reserved: dict[str | None, float] = field(default_factory=dict)
    # (provider, model) -> the most input tokens per request character a call of this gateway reported
    seen_ratio: dict[tuple[str, str], float] = field(default_factory=dict)
    _counted: set[str] = field(default_factory=set)  # event ids already summed (own events come back from the tail)

    def note(self, event_id: str, run_id: str | None, cost_usd: float | None) -> None:
        if run_id is None or cost_usd is None or event_id in self._counted:
            return
        self._counted.add(event_id)
        self.by_run[run_id] = self.by_run.get(run_id, 0.0) + cost_usd

    def note_own(self, run_id: str | None, cost_usd: float | None) -> None:
        if run_id is None and cost_usd is not None:
            self.own += cost_usd

    def note_ratio(self, req: LlmRequest, input_tokens: int | None) -> None:
        chars = request_chars(req.messages, req.response_schema)
        if input_tokens and chars:
            key = (req.provider, req.model)
            self.seen_ratio[key] = max(self.seen_ratio.get(key, 0.0), input_tokens / chars)

    def ratio(self, req: LlmRequest) -> float:
        return self.seen_ratio.get((req.provider, req.model), UPPER_TOKENS_PER_CHAR)

    def spent(self, run_id: str | None) -> float:
        return self.own if run_id is None else self.by_run.get(run_id, 0.0)

    def in_flight(self, run_id: str | None) -> float:
        return self.reserved.get(run_id, 0.0)

    def reserve(self, run_id: str | None, amount: float) -> None:
        self.reserved[run_id] = self.reserved.get(run_id, 0.0) + amount

    def release(self, run_id: str | None, amount: float) -> None:
        left = self.reserved.get(run_id, 0.0) - amount
        if left <= 1e-12:
            self.reserved.pop(run_id, None)
        else:
            self.reserved[run_id] = left


def effective_cap(explicit: float | None, from_context: float | None) -> float | None:
    """The stricter of the gateway's own cap and the run's; None when neither is set."""
    caps = [c for c in (explicit, from_context) if c is not None]
    return min(caps) if caps else None


def refusal_message(req: LlmRequest, *, cap: float, spent: float, in_flight: float,
                    estimate: float | None) -> str:
    how = ("raise it with `peerlake run STUDY --max-cost USD` or `max_cost_usd` in the study's [costs] table "
           "(calls already made replay for free)")
    where = f"{req.provider}/{req.model} {req.purpose} call {req.request_key[:12]} (subject={req.subject_id})"
    if estimate is None:
        return (f"cost cap ${cap:.2f}: {where} not made: the model has no price in the price table "
                f"(llm_calls/prices.toml), so its cost cannot be bounded; add its price, or run without a cap")
    return (f"cost cap reached: this run has spent ${spent:.4f} (+ ${in_flight:.4f} in flight) of its "
            f"${cap:.2f} cap; {where} could cost up to ${estimate:.4f}, so it was not made; {how}")
