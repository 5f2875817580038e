"""`peerlake audit MART KEY` (or a figure id from the HTML report): the row, the models and events
behind it, as a tree; `--bundle FILE` writes the evidence; `peerlake audit check FILE` re-verifies
a bundle and recomputes the row from its events alone with the installed code (never the bundle's)."""

import json
from pathlib import Path

import typer

from peerlake.commands import command_group


def _check(path: str) -> None:
    from peerlake.audit.check import check_bundle
    from peerlake.dbt_project import PROJECT_DIR

    result = check_bundle(Path(path), project_dir=PROJECT_DIR)
    for p in result.problems:
        typer.echo(f"FAIL {p}", err=True)
    if result.problems:
        typer.echo(f"{path}: {len(result.problems)} integrity problem(s); nothing recomputed", err=True)
        raise typer.Exit(1)
    typer.echo(f"{path}: every SHA-256 in MANIFEST.json holds (fingerprint {result.fingerprint})")
    typer.echo(f"code: {result.code}")
    for d in result.code_diffs:
        typer.echo(f"  {d}")
    if result.error:
        typer.echo(f"FAIL recompute: {result.error}", err=True)
        raise typer.Exit(1)
    for m in result.mismatches:
        typer.echo(f"FAIL {m}", err=True)
    if result.mismatches:
        typer.echo("the recomputed row does NOT match the bundle's", err=True)
        raise typer.Exit(1)
    typer.echo(f"recomputed from the bundle's events with your installed code: the row matches "
               f"({len(result.recomputed)} columns, numbers within 1e-9 relative)")


@command_group("audit", listed=60)
def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Results")
    def audit(
        target: str = typer.Argument(..., help="a mart (reliability_validity, …), a figure id MART:KEY from "
                                               "the report, or `check`"),
        key: str = typer.Argument(None, help="the row's key, e.g. 'demo|<config>|all' (with `check`: the bundle)"),
        bundle: str = typer.Option(None, "--bundle", help="write the evidence bundle (zip) to this file"),
        calls: int = typer.Option(3, "--calls", help="model calls shown in full (all go into --bundle)"),
        rows: int = typer.Option(5, "--rows", help="input rows shown per model"),
        full: bool = typer.Option(False, "--full", help="print requests, responses and templates whole"),
        bytes_dir: str = typer.Option(None, "--bytes", help="write the manuscript package and PDF bytes here"),
        manifest_file: str = typer.Option(None, "--manifest",
                                          help="the dbt manifest.json to read the lineage from (default: the "
                                               "project's, parsed again when a model changed)"),
    ) -> None:
        """Trace a number to its exact inputs: models, input rows, events, calls, prompts, manuscripts."""
        if target == "check":
            if not key:
                typer.echo("usage: peerlake audit check BUNDLE.zip", err=True)
                raise typer.Exit(2)
            _check(key)
            return
        from rich.console import Console

        from peerlake.audit.bundle import write_bundle
        from peerlake.audit.keys import RowNotFound, parse_figure_id
        from peerlake.audit.lineage import ManifestMissing, load_manifest
        from peerlake.audit.trace import audit_row
        from peerlake.audit.tree import render
        from peerlake.dbt_project import PROJECT_DIR
        from peerlake.warehouse import EventLog, Lake, settings

        mart = target
        if key is None:
            try:
                mart, key = parse_figure_id(target)
            except ValueError as exc:
                typer.echo(f"error: {exc}; pass MART KEY", err=True)
                raise typer.Exit(2) from None
        db = settings.duckdb_path()
        if not db.is_file():
            typer.echo(f"error: no published marts at {db}; run `peerlake build` first", err=True)
            raise typer.Exit(1)
        try:
            if manifest_file:
                manifest, note = json.loads(Path(manifest_file).read_text()), None
            else:
                manifest, note = load_manifest(PROJECT_DIR, settings.dbt_target_dir())
            if note:
                typer.echo(f"warning: {note}", err=True)
            log = EventLog(Lake.default())
            result = audit_row(db, mart, key, log, manifest, limit=rows)
        except (KeyError, RowNotFound, ManifestMissing, OSError) as exc:
            typer.echo(f"error: {exc.args[0] if exc.args else exc}", err=True)
            raise typer.Exit(1) from None
        Console().print(render(result, log.blobs, max_calls=calls, full=full,
                               bytes_dir=Path(bytes_dir) if bytes_dir else None))
        if bundle:
            out, print_ = write_bundle(result, log.blobs, PROJECT_DIR, Path(bundle))
            typer.echo(f"evidence bundle written to {out} ({len(result.selection.events)} events), "
                       f"fingerprint (SHA-256 of its MANIFEST.json) {print_}; check it with: "
                       f"peerlake audit check {out}")
