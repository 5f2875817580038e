"""Maps the repository's top-level folders into one import package: `warehouse/` installs as
`peerlake.warehouse`, `judging/` as `peerlake.judging`, … (pyproject.toml's [tool.peerlake] folders).
Everything else about the distribution is in pyproject.toml; this file exists only because a package
search with a name prefix cannot be written there."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
FOLDERS = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["peerlake"]["folders"]

packages = ["peerlake", *find_packages(str(HERE), include=["peerlake.*"])]
for folder in FOLDERS:
    packages += [f"peerlake.{name}" for name in find_packages(str(HERE), include=[folder, f"{folder}.*"])]

setup(packages=packages, package_dir={"peerlake": "peerlake", **{f"peerlake.{f}": f for f in FOLDERS}})
