"""Which embedded model an end-to-end machinery test runs on.

The reviewer systems' and the contradiction benchmark's *_model.py tests check the machinery (call
sequences, prompts within the context by the model's own tokenizer, ok-or-null-with-a-reason records,
replay), never what a model answers. They run on the smaller embedded model, Qwen2.5-Coder-0.5B: it
shares the default 1.5B model's tokenizer and chat template, so every prompt-fits-the-context check holds
as written, and on one core it reads a prompt ~2.8x and writes ~2x as fast (measured here, AVX-512
build: 87 vs 31 prompt tokens/s, 9.0 vs 4.6 generated tokens/s). The default reviewer's own tests (the
demo, the review-score schema, the local judges) keep the 1.5B model; the revision crossover's test
gives it Selector "H" only.
`PEERLAKE_TEST_MODEL=<embedded model name>` runs the machinery tests on another embedded model."""

import os

from warehouse import settings


def machinery_model() -> str:
    name = os.environ.get("PEERLAKE_TEST_MODEL") or settings.LOCAL_SMALL_MODEL_NAME
    settings.local_model(name)  # an unknown name: KeyError listing the known ones
    return name
