"""The loopback server's model rules: it answers a request shaped wrongly for its model family the way
the real API does (a 400 in that API's error shape), and a reasoning model spends output tokens on
reasoning before it answers, so a budget too small for both comes back empty and cut.

Written from the providers' documentation, not from llm_calls/providers/model_rules.py, so a test
against this server checks the providers' rules rather than repeating them:
- OpenAI reasoning models (o-series, GPT-5 except gpt-5-chat): https://platform.openai.com/docs/guides/reasoning;
  errors as the API words them (openai/openai-python#2104): "Unsupported parameter: 'max_tokens' is not
  supported with this model. Use 'max_completion_tokens' instead.", "Unsupported value: 'temperature'
  does not support 0 with this model. Only the default (1) value is supported.", no logprobs.
  A chat model answers `reasoning_effort` with "Unsupported parameter". Efforts by generation: the
  o-series low/medium/high, gpt-5 minimal/low/medium/high, gpt-5.1 none/low/medium/high (the API's own
  words, livekit/agents#3966), gpt-5.2 on also xhigh. At "none" GPT-5.1+ takes temperature, top_p and
  logprobs (https://platform.openai.com/docs/guides/latest-model, parameter compatibility) and reasons not at all.
- Anthropic Messages (https://docs.anthropic.com/en/api/messages): max_tokens required; extended
  thinking (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking): budget_tokens
  >= 1024 and < max_tokens, temperature only 1, no top_k, top_p in [0.95, 1]; Opus 4.1 and the 4.5
  models onwards reject temperature together with top_p (models/migration-guide).
"""

import re
from typing import Any

# A sampling parameter at its default is accepted by a reasoning model; any other value is a 400.
_OPENAI_DEFAULTS = {"temperature": 1, "top_p": 1, "presence_penalty": 0, "frequency_penalty": 0}
_NONE_ACCEPTS = ("temperature", "top_p", "logprobs", "top_logprobs")  # GPT-5.1+ at reasoning_effort "none"


def openai_efforts(model: str) -> tuple[str, ...]:
    m = re.match(r"^gpt-5(?:\.(\d+))?(?=$|-)", model or "")
    if m is None:
        return ("low", "medium", "high")
    minor = int(m.group(1) or 0)
    return (("minimal", "low", "medium", "high") if minor == 0 else ("none", "low", "medium", "high") if minor == 1
            else ("none", "low", "medium", "high", "xhigh"))


def _listed(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def is_openai_reasoning(model: str) -> bool:
    return bool(re.match(r"^(o\d+)(-|$)|^gpt-5(?!-chat)", model or ""))


def _claude_takes_one_sampler(model: str) -> bool:
    m = re.search(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?!\d)", model or "")
    if not m:
        return False
    major, minor = int(m.group(1)), int(m.group(2) or 0)
    return (major, minor) >= (4, 5) or ((major, minor) == (4, 1) and "opus" in model)


def _openai_error(message: str, param: str, code: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def _anthropic_error(message: str) -> dict:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def openai_violation(body: dict) -> dict | None:
    """The 400 body OpenAI answers this chat-completions request with, or None if it is well formed."""
    model = str(body.get("model") or "")
    if not is_openai_reasoning(model):
        if "reasoning_effort" in body:
            return _openai_error("Unsupported parameter: 'reasoning_effort' is not supported with this model.",
                                 "reasoning_effort", "unsupported_parameter")
        return None
    if "max_tokens" in body:
        return _openai_error("Unsupported parameter: 'max_tokens' is not supported with this model. "
                             "Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
    effort, efforts = body.get("reasoning_effort"), openai_efforts(model)
    if effort is not None and effort not in efforts:
        return _openai_error(f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this model. "
                             f"Supported values are: {_listed(efforts)}.", "reasoning_effort", "unsupported_value")
    accepted = _NONE_ACCEPTS if effort == "none" else ()
    for name in ("logprobs", "top_logprobs", "logit_bias"):
        if body.get(name) and name not in accepted:
            return _openai_error(f"Unsupported parameter: '{name}' is not supported with this model.",
                                 name, "unsupported_parameter")
    for name, default in _OPENAI_DEFAULTS.items():
        if name in body and body[name] != default and name not in accepted:
            return _openai_error(f"Unsupported value: '{name}' does not support {body[name]} with this model. "
                                 f"Only the default ({default}) value is supported.", name, "unsupported_value")
    return None


def anthropic_violation(body: dict) -> dict | None:
    """The 400 body Anthropic answers this messages request with, or None."""
    model = str(body.get("model") or "")
    if "max_tokens" not in body:
        return _anthropic_error("max_tokens: Field required")
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return _anthropic_error("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if body["max_tokens"] <= budget:
            return _anthropic_error("`max_tokens` must be greater than `thinking.budget_tokens`.")
        if "temperature" in body and body["temperature"] != 1:
            return _anthropic_error("`temperature` may only be set to 1 when thinking is enabled.")
        if "top_k" in body:
            return _anthropic_error("`top_k` is not supported when thinking is enabled.")
        if "top_p" in body and not 0.95 <= body["top_p"] <= 1:
            return _anthropic_error("`top_p` must be between 0.95 and 1 when thinking is enabled.")
    if "temperature" in body and "top_p" in body and _claude_takes_one_sampler(model):
        return _anthropic_error("`temperature` and `top_p` cannot both be specified for this model. "
                                "Please use only one.")
    return None


def spend_openai_reasoning(body: dict, payload: dict, spent: int) -> None:
    """A reasoning model's answer after `spent` reasoning tokens, inside max_completion_tokens: when
    the budget holds less than reasoning + answer, the answer is empty and finish_reason "length"."""
    if not is_openai_reasoning(str(body.get("model") or "")) or not payload.get("choices"):
        return
    if body.get("reasoning_effort") == "none":
        spent = 0  # GPT-5.1+ without reasoning: the answer alone
    usage = payload.setdefault("usage", {})
    answer = int(usage.get("completion_tokens") or 0)
    budget = body.get("max_completion_tokens")
    choice = payload["choices"][0]
    if budget is not None and spent + answer > int(budget):
        spent, answer = min(spent, int(budget)), 0
        choice["message"]["content"] = ""
        choice["finish_reason"] = "length"
    usage["completion_tokens"] = spent + answer
    usage["total_tokens"] = int(usage.get("prompt_tokens") or 0) + spent + answer
    usage["completion_tokens_details"] = {"reasoning_tokens": spent}


def spend_anthropic_thinking(body: dict, payload: dict, spent: int) -> None:
    """With thinking enabled, a thinking block of min(spent, budget) tokens comes first, inside max_tokens."""
    thinking = body.get("thinking")
    if not (isinstance(thinking, dict) and thinking.get("type") == "enabled") or "content" not in payload:
        return
    spent = min(spent, int(thinking["budget_tokens"]))
    usage: dict[str, Any] = payload.setdefault("usage", {})
    answer = int(usage.get("output_tokens") or 0)
    blocks = [{"type": "thinking", "thinking": "Let me weigh the paper first.", "signature": "fake-signature"}]
    if spent + answer > int(body["max_tokens"]):
        answer = 0
        payload["stop_reason"] = "max_tokens"
    else:
        blocks += [b for b in payload["content"] if b.get("type") == "text"]
    payload["content"] = blocks
    usage["output_tokens"] = spent + answer
