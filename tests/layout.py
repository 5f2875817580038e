"""The repository's folders as the one package they install as, for tools that read packages from disk.

setuptools maps `warehouse/` to `peerlake.warehouse` (setup.py, pyproject.toml's [tool.peerlake] folders);
an editable install does it with an import hook, which import-linter, reading files, cannot see. This
builds `<dest>/peerlake/`, a tree of symlinks (peerlake/'s own entries, and each folder as
peerlake/<folder>) that it follows. `python -m tests.layout DEST` makes one and prints DEST."""

import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def folders(repo: Path = REPO) -> list[str]:
    """The folders that install as subpackages of peerlake, as pyproject.toml lists them."""
    return tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["peerlake"]["folders"]


def package_view(repo: Path, dest: Path) -> Path:
    """`dest`/peerlake, the installed layout of `repo` as symlinks; returns `dest` (put it first on
    PYTHONPATH)."""
    pkg = dest / "peerlake"
    pkg.mkdir(parents=True, exist_ok=True)
    for entry in (repo / "peerlake").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry.resolve(), target_is_directory=entry.is_dir())
    for folder in folders(repo):
        (pkg / folder).symlink_to((repo / folder).resolve(), target_is_directory=True)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.layout DEST")
    print(package_view(REPO, Path(sys.argv[1])))
