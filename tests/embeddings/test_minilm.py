"""The numpy forward pass of all-MiniLM-L6-v2: shape, unit length, determinism, batching, and that
paraphrases land closer than unrelated sentences (a property, not a tuned number). Its agreement with an
ONNX export of the model (cosine > 0.999 on 20 sentences) is checked by benchmarks/embedding_check.py."""

import numpy as np
import pytest

from peerlake.llm_calls.embeddings.minilm import MiniLM


@pytest.fixture(scope="module")
def model(embedding_model_dir):
    return MiniLM(embedding_model_dir)


SENTENCES = ["The paper proposes a novel method for graph representation learning.",
             "A new approach to learning embeddings of graphs is introduced.",
             "The experiments lack comparisons with strong baselines.",
             "Baseline comparisons in the experimental section are missing.",
             "I had pasta for dinner yesterday."]


def test_shape_dtype_and_unit_length(model):
    v = model.encode(SENTENCES)
    assert v.shape == (5, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert model.encode([]).shape == (0, 384)


def test_deterministic_and_independent_of_batching(model):
    once, twice = model.encode(SENTENCES), model.encode(SENTENCES)
    assert np.array_equal(once, twice)
    # padded in a batch of 5 (sorted by length) vs alone: the mask makes padding invisible
    alone = np.stack([model.encode([s])[0] for s in SENTENCES])
    assert np.allclose(once, alone, atol=1e-5)
    # order in, order out
    assert np.allclose(model.encode(SENTENCES[::-1]), once[::-1], atol=1e-5)


def test_paraphrases_are_closer_than_unrelated_sentences(model):
    v = model.encode(SENTENCES)
    cos = v @ v.T
    assert cos[0, 1] > cos[0, 2] and cos[0, 1] > cos[0, 4]
    assert cos[2, 3] > cos[2, 0] and cos[2, 3] > cos[2, 4]


def test_a_long_text_is_truncated_not_refused(model):
    v = model.encode(["word " * 1000])
    assert v.shape == (1, 384) and np.isfinite(v).all()
