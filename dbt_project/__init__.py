"""The dbt project's folder. It is a package only so that `pip install .` ships the project (its
models and macros are package data) and orchestration/project.py finds it wherever it is installed."""

from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent
