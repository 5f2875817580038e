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


# ---- Google Gemini generateContent ------------------------------------------------------------------
# From https://ai.google.dev/api/generate-content (fields), https://ai.google.dev/gemini-api/docs/thinking
# (2.5 Pro 128..32768 and never off; 2.5 Flash 0..24576; 2.5 Flash-Lite 0 or 512..24576, off unless asked;
# -1 dynamic; Gemini 3 by thinkingLevel, budget and level together a 400), structured output (responseJsonSchema
# needs responseMimeType; responseSchema is an OpenAPI subset without additionalProperties), and the API's
# "Logprobs is not enabled for models/…" on 2.5 and 3. Thoughts count inside maxOutputTokens (see model_rules.py).
_GEMINI_TOP = {"contents", "systemInstruction", "generationConfig", "safetySettings", "tools", "toolConfig",
               "cachedContent"}
_GEMINI_CONFIG = {"temperature", "topP", "topK", "candidateCount", "maxOutputTokens", "stopSequences", "seed",
                  "presencePenalty", "frequencyPenalty", "responseMimeType", "responseSchema", "responseJsonSchema",
                  "responseLogprobs", "logprobs", "thinkingConfig", "responseModalities", "mediaResolution"}
_GEMINI_MAX_OUTPUT = 65_536


def _gemini_error(status: str, message: str, code: int = 400) -> dict:
    return {"error": {"code": code, "message": message, "status": status}}


def gemini_thinking_range(model: str) -> tuple[int, int, bool, bool] | None:
    """(smallest budget, largest, 0 allowed, thinks unasked) for a 2.5 model; None for any other."""
    if model.startswith("gemini-2.5-flash-lite"):
        return 512, 24_576, True, False
    if model.startswith("gemini-2.5-flash"):
        return 1, 24_576, True, True
    if model.startswith("gemini-2.5-pro"):
        return 128, 32_768, False, True
    return None


def _has_key(schema: Any, key: str) -> bool:
    if isinstance(schema, dict):
        return key in schema or any(_has_key(v, key) for v in schema.values())
    return isinstance(schema, list) and any(_has_key(v, key) for v in schema)


def gemini_violation(model: str, body: dict) -> dict | None:
    """The 400 body Gemini answers this generateContent request with, or None if it is well formed."""
    for name in body:
        if name not in _GEMINI_TOP:
            return _gemini_error("INVALID_ARGUMENT", f'Invalid JSON payload received. Unknown name "{name}": '
                                                     "Cannot find field.")
    contents = body.get("contents")
    if not contents or any(c.get("role") not in ("user", "model") or not c.get("parts") for c in contents):
        return _gemini_error("INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified")
    config = body.get("generationConfig") or {}
    for name in config:
        if name not in _GEMINI_CONFIG:
            return _gemini_error("INVALID_ARGUMENT", f'Invalid JSON payload received. Unknown name "{name}" at '
                                                     "'generation_config': Cannot find field.")
    if "responseJsonSchema" in config and "responseSchema" in config:
        return _gemini_error("INVALID_ARGUMENT", "response_schema and response_json_schema cannot both be set.")
    if "responseJsonSchema" in config and config.get("responseMimeType") != "application/json":
        return _gemini_error("INVALID_ARGUMENT", "response_mime_type must be application/json with a schema.")
    if _has_key(config.get("responseSchema"), "additionalProperties"):
        return _gemini_error("INVALID_ARGUMENT", 'Invalid JSON payload received. Unknown name "additionalProperties" '
                                                 "at 'generation_config.response_schema': Cannot find field.")
    if config.get("responseLogprobs") and model.startswith(("gemini-2.5", "gemini-3")):
        return _gemini_error("INVALID_ARGUMENT", f"Logprobs is not enabled for models/{model}")
    limit = config.get("maxOutputTokens")
    if limit is not None and not (isinstance(limit, int) and 1 <= limit <= _GEMINI_MAX_OUTPUT):
        return _gemini_error("INVALID_ARGUMENT", f"max_output_tokens must be between 1 and {_GEMINI_MAX_OUTPUT}.")
    return _gemini_thinking_violation(model, config.get("thinkingConfig"))


def _gemini_thinking_violation(model: str, thinking: Any) -> dict | None:
    if not thinking:
        return None
    budget, level = thinking.get("thinkingBudget"), thinking.get("thinkingLevel")
    if budget is not None and level is not None:
        return _gemini_error("INVALID_ARGUMENT", "thinking_budget and thinking_level cannot both be set.")
    if model.startswith("gemini-3"):
        levels = ("minimal", "low", "medium", "high") if "flash" in model else ("low", "high")
        if level is not None and str(level).lower() not in levels:
            return _gemini_error("INVALID_ARGUMENT", f"Thinking level {level} is not supported for this model.")
        return None
    limits = gemini_thinking_range(model)
    if limits is None:
        return _gemini_error("INVALID_ARGUMENT", "Thinking is not supported for this model.")
    if level is not None:
        return _gemini_error("INVALID_ARGUMENT", "Thinking level is not supported for this model.")
    low, high, can_off, _ = limits
    if budget == 0 and not can_off:
        return _gemini_error("INVALID_ARGUMENT", "Budget 0 is invalid. This model only works in thinking mode.")
    if budget is not None and budget not in (-1, 0) and not low <= budget <= high:
        return _gemini_error("INVALID_ARGUMENT", f"The thinking budget {budget} is invalid. Please choose a value "
                                                 f"between {low} and {high}.")
    return None


def spend_gemini_thinking(model: str, body: dict, payload: dict, spent: int) -> None:
    """A thinking Gemini writes min(spent, budget) thought tokens first, inside maxOutputTokens: when the
    ceiling holds less than thoughts + answer, no text comes back and finishReason is MAX_TOKENS."""
    if not payload.get("candidates"):
        return
    config = body.get("generationConfig") or {}
    thinking = config.get("thinkingConfig") or {}
    budget, limits = thinking.get("thinkingBudget"), gemini_thinking_range(model)
    thinks = model.startswith("gemini-3") or (limits is not None and (limits[3] if budget is None else budget != 0))
    if not thinks:
        return
    if isinstance(budget, int) and budget > 0:
        spent = min(spent, budget)
    usage = payload.setdefault("usageMetadata", {})
    answer = int(usage.get("candidatesTokenCount") or 0)
    ceiling = config.get("maxOutputTokens")
    candidate = payload["candidates"][0]
    if ceiling is not None and spent + answer > int(ceiling):
        spent, answer = min(spent, int(ceiling)), 0
        candidate["content"] = {"role": "model"}  # the whole allowance went to thinking: no parts at all
        candidate["finishReason"] = "MAX_TOKENS"
        usage.pop("candidatesTokenCount", None)
    usage["thoughtsTokenCount"] = spent
    usage["totalTokenCount"] = int(usage.get("promptTokenCount") or 0) + answer + spent
