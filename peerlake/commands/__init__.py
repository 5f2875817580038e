"""CLI command groups, one module each; every module exposes register(app)."""

import importlib

MODULES = ("ingest", "budget", "report", "study", "validate", "audit", "costs", "systems", "marts", "view",
           "probe_judges", "plan_labels")


def register_all(app) -> None:
    for name in MODULES:
        try:
            module = importlib.import_module(f"peerlake.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"peerlake.commands.{name}":
                raise
            continue
        module.register(app)
