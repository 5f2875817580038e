"""What each hosted model family takes: which asked parameters are sent, dropped (and recorded as
dropped), refused before any call, and how much output room a reasoning model gets.

A request's params are what the caller asked (they key the request, so a judge's `temperature: 0`
keeps its request_key on every model); the plan below is what is sent. Sources, checked 2026-12:

- OpenAI reasoning models (o1, o3, o3-mini, o4-mini, the GPT-5 family except the gpt-5-chat
  aliases): https://platform.openai.com/docs/guides/reasoning — `max_completion_tokens` bounds the
  visible answer *and* the hidden reasoning tokens ("reserve at least 25,000 tokens for reasoning and
  outputs" when starting out), `reasoning_effort` low/medium/high (GPT-5 also "minimal"). The API
  answers temperature/top_p/penalties other than the default with 400 `unsupported_value`/
  `unsupported_parameter`, `max_tokens` with "Use 'max_completion_tokens' instead", and takes no
  logprobs (openai/openai-python#2104; Azure's reasoning-model page lists the same set).
- Anthropic Messages: `max_tokens` is required (https://docs.anthropic.com/en/api/messages).
  Extended thinking (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking):
  `thinking: {type: "enabled", budget_tokens}` with budget_tokens >= 1,024 and < max_tokens (thinking
  counts inside max_tokens); not compatible with `temperature` or `top_k` changes, `top_p` only in
  [0.95, 1]. Claude Opus 4.1 and the 4.5 models onwards take `temperature` or `top_p`, not both
  (https://docs.anthropic.com/en/docs/about-claude/models/migration-guide). No logprobs, no seed.

What a request can bill (`output_bound`, read by the cost cap and the dry run): every output token
the sent parameters allow, reasoning and thinking included, since both providers bill hidden
reasoning as output: OpenAI's `max_completion_tokens` as sent (answer + headroom), Anthropic's
`max_tokens` as sent (answer + thinking budget). What a call is likely to spend on reasoning, before
the lake has seen that model (`reasoning_prior`), is a stated prior, not a documented figure: OpenAI
says only that a reasoning model writes "anywhere from a few hundred to tens of thousands" of
reasoning tokens (the reasoning guide), so REASONING_PRIOR_TOKENS spreads that range by effort.

- GPT-5.1 and later at `reasoning_effort: "none"` (https://platform.openai.com/docs/guides/latest-model,
  "GPT-5.1 parameter compatibility"; the Vercel AI SDK's same fix, vercel/ai#10940): temperature, top_p
  and logprobs are accepted, and the model writes no reasoning, so no headroom is added. The efforts
  each generation takes (OPENAI_EFFORTS): gpt-5 minimal/low/medium/high (no "none"); gpt-5.1
  none/low/medium/high (the API: "Supported values are: 'none', 'low', 'medium', and 'high'",
  livekit/agents#3966, so no "minimal"); gpt-5.2 on also "xhigh"; the o-series low/medium/high. A
  request that names no effort keeps the conservative plan (sampling dropped, headroom added), whatever
  the model's own default.
- Google Gemini (https://ai.google.dev/gemini-api/docs/thinking; ranges as the SDKs validate them,
  e.g. gemini_ex's ThinkingConfig, and cline/cline#7735): Gemini 2.5 thinks by
  `thinkingConfig.thinkingBudget` — 2.5 Pro 128..32,768 and cannot turn thinking off (0 is refused),
  2.5 Flash 0..24,576, 2.5 Flash-Lite 0 or 512..24,576 and does not think unless asked; -1 is dynamic
  (the default of Pro and Flash). Gemini 3 thinks by `thinkingLevel` (3 Pro low/high, 3 Flash also
  minimal/medium) and cannot turn it off; a budget and a level in one request is a 400. Logprobs are
  refused ("Logprobs is not enabled for models/gemini-2.5-pro", mscraftsman/generative-ai#135).
  Thoughts count INSIDE `maxOutputTokens`: a 2.5 Flash call with maxOutputTokens 3,072 came back with
  3,071 thought tokens, no text and finishReason MAX_TOKENS (langchain-ai/langchain-google#1020; the
  same on 2.5 Pro, googleapis/python-genai#782 and #811), and the budget itself is a target the model
  may overrun. So the answer budget is sent as maxOutputTokens = answer + thinking room (the budget,
  or the model's largest budget when thinking is dynamic), and that sent ceiling is what a call can bill.
"""

import re
from dataclasses import dataclass, field
from typing import Any

from peerlake.llm_calls.providers.base import UnsupportedRequest
from peerlake.warehouse import settings

# Sampling parameters an OpenAI reasoning model takes only at their default: not sent.
OPENAI_REASONING_FIXED = ("temperature", "top_p", "presence_penalty", "frequency_penalty", "logit_bias")
# OpenAI's guide: reserve ~25k tokens for reasoning + answer; the answer budget is added on top.
OPENAI_REASONING_HEADROOM = 25_000
ANTHROPIC_DEFAULT_MAX_TOKENS = 1024  # the API requires max_tokens; used when params has none
ANTHROPIC_MIN_THINKING_BUDGET = 1024
ANTHROPIC_THINKING_TOP_P = (0.95, 1.0)
# A request that names no output limit can bill up to the model's own maximum output: GPT-5's 128,000
# tokens is the largest of OpenAI's (o3 and o4-mini 100,000, GPT-4.1 32,768), so the bound never falls short.
OPENAI_MAX_OUTPUT_TOKENS = 128_000
# The dry run's prior for the reasoning tokens of one call of an OpenAI reasoning model, by
# reasoning_effort (default medium): (10th percentile, mean, 90th percentile), within the headroom.
REASONING_PRIOR_TOKENS = {"none": (0, 0, 0), "minimal": (0, 300, 1_500), "low": (500, 2_000, 6_000),
                          "medium": (1_000, 5_000, 15_000), "high": (3_000, 12_000, 25_000),
                          "xhigh": (5_000, 18_000, 25_000)}
# Claude's thinking, as shares of the request's budget_tokens (the budget is a target it may stop short of).
THINKING_PRIOR_SHARE = (0.25, 0.60, 1.00)
# reasoning_effort values by model generation (see the docstring); a later GPT-5.x takes what 5.2 takes.
OPENAI_EFFORTS = {"o": ("low", "medium", "high"), 0: ("minimal", "low", "medium", "high"),
                  1: ("none", "low", "medium", "high"), 2: ("none", "low", "medium", "high", "xhigh")}
# What a GPT-5.1+ request at effort "none" sends as asked (the rest of OPENAI_REASONING_FIXED stays dropped).
OPENAI_NONE_SAMPLING = ("temperature", "top_p")
_PROBE_SETTING = "the logprob score probe (PEERLAKE_PROBE_SAMPLES=0 turns it off)"


@dataclass
class RequestPlan:
    """What is sent (`params`), what was asked and not sent (`dropped`, name -> asked value), and what is
    sent with another value or name than asked (`changed`, name -> sent value)."""

    params: dict[str, Any]
    dropped: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, Any] = field(default_factory=dict)

    def changes(self) -> dict[str, Any] | None:
        """The llm_call event's `param_changes_json`: None when the request was sent as asked."""
        out = {k: v for k, v in (("dropped", self.dropped), ("changed", self.changed)) if v}
        return out or None


def _is_named(model: str, prefix: str) -> bool:
    return model == prefix or model.startswith((f"{prefix}-", f"{prefix}."))


def openai_family(model: str) -> str:
    """"reasoning" for the o-series and GPT-5 reasoning models, else "chat"."""
    name = model.removeprefix("ft:").split(":")[0].lower()
    if name.startswith("gpt-5") and "-chat" in name:  # gpt-5-chat-latest: the non-reasoning ChatGPT model
        return "chat"
    if any(_is_named(name, p) for p in ("o1", "o3", "o4", "gpt-5")) or re.match(r"o\d+(-|$)", name):
        return "reasoning"
    return "chat"


def gpt5_minor(model: str) -> int | None:
    """5.1 -> 1, gpt-5 / gpt-5-mini -> 0; None for a model outside the GPT-5 family."""
    m = re.match(r"gpt-5(?:\.(\d+))?(?=$|[-:])", model.removeprefix("ft:").lower())
    return None if m is None else int(m.group(1) or 0)


def openai_efforts(model: str) -> tuple[str, ...]:
    """The reasoning_effort values an OpenAI reasoning model takes (OPENAI_EFFORTS)."""
    minor = gpt5_minor(model)
    return OPENAI_EFFORTS["o"] if minor is None else OPENAI_EFFORTS[min(minor, 2)]


def _check_effort(model: str, effort: Any) -> None:
    takes = openai_efforts(model)
    if effort is None or effort in takes:
        return
    hint = {"none": " ('none' is GPT-5.1's and later's: use gpt-5.1 or later, or 'minimal')",
            "minimal": " (gpt-5.1 and later have no 'minimal': their lowest is 'none', no reasoning at all)"}
    raise UnsupportedRequest(
        f"model {model!r} does not take reasoning_effort {effort!r}: it takes {', '.join(takes)}"
        f"{hint.get(effort, '')}; change reasoning_effort in this judge's or reviewer's settings")


def reasoning_headroom(family: str) -> int:
    """Output tokens a reasoning model gets beyond the asked answer budget (a setting, see warehouse.settings)."""
    default = {"reasoning": OPENAI_REASONING_HEADROOM}.get(family, 0)
    return settings.reasoning_headroom_tokens(default) if default else 0


def openai_plan(model: str, params: dict[str, Any], top_logprobs: int | None) -> RequestPlan:
    """The chat-completions parameters for an OpenAI model (the rename to max_completion_tokens is
    spelling, not recorded; a reasoning model's headroom is)."""
    sent = dict(params)
    if "max_tokens" in sent and "max_completion_tokens" not in sent:
        sent["max_completion_tokens"] = sent.pop("max_tokens")
    else:
        sent.pop("max_tokens", None)
    plan = RequestPlan(sent)
    if openai_family(model) != "reasoning":
        if "reasoning_effort" in sent:
            raise UnsupportedRequest(
                f"model {model!r} is not an OpenAI reasoning model and rejects reasoning_effort: remove "
                "reasoning_effort from this judge's or reviewer's settings (or choose an o-series/GPT-5 model)")
        return plan
    effort = sent.get("reasoning_effort")
    _check_effort(model, effort)
    no_reasoning = effort == "none"  # only GPT-5.1+ get here with it: sampling and logprobs as a chat model
    asked_logprobs = top_logprobs or sent.get("logprobs") or sent.get("top_logprobs")
    if asked_logprobs and not no_reasoning:
        raise UnsupportedRequest(
            f"model {model!r} is an OpenAI reasoning model, which returns no logprobs unless it does not reason: "
            f"run {_PROBE_SETTING} on a non-reasoning model (e.g. gpt-4.1) or on gpt-5.1 or later with "
            "reasoning_effort \"none\", or turn it off")
    for name in OPENAI_REASONING_FIXED:
        if name in sent and not (no_reasoning and name in OPENAI_NONE_SAMPLING):
            plan.dropped[name] = sent.pop(name)
    if "max_completion_tokens" in sent:
        answer = int(sent["max_completion_tokens"])
        sent["max_completion_tokens"] = answer + (0 if no_reasoning else reasoning_headroom("reasoning"))
        if sent["max_completion_tokens"] != answer:
            plan.changed["max_completion_tokens"] = sent["max_completion_tokens"]
    return plan


def _claude_version(model: str) -> tuple[int, int]:
    """(major, minor) from claude-<tier>-4-5[-date], claude-sonnet-4-20250514 (4.0) or claude-3-7-sonnet."""
    nums = [int(n) for n in re.findall(r"(?<![0-9])(\d{1,2})(?![0-9])", model.lower())]
    if not nums:
        return (0, 0)
    return (nums[0], nums[1] if len(nums) > 1 else 0)


def claude_one_sampler(model: str) -> bool:
    """Claude Opus 4.1 and 4.5+ take temperature or top_p, not both (the migration guide)."""
    version = _claude_version(model)
    return version >= (4, 5) or (version == (4, 1) and "opus" in model.lower())


def anthropic_plan(model: str, params: dict[str, Any], top_logprobs: int | None,
                   body_params: tuple[str, ...]) -> RequestPlan:
    """The Messages parameters: max_tokens always; the thinking budget on top of the answer budget."""
    if top_logprobs or params.get("logprobs") or params.get("top_logprobs"):
        raise UnsupportedRequest(f"Anthropic's API returns no logprobs (model {model!r}): run {_PROBE_SETTING} "
                                 "on an OpenAI or local model, or turn it off")
    if "reasoning_effort" in params:
        raise UnsupportedRequest(
            f"reasoning_effort is an OpenAI parameter; model {model!r} (Anthropic) thinks with "
            "thinking = {type = \"enabled\", budget_tokens = N >= 1024}: set that instead")
    answer = int(params.get("max_tokens", ANTHROPIC_DEFAULT_MAX_TOKENS))
    sent: dict[str, Any] = {"max_tokens": answer}
    plan = RequestPlan(sent)
    for name, value in params.items():
        if name == "max_tokens":
            continue
        if name in body_params:
            sent[name] = value
        else:  # e.g. seed: Anthropic has none (it still keys the request as a sample label)
            plan.dropped[name] = value
    thinking = sent.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") not in (None, "disabled"):
        if thinking.get("type") == "enabled":
            budget = thinking.get("budget_tokens")
            if not isinstance(budget, int) or budget < ANTHROPIC_MIN_THINKING_BUDGET:
                raise UnsupportedRequest(
                    f"model {model!r}: thinking.budget_tokens must be a whole number >= "
                    f"{ANTHROPIC_MIN_THINKING_BUDGET} (got {budget!r}): raise the thinking budget in this "
                    "judge's or reviewer's settings, or turn thinking off")
            # Thinking counts inside max_tokens: the asked answer budget comes on top of it.
            sent["max_tokens"] = answer + budget
            plan.changed["max_tokens"] = sent["max_tokens"]
        for name in ("temperature", "top_k"):
            if name in sent and not (name == "temperature" and sent[name] == 1):
                plan.dropped[name] = sent.pop(name)
        low, high = ANTHROPIC_THINKING_TOP_P
        if "top_p" in sent and not low <= sent["top_p"] <= high:
            plan.dropped["top_p"] = sent.pop("top_p")
    if "temperature" in sent and "top_p" in sent and claude_one_sampler(model):
        plan.dropped["top_p"] = sent.pop("top_p")  # the asked temperature is the caller's stated one
    return plan


def openai_output_bound(plan: RequestPlan) -> int:
    """The output tokens an OpenAI request may bill: `max_completion_tokens` as sent (a reasoning
    model's headroom included), or the largest model maximum when it sends none."""
    sent = plan.params.get("max_completion_tokens", plan.params.get("max_tokens"))
    return int(sent) if isinstance(sent, int | float) and sent > 0 else OPENAI_MAX_OUTPUT_TOKENS


def anthropic_output_bound(plan: RequestPlan) -> int:
    """Anthropic bills at most `max_tokens` output tokens, thinking included (it is always sent)."""
    return int(plan.params["max_tokens"])


def openai_reasoning_prior(model: str, params: dict[str, Any]) -> tuple[int, int, int] | None:
    """The prior reasoning tokens of one call (lo, mean, hi); None for a chat model (it does not reason)."""
    if openai_family(model) != "reasoning":
        return None
    effort = str(params.get("reasoning_effort") or "medium")
    lo, mid, hi = REASONING_PRIOR_TOKENS.get(effort, REASONING_PRIOR_TOKENS["high"])
    room = reasoning_headroom("reasoning")
    return min(lo, room), min(mid, room), min(hi, room)


def anthropic_thinking_prior(params: dict[str, Any]) -> tuple[int, int, int] | None:
    """The prior thinking tokens of one call: shares of its budget; None without thinking."""
    thinking = params.get("thinking")
    if not (isinstance(thinking, dict) and thinking.get("type") == "enabled"):
        return None
    budget = int(thinking.get("budget_tokens") or 0)
    lo, mid, hi = THINKING_PRIOR_SHARE
    return round(lo * budget), round(mid * budget), round(hi * budget)


# ---- Google Gemini (generateContent's generationConfig) ----------------------------------------------
# Gemini 2.5's output maximum (65,536 on every 2.5 model page; Gemini 3 Pro's too): also the bound of a
# request that names no output limit (the API's default maxOutputTokens is the model's maximum).
GEMINI_MAX_OUTPUT_TOKENS = 65_536
# Gemini 2.5 thinking budgets: (smallest positive budget, largest budget, 0 turns thinking off, thinks
# when not told). Longest prefix first: flash-lite before flash.
GEMINI_BUDGETS = {"gemini-2.5-flash-lite": (512, 24_576, True, False),
                  "gemini-2.5-flash": (1, 24_576, True, True),
                  "gemini-2.5-pro": (128, 32_768, False, True)}
GEMINI_3_LEVELS = {"pro": ("low", "high"), "flash": ("minimal", "low", "medium", "high")}
# Gemini 3 has no numeric budget: the room its thinking gets inside maxOutputTokens is 2.5 Pro's largest
# budget (a choice, not a documented figure; the answer budget comes on top, up to the output maximum).
GEMINI_3_THINKING_ROOM = 32_768
# Asked name -> generationConfig field (a rename is spelling, not recorded as a change).
GEMINI_FIELDS = {"temperature": "temperature", "top_p": "topP", "top_k": "topK", "seed": "seed",
                 "stop": "stopSequences", "presence_penalty": "presencePenalty",
                 "frequency_penalty": "frequencyPenalty"}
_GEMINI_THINKING_PARAMS = ("thinking_budget", "thinking_level")


def gemini_family(model: str) -> str:
    """"3-pro", "3-flash", a GEMINI_BUDGETS key (2.5), or "plain" (a model that does not think)."""
    name = model.removeprefix("models/").lower()
    if name.startswith("gemini-3"):
        return "3-flash" if "flash" in name else "3-pro"
    return next((k for k in GEMINI_BUDGETS if _is_named(name, k) or name.startswith(k)), "plain")


def _gemini_thinking(model: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, int]:
    """The thinkingConfig to send (None: the model's default) and the output tokens thinking may take."""
    family, budget, level = gemini_family(model), params.get("thinking_budget"), params.get("thinking_level")
    if family == "plain":
        if budget is not None or level is not None:
            raise UnsupportedRequest(f"model {model!r} does not think: remove thinking_budget/thinking_level "
                                     "from this judge's or reviewer's settings (or choose a Gemini 2.5 or 3 model)")
        return None, 0
    if family.startswith("3-"):
        if budget is not None:
            raise UnsupportedRequest(f"model {model!r} (Gemini 3) thinks by thinking_level, not thinking_budget: "
                                     f"set thinking_level to one of {', '.join(GEMINI_3_LEVELS[family[2:]])}")
        levels = GEMINI_3_LEVELS[family[2:]]
        if level is not None and level not in levels:
            raise UnsupportedRequest(f"model {model!r} takes thinking_level {', '.join(levels)} (got {level!r}); "
                                     "Gemini 3 cannot turn thinking off")
        return ({"thinkingLevel": level} if level is not None else None), GEMINI_3_THINKING_ROOM
    if level is not None:
        raise UnsupportedRequest(f"model {model!r} (Gemini 2.5) thinks by thinking_budget (tokens, -1 dynamic), "
                                 "not thinking_level: set thinking_budget instead")
    low, high, can_off, thinks = GEMINI_BUDGETS[family]
    if budget is None:
        return None, high if thinks else 0
    ok = isinstance(budget, int) and not isinstance(budget, bool) and (
        budget == -1 or low <= budget <= high or (budget == 0 and can_off))
    if not ok:
        off = "0 (off), " if can_off else ""
        why = "" if can_off else f"; {family} cannot turn thinking off"
        raise UnsupportedRequest(f"model {model!r}: thinking_budget must be -1 (dynamic), {off}or {low}..{high} "
                                 f"(got {budget!r}){why}: change thinking_budget in this judge's or reviewer's "
                                 "settings")
    return {"thinkingBudget": budget}, high if budget == -1 else budget


def gemini_plan(model: str, params: dict[str, Any], top_logprobs: int | None) -> RequestPlan:
    """The generationConfig for a Gemini model: the asked sampling parameters under Gemini's names, the
    thinking settings, and maxOutputTokens = the answer budget plus the room thinking takes inside it."""
    if top_logprobs or params.get("logprobs") or params.get("top_logprobs"):
        raise UnsupportedRequest(f"the Gemini API returns no logprobs for {model!r} (\"Logprobs is not enabled\"): "
                                 f"run {_PROBE_SETTING} on an OpenAI or local model, or turn it off")
    if "reasoning_effort" in params or "thinking" in params:
        raise UnsupportedRequest(f"model {model!r} (Gemini) thinks by thinking_budget (2.5: tokens, -1 dynamic, 0 "
                                 "off where allowed) or thinking_level (Gemini 3), not reasoning_effort or "
                                 "Claude's thinking: set that instead")
    config: dict[str, Any] = {}
    plan = RequestPlan(config)
    for name, value in params.items():
        if name in GEMINI_FIELDS:
            config[GEMINI_FIELDS[name]] = value
        elif name not in ("max_tokens", *_GEMINI_THINKING_PARAMS):
            plan.dropped[name] = value  # not a generationConfig field: sending it would be a 400
    thinking, room = _gemini_thinking(model, params)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    if isinstance(params.get("max_tokens"), int | float) and params["max_tokens"] > 0:
        answer = int(params["max_tokens"])
        config["maxOutputTokens"] = min(answer + room, max(answer, GEMINI_MAX_OUTPUT_TOKENS))
        if config["maxOutputTokens"] != answer:
            plan.changed["maxOutputTokens"] = config["maxOutputTokens"]
    return plan


def gemini_output_bound(plan: RequestPlan) -> int:
    """Gemini bills at most maxOutputTokens output tokens, thoughts included; the model's maximum without one."""
    sent = plan.params.get("maxOutputTokens")
    return int(sent) if isinstance(sent, int) and sent > 0 else GEMINI_MAX_OUTPUT_TOKENS


def gemini_thinking_prior(model: str, params: dict[str, Any]) -> tuple[int, int, int] | None:
    """The prior thought tokens of one call: shares of a fixed budget (as Claude's), the effort priors for
    dynamic thinking and Gemini 3's levels; None where the request does not think."""
    _thinking, room = _gemini_thinking(model, params)
    if room == 0:
        return None
    budget, level = params.get("thinking_budget"), params.get("thinking_level")
    if isinstance(budget, int) and budget > 0:
        return tuple(round(share * budget) for share in THINKING_PRIOR_SHARE)  # type: ignore[return-value]
    effort = {"minimal": "minimal", "low": "low", "medium": "medium"}.get(level or "", "high" if level else "medium")
    return tuple(min(v, room) for v in REASONING_PRIOR_TOKENS[effort])  # type: ignore[return-value]
