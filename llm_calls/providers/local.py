"""The embedded GGUF model through llama-cpp-python, in this process.

llama.cpp contexts are not thread-safe, so every use goes through one process-wide lock; on a 2-core
machine two concurrent generations would only thrash the CPU anyway.

Known llama.cpp behaviour (STACK_NOTES): JSON-schema output is always valid JSON, but integer
`minimum`/`maximum` are not enforced (use `enum`) and unbounded strings/arrays can run to
`max_tokens` (set `maxLength`/`maxItems`) — `schema_warnings` flags both. "10" is two tokens ("1",
"0"), so a first-token probability of "1" mixes 1 and 10. Top logprobs are the model's distribution
before the grammar constrains sampling. The prompt-prefix cache is kept between calls for speed (a
4k-token prompt costs ~55 s to evaluate at ~73 tok/s), so a same-seed call at temperature > 0 is not
bit-reproducible; reproducibility comes from replaying the recorded event instead.

A run asked to stop (Ctrl-C: llm_calls.stopping) stops a generation or a prompt's reading inside the
forward pass it is in (llama.cpp's abort callback: well under a second, where a batch of n_batch prompt
tokens takes 7–30 s on 2 cores): the call raises CallsStopped, nothing is recorded, and the next run
makes it again. An answer completed before
the stop is recorded as usual.
"""

import atexit
import logging
import threading
from pathlib import Path
from typing import Any

from peerlake.llm_calls.progress import notice
from peerlake.llm_calls.prompt_cache import plain_messages
from peerlake.llm_calls.providers.base import FatalProviderError, Provider, ProviderResponse, ProviderUnavailable
from peerlake.llm_calls.providers.image_parts import check_accepted
from peerlake.llm_calls.providers.openai_chat import parse_chat_completion
from peerlake.llm_calls.stopping import CallsStopped, stop_requested
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse import settings

log = logging.getLogger(__name__)

_LOCK = threading.Lock()  # guards model loading and every generation
_MODELS: dict[tuple, Any] = {}
_PARAMS = ("temperature", "top_p", "top_k", "min_p", "max_tokens", "stop", "seed", "repeat_penalty",
           "presence_penalty", "frequency_penalty")

MISSING_HINT = "run `make model` (or `python -m peerlake.llm_calls.local_model`)"


def to_plain(obj: Any) -> Any:
    """numpy scalars (llama's logprobs) → Python numbers, recursively, so the response is JSON-able."""
    if isinstance(obj, dict):
        return {k: to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    return obj


# llama.cpp refuses a grammar whose repetitions exceed its threshold (2,000 repeated rules; a JSON
# string character is two), and llama-cpp-python then crashes the process (a segfault, measured at
# maxLength 1,100; 1,000 works). Longer string bounds are lowered to this one in the grammar only: the
# request (and its key) keeps the schema it was given, and a caller that needs a longer answer must
# check the length it got (judging.benchmark does).
GRAMMAR_MAX_STRING = 1000


def grammar_schema(schema: Any) -> Any:
    """The schema with every string maxLength above GRAMMAR_MAX_STRING lowered to it."""
    if isinstance(schema, dict):
        out = {k: grammar_schema(v) for k, v in schema.items()}
        if out.get("type") == "string" and isinstance(out.get("maxLength"), int) \
                and out["maxLength"] > GRAMMAR_MAX_STRING:
            out["maxLength"] = GRAMMAR_MAX_STRING
        return out
    if isinstance(schema, list):
        return [grammar_schema(v) for v in schema]
    return schema


def schema_warnings(schema: Any, where: str = "$") -> list[str]:
    """Schema features llama.cpp's grammar does not enforce."""
    out: list[str] = []
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("integer", "number") and ({"minimum", "maximum"} & schema.keys()) and "enum" not in schema:
            out.append(f"{where}: minimum/maximum are not enforced by llama.cpp; use enum")
        if kind == "string" and "maxLength" not in schema and "enum" not in schema:
            out.append(f"{where}: unbounded string can run to max_tokens; set maxLength")
        if kind == "array" and "maxItems" not in schema:
            out.append(f"{where}: unbounded array can run to max_tokens; set maxItems")
        for key, sub in (schema.get("properties") or {}).items():
            out.extend(schema_warnings(sub, f"{where}.{key}"))
        if isinstance(schema.get("items"), dict):
            out.extend(schema_warnings(schema["items"], f"{where}[]"))
    return out


def stop_between_tokens(llm: Any) -> Any:
    """Make a loaded Llama stop once the run is asked to stop: a prompt's reading inside the batch it is in,
    through llama.cpp's abort callback (the compute graph asks it between nodes, so a batch of n_batch
    tokens, tens of seconds on a loaded 2-core machine, stops in well under a second), and a generation
    between two tokens. An aborted llama_decode raises RuntimeError, read here as the stop
    it is. llama.cpp cannot be interrupted from a logits processor (a C callback swallows the exception),
    so the instance's own two methods are wrapped; an abandoned generation leaves the context as far as it
    evaluated, and Llama.eval drops the cache past its token count before it evaluates again. Returns `llm`."""
    generate, evaluate = llm.generate, llm.eval

    def stopped(where: str) -> CallsStopped:
        return CallsStopped(f"the embedded model stopped {where}: the run was asked to stop; the call is made "
                            "again next time")

    # generate reads the prompt through eval, then evals each token it writes: which one a stop cut
    writing = [False]

    def checked_generate(*args, **kwargs):
        writing[0] = False
        for token in generate(*args, **kwargs):
            writing[0] = True
            if stop_requested():
                raise stopped("between two tokens")
            yield token

    ctx = getattr(getattr(llm, "_ctx", None), "ctx", None)
    abort = null = None
    if ctx is not None:
        import llama_cpp

        # Asked by the compute graph's first thread between nodes. Set only while a prompt is read: each ask
        # takes the GIL, ~5 % of a written token's time, and a token is a stop point of its own already.
        # Kept on the instance: ctypes holds no reference, and a collected callback would crash a decode.
        abort = llm._peerlake_abort = llama_cpp.ggml_abort_callback(lambda _data: stop_requested())
        null = llama_cpp.ggml_abort_callback(0)

    def checked_eval(tokens) -> None:
        tokens = list(tokens)
        step = max(1, int(getattr(llm, "n_batch", 512)))
        where = "between two tokens" if writing[0] else "while reading the prompt"
        guarded = abort is not None and len(tokens) > 1
        if guarded:
            llama_cpp.llama_set_abort_callback(ctx, abort, None)
        try:
            for i in range(0, len(tokens), step):
                if stop_requested():
                    raise stopped(where)
                try:
                    evaluate(tokens[i:i + step])
                except RuntimeError:
                    if stop_requested():  # llama_decode aborted by the callback
                        raise stopped(where) from None
                    raise
        finally:
            if guarded:
                llama_cpp.llama_set_abort_callback(ctx, null, None)

    llm.generate, llm.eval = checked_generate, checked_eval
    return llm


def _close_all() -> None:
    # Freed before interpreter teardown: Llama.__del__ at exit finds llama_cpp's globals already None.
    with _LOCK:
        for llm in _MODELS.values():
            llm.close()
        _MODELS.clear()


class LocalProvider(Provider):
    name = "local"
    free = True

    def __init__(self, model_path=None, n_threads: int | None = None, n_ctx: int | None = None):
        # A path given here serves every request (tests); otherwise each request's model name picks its
        # embedded model (settings.LOCAL_MODELS), so a label never names a model that did not answer.
        self.fixed_path = model_path
        self.model_path = model_path or settings.local_model_path()
        self.n_threads = n_threads or settings.local_threads()
        self.n_ctx = n_ctx or settings.local_context_tokens()
        self._warned: set[str] = set()

    def path_for(self, model: str | None):
        """The GGUF file that answers for `model`; an unknown name fails before anything loads."""
        if self.fixed_path is not None:
            return self.fixed_path
        try:
            return settings.local_model_path(model)
        except KeyError as exc:
            raise FatalProviderError(str(exc.args[0]), error_type="UnknownLocalModel") from exc

    def ensure_ready(self, model: str | None = None) -> None:
        try:
            import llama_cpp  # noqa: F401
        except ImportError as exc:
            raise ProviderUnavailable(f"llama-cpp-python is not installed ({exc}); {MISSING_HINT}") from exc
        path = self.path_for(model) if model is not None else self.model_path
        if not path.is_file():
            raise ProviderUnavailable(f"local model file {path} is missing; {MISSING_HINT}")

    def _llama(self, logits_all: bool, path=None) -> Any:
        """Shared per process; the logits_all one (~0.6 MB per context token) only when logprobs are asked."""
        path = path or self.model_path
        key = (str(path), self.n_ctx, self.n_threads, logits_all)
        if key not in _MODELS:
            from llama_cpp import Llama

            if not _MODELS:
                atexit.register(_close_all)
            # Loading takes seconds to minutes before the first answer: say so, or the run looks hung.
            notice(f"loading the embedded model {Path(path).name} ({Path(path).stat().st_size / 1e9:.1f} GB) "
                   f"for the first local call")
            # n_threads_batch too: left unset, llama.cpp reads prompts on every core whatever n_threads
            # says, and its threads spin-wait on a core another process is using.
            _MODELS[key] = stop_between_tokens(Llama(model_path=str(path), n_ctx=self.n_ctx,
                                                     n_threads=self.n_threads, n_threads_batch=self.n_threads,
                                                     logits_all=logits_all, verbose=False))
        return _MODELS[key]

    def _warn_schema(self, schema: dict) -> None:
        for warning in schema_warnings(schema):
            if warning not in self._warned:
                self._warned.add(warning)
                log.warning("response schema: %s", warning)

    def complete(self, req: LlmRequest) -> ProviderResponse:
        check_accepted(self.name, req)  # text-only: a request with page images fails clearly, before loading
        path = self.path_for(req.model)
        self.ensure_ready(req.model)
        kwargs: dict[str, Any] = {k: v for k, v in req.params.items() if k in _PARAMS}
        unknown = sorted(set(req.params) - set(_PARAMS))
        if unknown:
            raise FatalProviderError(f"local provider does not support params {unknown}",
                                     error_type="BadParams")
        if req.response_schema is not None:
            self._warn_schema(req.response_schema)
            kwargs["response_format"] = {"type": "json_object", "schema": grammar_schema(req.response_schema)}
        if req.top_logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = req.top_logprobs
        with _LOCK:
            llm = self._llama(logits_all=bool(req.top_logprobs), path=path)
            try:
                raw = llm.create_chat_completion(messages=plain_messages(req.messages), **kwargs)
            except ValueError as exc:  # e.g. prompt longer than n_ctx: the same request fails again
                raise FatalProviderError(str(exc), error_type="LlamaValueError") from exc
        return parse_chat_completion(to_plain(raw))
