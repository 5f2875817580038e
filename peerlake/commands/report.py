"""`peerlake report`: write the reliability report pages of the lake (one per study) and optionally open one."""

import typer

from peerlake.commands import command_group


@command_group("report", listed=30)
def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Results")
    def report(study: str = typer.Option(None, "--study", help="only this study (default: every study)"),
               open_: bool = typer.Option(False, "--open", help="open the page in a browser"),
               out: str = typer.Option("", "--out",
                                       help="where to write, with --study "
                                            "(default <lake>/reports/<study>.html)")) -> None:
        """Write self-contained HTML pages (tables and plots) over the published marts, one per study:
        a study's page shows only its own papers and reviews."""
        from pathlib import Path

        from peerlake.report import write_report
        from peerlake.report.data import load, studies
        from peerlake.studies.files import unknown_study
        from peerlake.warehouse import EventLog, Lake, settings
        from peerlake.warehouse.ids import path_under
        from peerlake.warehouse.studies import check_name

        try:
            if study:
                check_name(study)  # it names the page <lake>/reports/<study>.html
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        db = settings.duckdb_path()
        published = studies(db)
        if study and (why := unknown_study(Lake.default(), study, also=published)) is not None:
            typer.echo(f"error: --study: {why}", err=True)  # a typo writes no empty page
            raise typer.Exit(2)
        names = [study] if study else published
        data = load(db) if names else None  # one read of the marts for every page
        if not names:
            typer.echo(f"error: no published marts with reviews at {db}; run `peerlake demo` or "
                       "`peerlake run STUDY` first", err=True)
            raise typer.Exit(1)
        written = []
        head = EventLog(Lake.default()).head()  # each page's footer: the event log's witness
        for name in names:
            try:  # a study id from the marts comes from an event: it names a page only as a plain name
                target = Path(out) if (out and study) else path_under(settings.lake_root() / "reports",
                                                                      f"{check_name(name)}.html")
            except ValueError as exc:
                typer.echo(f"warning: no report page for study {name!r}: {exc}", err=True)
                continue
            try:
                written.append(write_report(db, target, name, data, head))
            except FileNotFoundError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(1) from None
            typer.echo(f"report of study {name} written to {written[-1]}")
        if open_:
            import webbrowser

            if not webbrowser.open(written[0].resolve().as_uri()):
                typer.echo("no browser found; open the file above by hand", err=True)
