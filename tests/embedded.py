"""Which embedded model an end-to-end machinery test runs on.

The reviewer systems' and the contradiction benchmark's *_model.py tests check the machinery (call
sequences, prompts within the context by the model's own tokenizer, ok-or-null-with-a-reason records,
replay), never what a model answers. They run on the smaller embedded model, Qwen2.5-Coder-0.5B: it
shares the default 1.5B model's tokenizer and chat template, so every prompt-fits-the-context check holds
as written, and on one core it reads a prompt ~2.2x and writes ~1.7x as fast (measured by
benchmarks/local_model_speed.py). The default reviewer's own tests (the demo, the review-score schema,
the local judges) keep the 1.5B model; the revision crossover's test gives it Selector "H" only.
`PEERLAKE_TEST_MODEL=<embedded model name>` runs the machinery tests on another embedded model.

Every test that runs or tokenizes with an embedded model asks `require_model()` first: without
llama.cpp or the model file it skips (a bare `pytest` on a machine that never ran `make model`), except
under `make test`, which installs both and sets PEERLAKE_REQUIRE_MODEL=1: there a missing model fails
rather than letting the model tests pass by not running."""

import importlib.util
import os

import pytest

from peerlake.warehouse import settings


def machinery_model() -> str:
    name = os.environ.get("PEERLAKE_TEST_MODEL") or settings.LOCAL_SMALL_MODEL_NAME
    settings.local_model(name)  # an unknown name: KeyError listing the known ones
    return name


def require_model(*names: str) -> None:
    """Skip (or fail, under `make test`) unless llama.cpp and each named embedded model (default: the
    default model) are installed."""
    missing = [] if importlib.util.find_spec("llama_cpp") is not None else ["llama-cpp-python"]
    missing += [str(settings.local_model_path(n)) for n in (names or (None,))
                if not settings.local_model_path(n).is_file()]
    if missing:
        unavailable(f"the embedded model is not installed ({', '.join(missing)} missing): run `make model`")


def unavailable(message: str) -> None:
    """A model the test needs is not installed: skip, or fail under `make test` (PEERLAKE_REQUIRE_MODEL=1)."""
    if os.environ.get("PEERLAKE_REQUIRE_MODEL") == "1":
        pytest.fail(message)
    pytest.skip(message)
