"""`peerlake view` (the call viewer: a page set written from the lake, served on 127.0.0.1), and
`peerlake calls` / `peerlake call ID`, the same in the terminal."""

from pathlib import Path

import typer

from peerlake.commands import command_group

RESULTS = "Results"
# The shared folder's front door. The script carries a link's #call/ID on to the viewer (a meta refresh
# drops it); the refresh is there for a browser without scripts.
REDIRECT = ("<!doctype html><meta charset='utf-8'>"
            "<script>location.replace('viewer/index.html' + location.hash)</script>"
            "<meta http-equiv='refresh' content='1; url=viewer/index.html'>"
            "<a href='viewer/index.html'>peerlake call viewer</a>\n")


def _site(root: Path, study: str | None):
    """The page set of the published marts, its catalog loaded (exits with the reason when nothing is published)."""
    from peerlake.audit.lineage import load_manifest
    from peerlake.dbt_project import PROJECT_DIR
    from peerlake.report.viewer.site import Site
    from peerlake.warehouse import Lake, settings

    def manifest() -> dict:
        return load_manifest(PROJECT_DIR, settings.dbt_target_dir())[0]

    lake = Lake.default()
    site = Site(root, lake, lake.duckdb_path, study, manifest)
    _catalog_or_exit(lambda: site.catalog)
    return site


def _check_study(study: str | None) -> None:
    """A --study that names no study of this lake (its files, the built-ins, the studies with published or
    replayed calls) is refused at the flag, with the closest name, before anything is written (exit 2)."""
    if not study:
        return
    from peerlake.studies.files import unknown_study
    from peerlake.warehouse import Lake, marts_reader

    lake = Lake.default()
    published: list[str] = []  # nothing published: the catalog says so next
    try:
        with marts_reader.published(lake.duckdb_path) as marts:
            for table in {"fct_llm_calls", "fct_call_replays"} & set(marts.tables()):  # paid for, or replayed
                published += [r["study_id"] for r in marts.rows(f"select distinct study_id from {table}")]
    except marts_reader.MartsUnreadable:
        pass
    if (why := unknown_study(lake, study, also=published)) is not None:
        typer.echo(f"error: --study: {why}", err=True)
        raise typer.Exit(2)


def _catalog_or_exit(load):
    from rich.markup import escape

    from peerlake.console import console
    from peerlake.report.viewer.catalog import NotPublished

    try:
        return load()
    except NotPublished as exc:
        console.print(f"[red]No calls to show:[/] {escape(exc.args[0])}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def _catalog(study: str | None):
    from peerlake.report.viewer.catalog import load_catalog
    from peerlake.warehouse import Lake

    return _catalog_or_exit(lambda: load_catalog(Lake.default().duckdb_path, study))


def _serve(site, port: int, open_browser: bool, route: str = "") -> None:
    import signal
    import threading
    import webbrowser

    from peerlake.console import console
    from peerlake.report.viewer.serve import start, url

    # SIGTERM stops the server as Ctrl-C does (a service manager's stop, `kill`)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server = start(site, port)
    except OSError:  # the port is taken: any free one
        server = start(site, 0)
    address = url(server) + (f"#{route}" if route else "")  # a page of the viewer: #label
    try:  # from here on: a Ctrl-C the moment the URL is printed still stops it cleanly
        console.print(f"Call viewer: [bold]{address}[/] (Ctrl-C stops it)", soft_wrap=True)
        if open_browser:
            webbrowser.open(address)
        threading.Event().wait()
    except KeyboardInterrupt:
        console.print("stopped")
    finally:
        server.shutdown()
        server.server_close()


@command_group("view", listed=100)
def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel=RESULTS)
    def view(
        study: str = typer.Option(None, "--study", help="only the calls this study paid for or replayed"),
        out: str = typer.Option(None, "--out", help="write the whole page set (every call's page, the report "
                                "pages) into this folder for sharing, and exit"),
        port: int = typer.Option(8600, "--port", help="the port on 127.0.0.1 (a free one when it is taken)"),
        no_open: bool = typer.Option(False, "--no-open", help="do not open a browser"),
    ) -> None:
        """Browse every model call: filters (study, paper, configuration, purpose, model, status, replayed
        or paid), each call's messages as sent, response, parse result, usage, cost, latency and attempts;
        judged reviews with their units highlighted; system runs step by step; a report figure's calls; what
        changed since the build before and between each judge panel's judges (`peerlake diff`), the reviews
        that moved most linked to both judgments' calls."""
        from peerlake.console import console
        from peerlake.report.viewer.site import copy_reports
        from peerlake.warehouse import settings

        _check_study(study)
        if out is None:
            # beside the lake's report pages (ROOT/reports/), so their audit keys' links find the viewer
            site = _site(settings.lake_root(), study)
            site.write_lists()
            cat = site.catalog
            scope = f" ({sum(map(cat.in_scope, cat.calls.values())):,} of them in study {study})" if study else ""
            console.print(f"{len(cat.calls):,} calls published{scope}; page set in {site.viewer}", soft_wrap=True)
            _serve(site, port, not no_open)
            return
        root = Path(out).resolve()
        if root == settings.lake_root().resolve() or settings.lake_root().resolve() in root.parents:
            console.print("[red]--out must be a folder outside the lake[/]")
            raise typer.Exit(2)
        site = _site(root, study)  # first: nothing is written when nothing is published
        root.mkdir(parents=True, exist_ok=True)
        reports = copy_reports(settings.lake_root() / "reports", root, study)
        site.write_lists()
        n = site.write_all()
        (root / "index.html").write_text(REDIRECT, encoding="utf-8")
        console.print(f"Wrote the call viewer to [bold]{root / 'index.html'}[/] ({n:,} detail pages, "
                      f"{len(reports)} report page(s)); open it in a browser, no server needed.", soft_wrap=True)

    @app.command(rich_help_panel=RESULTS)
    def calls(
        study: str = typer.Option(None, "--study", help="calls this study paid for or replayed"),
        paper: str = typer.Option(None, "--paper", help="a paper id"),
        model: str = typer.Option(None, "--model", help="MODEL or PROVIDER/MODEL"),
        purpose: str = typer.Option(None, "--purpose", help="review, judge_depth_units, … (or a system step)"),
        status: str = typer.Option(None, "--status", help="ok or error"),
        limit: int = typer.Option(50, "--limit", help="calls per page"),
        page: int = typer.Option(1, "--page", help="which page (1: the newest calls)"),
    ) -> None:
        """The model calls, newest first, a page at a time; `peerlake call ID` shows one in full."""
        from rich.table import Table
        from rich.text import Text

        from peerlake.console import console
        from peerlake.report.viewer.index import index_rows, matches

        _check_study(study)
        rows = [r for r in index_rows(_catalog(None))
                if matches(r, study=study, paper=paper, model=model, purpose=purpose, status=status)]
        first = (max(page, 1) - 1) * limit
        shown = rows[first:first + limit]
        table = Table(title=f"calls {first + 1 if shown else 0}–{first + len(shown)} of {len(rows):,}, newest first")
        table.add_column("call", no_wrap=True, min_width=26)  # an id to copy into `peerlake call`, whole
        table.add_column("at (UTC)", no_wrap=True, min_width=19)  # one line: a folded time reads badly
        for col in ("purpose", "paper", "sample", "model", "status", "tokens in/out", "cost USD", "ms",
                    "paid by", "replayed for"):
            table.add_column(col, overflow="fold")
        for r in shown:
            cells = (r["id"], _short_time(r["at"]), r["purpose"] + (f" · {r['step']}" if r["step"] else ""),
                     r["paper"] or "—", r["sample"], r["model"], r["status"], f"{r['tin'] or 0}/{r['tout'] or 0}",
                     "—" if r["cost"] is None else f"{r['cost']:.6f}", r["ms"], r["paid"] or "—",
                     ", ".join(r["replayed"]))
            table.add_row(*(Text(str(v)) for v in cells))  # Text: the lake's strings are never markup
        console.print(table)
        if first + limit < len(rows):
            console.print(f"next page: --page {page + 1}", markup=False)

    @app.command(rich_help_panel=RESULTS)
    def call(call_id: str = typer.Argument(..., help="an llm_call event id, or its unique start")) -> None:
        """One model call in full: its messages as sent, the response, the parse result, usage, cost,
        latency and every attempt at its request."""
        from peerlake.console import console
        from peerlake.report.viewer.details import call_detail
        from peerlake.warehouse import Lake
        from peerlake.warehouse.blobs import blob_store

        cat = _catalog(None)
        found = [i for i in cat.calls if i.startswith(call_id)] if call_id not in cat.calls else [call_id]
        if len(found) != 1:
            console.print(f"[red]{len(found)} calls have an id starting {call_id!r}[/]" if found else
                          f"[red]no call {call_id!r} among the published calls[/] (`peerlake calls` lists them)",
                          markup=True)
            raise typer.Exit(1)
        _print_call(console, call_detail(cat, blob_store(Lake.default()), found[0]))


def _short_time(at: str) -> str:
    """2026-12-04T23:29:17.139850+00:00 → 2026-12-04 23:29:17 (the index's times are UTC)."""
    return at[:19].replace("T", " ") if len(at) >= 19 and at[10:11] == "T" else at


def _print_call(console, c: dict) -> None:
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    meta = Table.grid(padding=(0, 2))
    step = f" · {c['step']}" if c["step"] else ""
    error = f" · {c['error']}" if c["error"] else ""
    usage = ", ".join(f"{k} {v}" for k, v in c["usage"].items() if v is not None)
    for k, v in (("call", c["id"]), ("at", c["at"]), ("purpose", c["purpose"] + step),
                 ("paper", c["paper"]), ("sample", c["sample"]), ("model", f"{c['provider']}/{c['model']}"),
                 ("template", c["template"]), ("reviewer config", c["reviewer_config"]), ("params", c["params"]),
                 ("request key", c["request_key"]), ("status", c["status"] + error),
                 ("attempt", c["attempt"]), ("usage", usage),
                 ("cost USD", f"{c['cost_usd']} ({c['cost_status']})"), ("latency ms", f"{c['latency_ms']:.0f}"),
                 ("paid by", c["paid_by"]), ("replayed for", ", ".join(c["replayed_in"]) or None)):
        if v is not None:
            meta.add_row(Text(k, style="bold"), Text(str(v)))  # Text: the lake's strings are never markup
    console.print(meta)
    if c["request_problem"]:
        console.print(Text(c["request_problem"], style="red"))
    for m in c["messages"]:
        console.print(Panel(Text(m["content"]), title=Text(m["role"]), title_align="left"))
    console.print(Panel(Text(c["response"] if c["response"] is not None else c["response_problem"] or "—"),
                        title="response (as received)", title_align="left"))
    parse = c["parse"]
    console.print(Panel(Text(parse["value"] if parse["ok"] else parse["note"]), title="parse result",
                        title_align="left"))
    attempts = Table(title="attempts at this request")
    for col in ("call", "at", "attempt", "status", "error", "ms"):
        attempts.add_column(col)
    for a in c["attempts"]:
        attempts.add_row(*(Text(str(a[k] if a[k] is not None else "—")) for k in ("id", "at", "attempt", "status",
                                                                                 "error", "ms")))
    console.print(attempts)
