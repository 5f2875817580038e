"""CLI command groups, one module each: a module here registers its `register(app)` with
`@command_group(name, listed=N)`. `peerlake` imports every module of this package when it starts; one
that cannot be imported, or registers no group, stops it with what to do instead of being skipped."""

from collections.abc import Callable

import typer

from peerlake.warehouse.registry import DOCS, Registry, import_modules

Register = Callable[[typer.Typer], None]


def _import_groups() -> None:
    modules = import_modules(__name__, __path__)
    registered = {register.__module__ for register in COMMAND_GROUPS.values()}
    if silent := [m.__name__ for m in modules if m.__name__ not in registered]:
        raise ImportError(f"{', '.join(silent)} register(s) no command group: decorate the module's "
                          "`register(app)` with @command_group(NAME, listed=N) from peerlake.commands, or move "
                          f"the module out of peerlake/commands/ ({DOCS})")


COMMAND_GROUPS: Registry[Register] = Registry("command group", load=_import_groups)


def command_group(name: str, listed: int) -> Callable[[Register], Register]:
    """Register a module's `register(app)` as the command group `name`. Groups register their commands
    in `listed` order, after cli.py's own, and that order is their commands' order within a help panel."""
    return COMMAND_GROUPS.register(name, order=listed)


def register_all(app: typer.Typer) -> None:
    for register in COMMAND_GROUPS.values():
        register(app)
