"""Counting and cutting text in a model's tokens, offline.

For provider "local" the embedded GGUF model's own tokenizer is used (llama.cpp, vocabulary only:
~0.7 s to load once per process, no weights in memory), so a token budget is exact for the model
that reads the text. For every other provider the count is an approximation of 4 characters per
token: the usual rule of thumb for English prose under OpenAI's and Anthropic's BPE tokenizers
(tiktoken would be exact for OpenAI models but downloads its encodings on first use, which an
offline machine cannot do). Every result says which method produced it, so a review can record it.
"""

import functools
import math
import threading
from typing import Any

from peerlake.warehouse import settings

CHARS_PER_TOKEN = 4  # the approximation for providers whose tokenizer is not available offline
APPROX_METHOD = f"approx:{CHARS_PER_TOKEN}chars"

_LOCK = threading.Lock()  # llama.cpp objects are not thread-safe; the gateway calls from threads


def method(provider: str, model: str | None = None) -> str:
    """How `count_tokens`/`truncate_tokens` count for this provider: "llama.cpp:<model file>" or
    "approx:4chars"."""
    if provider == "local":
        return f"llama.cpp:{_local_path(model).name}"
    return APPROX_METHOD


@functools.lru_cache(maxsize=2)
def _vocab(path: str) -> Any:
    """The embedded model's tokenizer (vocabulary only), loaded once per model file."""
    import os
    import sys

    from llama_cpp import Llama

    # A vocabulary-only load has no context, and llama.cpp warns about it on the C stderr ("n_ctx_seq >
    # n_ctx_train (0) -- possible training context overflow") whatever `verbose` says: a false alarm in
    # the middle of a user's progress bars, so the C stderr is silenced for the load only.
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            return Llama(model_path=path, vocab_only=True, verbose=False)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _local_path(model: str | None):
    """The file the local provider loads for `model` (an unknown name: the default model's tokenizer,
    the provider refuses the call itself)."""
    return settings.local_model_path(model if model in settings.LOCAL_MODELS else None)


def _local_vocab(model: str | None = None) -> Any:
    path = _local_path(model)
    if not path.is_file():
        raise FileNotFoundError(f"local model file {path} is missing; run `make model`")
    return _vocab(str(path))


def _local_tokens(text: str, model: str | None = None) -> list[int]:
    llm = _local_vocab(model)
    with _LOCK:
        # no BOS and no special tokens: the text is a piece of a prompt, not a whole one
        return llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)


def count_tokens(text: str, provider: str, model: str | None = None) -> int:
    """Tokens of `text` for this provider's model (exact for "local", approximate otherwise)."""
    if provider == "local":
        return len(_local_tokens(text, model))
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def truncate_tokens(text: str, n: int, provider: str, model: str | None = None) -> tuple[str, str]:
    """`text` cut to its first `n` tokens (unchanged when it has no more), and the method used.
    The original LLM-Review pipeline cuts the token list the same way (no word-boundary rounding)."""
    if n < 0:
        raise ValueError(f"token budget {n} < 0")
    how = method(provider, model)
    if provider != "local":
        return text[: n * CHARS_PER_TOKEN], how
    tokens = _local_tokens(text, model)
    if len(tokens) <= n:
        return text, how
    llm = _local_vocab(model)
    with _LOCK:
        raw = llm.detokenize(tokens[:n])
    # a cut can fall inside a multi-byte character: drop the partial bytes, never invent any
    return raw.decode("utf-8", errors="ignore"), how
