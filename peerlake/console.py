"""What every command prints: tables, failed gates and steps, and where the pipeline's log goes."""

from datetime import UTC

from rich.console import Console
from rich.table import Table

from peerlake.warehouse import settings

console = Console()
if not console.is_terminal:  # piped or in CI: don't squeeze tables into 80 columns
    console = Console(width=160)


def fmt(v) -> str:
    return "" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))


def print_rows(rows: list[dict], title: str | None = None, grid: bool = False) -> None:
    """Rows as a table; too wide for the terminal, one "column: value" block per row, unless `grid` (a
    list of many short rows reads better as a table whose long cells wrap)."""
    if not rows:
        console.print("(no rows)")
        return
    cols = list(rows[0])
    width = sum(max(len(str(c)), *(len(fmt(r[c])) for r in rows)) + 3 for c in cols)
    if width > console.width and not grid:  # too wide to read as a grid: one "column: value" block per row
        for i, r in enumerate(rows, 1):
            console.rule(f"row {i}" if not title else f"{title} · row {i}")
            pad = max(len(str(c)) for c in cols)
            for c in cols:
                console.print(f"{str(c).ljust(pad)}  {fmt(r[c])}", highlight=False, markup=False)
        return
    table = Table(title=title, show_lines=False)
    for col in cols:
        table.add_column(str(col), overflow="fold")
    for r in rows:
        table.add_row(*[fmt(v) for v in r.values()])
    console.print(table)


def embedded_caveat(models) -> None:
    """The report page's "test numbers" note, in the terminal: when any of `models` is an embedded one."""
    local = sorted(set(map(str, models)) & set(settings.LOCAL_MODELS))
    if local:
        console.print(f"[bold yellow]Test numbers, not findings:[/] these ran on the embedded local model "
                      f"({', '.join(local)}), which is there to test the machinery without an API key. For numbers "
                      "that mean something: [bold]peerlake run STUDY --model openai/gpt-4.1[/] (or another hosted "
                      "model).", soft_wrap=True, highlight=False)


def print_quality(study: str) -> None:
    """The PRISM profile of each review the study's judges read, from the published marts (nothing
    when the study names no judge)."""
    from peerlake.judging.registry import review_metrics
    from peerlake.report.summary import read_quality

    quality = read_quality(settings.duckdb_path(), study) if settings.duckdb_path().exists() else []
    headline = [m for m in review_metrics() if m.headline]  # one column each, as the mart has them
    if quality:
        print_rows([{"paper": r["paper_id"], "review": r["source"] + (f" {r['system']}" if r["source"] != "human"
                                                                      else ""),
                     **{m.label.split(": ", 1)[-1]: r.get(m.name) for m in headline},
                     "null because": r["null_reasons"]} for r in quality],
                   title="Review quality (PRISM judges; on the embedded model: machinery, not a measurement)")


def print_judge_panel(study: str) -> None:
    """Does the verdict survive the judge? One table per judge with two or more configurations in the study
    (a judge panel, #45): per headline metric and system, the mean over papers and the rank under each
    configuration side by side, from the published judge_rankings mart (nothing for a one-configuration
    study, or when the published file predates that mart)."""
    from rich.text import Text

    from peerlake.judging.registry import review_metrics
    from peerlake.warehouse import marts_reader

    path = settings.duckdb_path()
    if not path.exists():
        return
    with marts_reader.published(path) as marts:
        if "judge_rankings" not in marts.tables():
            return
        rows = marts.rows("select judge, judge_label, metric, left(system, 16) as system, mean, rank, n_systems, "
                          "n_papers from judge_rankings where study_id = $study", {"study": study})
    headline = [(m.name, m.label) for m in review_metrics() if m.headline]
    for judge in sorted({r["judge"] for r in rows}):
        mine = [r for r in rows if r["judge"] == judge and r["metric"] in dict(headline)]
        names = sorted({r["judge_label"] for r in mine})
        if len(names) < 2:
            continue
        cells = {(r["metric"], r["system"], r["judge_label"]): r for r in mine}
        table = Table(title=Text(f"Does the verdict survive the judge? {judge}: mean (n papers) · rank of n "
                                 "systems, per configuration"), show_lines=False)
        for col in ("metric", "system", *names):
            table.add_column(Text(col), overflow="fold")
        for metric, label in headline:
            first = {r["system"]: r["rank"] for r in mine if r["metric"] == metric and r["judge_label"] == names[0]}
            systems = sorted({r["system"] for r in mine if r["metric"] == metric},
                             key=lambda s, first=first: (first.get(s, 10**9), str(s)))
            for system in systems:
                row = [label.split(": ", 1)[-1], str(system)]
                for name in names:
                    r = cells.get((metric, system, name))
                    row.append("" if r is None else f"{fmt(r['mean'])} (n={r['n_papers']}) · "
                                                    f"{r['rank']} of {r['n_systems']}")
                table.add_row(*(Text(c) for c in row))
        console.print(table)


def report_run(run) -> None:
    """Name each failed gate (suite, expectation, up to five offending keys) and each failed step,
    and say what users now see: a failed build publishes nothing."""
    from rich.markup import escape

    if getattr(run, "plan_summary", ""):  # a build: what it rebuilt and why, or that nothing changed
        console.print(run.plan_summary, markup=False, highlight=False, soft_wrap=True)
    for check in run.failed_checks:
        kind = f"suite {check.suite}" if check.suite else "dbt test"
        console.print(f"[bold red]GATE FAILED[/] {check.check} on {check.asset} ({kind})", soft_wrap=True)
        if check.description:  # holds keys and values: print it verbatim, not as rich markup
            console.print(check.description, markup=False, highlight=False, soft_wrap=True)
    for step in run.failed_steps:  # one line each: Dagster's whole error is in the run's log file
        first = step.strip().splitlines()[0] if step.strip() else step
        console.print(f"[bold red]STEP FAILED[/] {escape(first[:300])}" + ("…" if len(first) > 300 else ""),
                      soft_wrap=True, highlight=False)
    if run.failed_steps and (log := last_run_log()) is not None:
        console.print(f"The full errors: {log} (or `make ui` → Runs → {run.run_id})", soft_wrap=True,
                      highlight=False)
    if run.failed_checks or any(s.startswith(("dbt_", "published_marts")) for s in run.failed_steps):
        published = settings.duckdb_path().exists()
        console.print("[red]Nothing was published.[/] "
                      + ("`peerlake query` still serves the previously published marts. " if published
                         else "No marts are published yet. ")
                      + "The failed candidate is kept for inspection: "
                        "`peerlake query --candidate \"select …\"` (or `make ui` → Runs).", soft_wrap=True)


def print_chain_head(head=None) -> None:
    """The event log's chain head (the configured lake's, unless given): the hash to keep outside the lake,
    so a later `peerlake verify --head H` can show the log was not cut back or rewritten since."""
    if head is None:
        from peerlake.warehouse import EventLog

        head = EventLog().head()
    if head is not None:
        console.print(f"chain head seq {head.seq}: {head.sha256} (keep this hash outside the lake: `peerlake "
                      "verify --head <hash>` later shows the log still holds everything up to here)",
                      soft_wrap=True, highlight=False)


def run_quietly(fn, name: str, **kwargs):
    """Run the pipeline with its output (Dagster's log of every step, dbt's lines, the progress) in a log
    file under the lake, not over the summary; the progress and Dagster's warnings on the terminal too.
    Ctrl-C / SIGTERM stop it (peerlake.signals)."""
    from datetime import datetime

    from peerlake.run_log import logging_to

    logs = settings.lake_root() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{name}.log"
    console.print(f"Running the Dagster assets in-process (log: {path}); Ctrl-C stops within seconds: calls in "
                  "flight are cancelled and made again next time, and a build stops before it publishes",
                  highlight=False, soft_wrap=True)
    with logging_to(path) as run:
        return run(fn, **kwargs)


def last_run_log():
    """The log file of this process's last run_quietly (None before one): where a failure's details are."""
    from peerlake.run_log import last_path

    return last_path()




def query_published(sql: str, candidate: bool = False, hint: str | None = None) -> tuple[list[str], list[dict]]:
    """Run read statements on the published marts (or the last build's candidate): (columns, rows).
    Anything else (COPY, EXPORT, INSTALL, SET, ATTACH, a file read …) is refused, one line each
    (peerlake.readonly_sql). Says what to do and exits 1 when there is nothing to read or the SQL is
    refused; a note on stderr when the last build failed."""
    import duckdb
    import typer
    from rich.markup import escape

    from peerlake.readonly_sql import QueryRefused, lock_down, read_statements
    from peerlake.warehouse import Lake, duckdb_s3
    from peerlake.warehouse.marts_reader import CannotOpen, NoMarts
    from peerlake.warehouse.publish import FAILED, PUBLISHED, candidate_status

    try:
        statements = read_statements(sql)
    except QueryRefused as exc:
        console.print(escape(str(exc)), style="red", soft_wrap=True)
        raise typer.Exit(1) from None
    except duckdb.Error as exc:  # a syntax error: refused before any file is opened
        console.print(f"[red]{type(exc).__name__}: {escape(str(exc))}[/]")
        raise typer.Exit(1) from None
    lake = Lake.default()
    status = candidate_status(lake) or {}
    failed = ", ".join(status.get("failed_gates") or {}) if status.get("state") == FAILED else ""
    path = lake.candidate_duckdb_path if candidate else lake.duckdb_path
    if candidate and not path.exists() and status.get("state") == PUBLISHED:
        path = lake.duckdb_path  # the last build's candidate passed its gates and became the published file
    if not path.exists():
        if candidate:
            console.print(f"[red]No candidate at {path}:[/] no build has run in this lake yet.")
        elif failed:
            console.print(f"[red]No published marts yet[/] (no {path}): the last build "
                          f"(started {status.get('started_at')}) failed at gate {failed}. Fix the rows "
                          "it named, or inspect them with `peerlake query --candidate \"…\"`.", soft_wrap=True)
        else:
            console.print(f"[red]{escape(str(NoMarts(path)))}.[/]", soft_wrap=True)
        raise typer.Exit(1)
    if failed and not candidate:  # on stderr, so csv/json output stays parseable
        Console(stderr=True).print(f"note: the last build failed at gate {failed}; these are the marts "
                                   "published before it.", style="yellow", soft_wrap=True)
        # a judge's [judging.require] gate: name the judge and the check it failed (its summary's lines)
        if summary := (status.get("failed_gates") or {}).get("gx_judge_card_checks"):
            Console(stderr=True).print(escape(summary), style="yellow", soft_wrap=True)
    try:
        con = duckdb_s3.connect(path, read_only=True, lake=lake)  # the views read the lake's segments
    except duckdb.IOException as exc:
        console.print(f"[red]{escape(str(CannotOpen(path, exc)))}.[/]", soft_wrap=True)
        raise typer.Exit(1) from None
    try:
        lock_down(con, readable=_segment_dirs(lake))
        for statement in statements:
            cur = con.execute(statement)
        cols = [d[0] for d in cur.description] if cur.description else []
        return cols, [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    except duckdb.Error as exc:
        if isinstance(exc, duckdb.PermissionException):
            hint = "`peerlake query` reads the marts and the lake's segments, no other file or extension"
        console.print(f"[red]{type(exc).__name__}: {escape(str(exc))}[/]" + (f"\n{hint}" if hint else ""))
        raise typer.Exit(1) from None
    finally:
        con.close()  # DuckDB keeps a file's instance per process while a connection to it is open


def _segment_dirs(lake) -> list[str]:
    """The folders a query may read besides the database: the committed segments the staging views
    read and the manifests they match them against (s3:// prefixes on a remote lake; a local path as
    written into the views, and resolved)."""
    from pathlib import Path

    from peerlake.warehouse import duckdb_s3

    segments = duckdb_s3.segments_url(lake).rstrip("/")
    events = segments.rsplit("/", 1)[0]
    folders = [segments, f"{events}/manifests"]
    if duckdb_s3.is_remote(segments):
        return [f"{f}/" for f in folders]
    return sorted({f"{p}/" for f in folders for p in (Path(f), Path(f).resolve())})


def emit_rows(cols: list[str], rows: list[dict], fmt: str, title: str | None = None) -> None:
    """Rows as a table, CSV or JSON on stdout (`--format`)."""
    if fmt == "json":
        import json

        print(json.dumps(rows, default=str, indent=1))
    elif fmt == "csv":
        import csv
        import sys

        w = csv.DictWriter(sys.stdout, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    else:
        print_rows(rows, title=title)
