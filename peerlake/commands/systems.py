"""`peerlake systems`: the reviewer systems a study can name, with their options and defaults."""

import json

import typer

from peerlake.commands import command_group


@command_group("systems", listed=80)
def register(app: typer.Typer) -> None:
    @app.command("systems", rich_help_panel="Your data")
    def systems(name: str = typer.Argument(None, help="one system: its description and options")) -> None:
        """The reviewer systems a study can name (reviewing/systems): name them in a study's
        [[reviewers]] with `system = "..."`, `samples = n` and `options = { ... }`."""
        from peerlake.console import console, print_rows
        from peerlake.reviewing.systems import SYSTEMS, SystemOptionError, get_system

        names = [name] if name else list(SYSTEMS)
        try:
            impls = [get_system(n) for n in names]
        except SystemOptionError as exc:
            console.print(f"[red]{exc}[/]")
            raise typer.Exit(1) from None
        if name is None:
            print_rows([{"system": s.name, "version": s.version, "score": s.score_scale or "none",
                         "what it does": (s.description or "").split("\n")[0]} for s in impls],
                       title="reviewer systems (`peerlake systems NAME` for its options)")
            console.print('In a study: [[reviewers]] system = "mlr"  samples = 2  options = { appendix_agent = false }',
                          markup=False)  # Rich markup would read [reviewers] as a style and drop it
            return
        s = impls[0]
        console.print(f"[bold]{s.name}[/] v{s.version} · score {s.score_scale or 'none (null, never 0)'}")
        console.print(s.description or "", highlight=False)
        print_rows([{"option": k, "default": json.dumps(v)} for k, v in sorted(s.defaults.items())],
                   title=f"options of {s.name}")
