"""`peerlake report`: write the reliability report page for the lake and optionally open it."""

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def report(open_: bool = typer.Option(False, "--open", help="open the page in a browser"),
               out: str = typer.Option("", "--out",
                                       help="where to write (default <lake>/reports/report.html)")) -> None:
        """Write a self-contained HTML page (tables and plots) over the marts of the lake."""
        from pathlib import Path

        from warehouse import settings
        from metrics.report import write_report

        target = Path(out) if out else settings.lake_root() / "reports" / "report.html"
        try:
            path = write_report(settings.duckdb_path(), target)
        except FileNotFoundError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"report written to {path}")
        if open_:
            import webbrowser

            if not webbrowser.open(path.resolve().as_uri()):
                typer.echo("no browser found; open the file above by hand", err=True)
