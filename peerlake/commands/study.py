"""`peerlake study new|list|show` and `peerlake run NAME`: the unit a researcher works in."""

from pathlib import Path

import typer

study_app = typer.Typer(no_args_is_help=True, help="Create, list and show studies (papers × reviewers × samples).")


def _log():
    from warehouse import EventLog

    return EventLog()


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    raise typer.Exit(1)


@study_app.command("new")
def study_new(
    name: str = typer.Argument(..., help="the study's name (lowercase letters, digits, - and _)"),
    papers: list[Path] = typer.Option([], "--papers", help="a folder of PDFs (repeatable); ingested by `peerlake run`"),
    sample: str = typer.Option(None, "--sample", help="a `peerlake sample` draw: its sample_id, or 'latest'"),
    venue: list[str] = typer.Option([], "--venue", help="every ingested paper of this venue (repeatable)"),
    ids: str = typer.Option(None, "--ids", help="explicit paper ids, comma-separated"),
    all_ingested: bool = typer.Option(False, "--all", help="every ingested paper that is not synthetic"),
    samples: int = typer.Option(None, "--samples", "-k",
                                help="independent reviews per paper (default $PEERLAKE_SAMPLES)"),
    template: str = typer.Option("reviewer_scoring", "--template", help="the reviewer's prompt template"),
    external: list[str] = typer.Option([], "--external", help="include reviews imported with --system X ('*' = all)"),
    no_reviewers: bool = typer.Option(False, "--no-reviewers", help="no model reviews: measure imported reviews only"),
    judges: str = typer.Option("", "--judges",
                               help="PRISM judges on every review, comma-separated: depth,novelty,flaws,"
                                    "constructiveness or 'all' (narrow them with a [judging] table in the file)"),
    description: str = typer.Option("", "--description"),
    force: bool = typer.Option(False, "--force", help="replace an existing study file"),
) -> None:
    """Write a study file into the lake (edit it by hand afterwards if you like; its hash is its version)."""
    from reviewing.study import StudyError, save_study, study_text
    from warehouse.studies import StudyFiles

    log = _log()
    if StudyFiles(log.lake).exists(name) and not force:
        _fail(f"study {name!r} exists ({StudyFiles(log.lake).path(name)}); pass --force to replace it")
    try:
        text = study_text(name, description=description, folders=[str(p) for p in papers], sample=sample,
                          venues=venue, ids=[i.strip() for i in (ids or "").split(",") if i.strip()],
                          all_ingested=all_ingested, samples=samples, template=template,
                          external_systems=external, reviewers=not no_reviewers,
                          judges=_judges(judges))
        path = save_study(log, name, text)
    except (StudyError, ValueError) as exc:
        _fail(str(exc))
    typer.echo(f"study {name} written to {path}\nrun it with: peerlake run {name}")


def _judges(option: str) -> list[str]:
    from reviewing.study import JUDGES

    names = [j.strip() for j in option.split(",") if j.strip()]
    return list(JUDGES) if names == ["all"] else names


@study_app.command("list")
def study_list() -> None:
    """The studies in this lake, with the papers each covered the last time it ran."""
    import json

    from warehouse.studies import StudyFiles

    log = _log()
    last = {}
    for e in log.iter_events("study_resolved"):
        if e.study_id not in last or e.event_id > last[e.study_id].event_id:
            last[e.study_id] = e
    names = StudyFiles(log.lake).names()
    if not names:
        typer.echo("no studies yet: `peerlake demo` writes `demo`; `peerlake study new NAME ...` writes yours")
    for name in names:
        e = last.get(name)
        ran = (f"last run {e.occurred_at:%Y-%m-%d %H:%M} UTC, {len(json.loads(e.paper_ids_json))} papers"
               if e else "never run")
        typer.echo(f"{name:24} {ran}")


@study_app.command("show")
def study_show(name: str) -> None:
    """Print a study's file, its hash and what it resolves to now."""
    from reviewing.study import StudyError, load_study, resolve_papers

    log = _log()
    try:
        study = load_study(log, name)
        res = resolve_papers(log, study)
    except (StudyError, FileNotFoundError, ValueError) as exc:
        _fail(str(exc))
    typer.echo(study.text.rstrip())
    typer.echo(f"\n# sha256 {study.sha256}\n# papers now: {len(res.paper_ids)} ({study.paper_source()}), "
               f"{len(res.reviewable)} with a manuscript a reviewer can read"
               + (f"; {len(res.missing)} selected but unknown to the lake" if res.missing else ""))


def run_study_command(name: str, probes: bool, command: str) -> None:
    """Run a study and report like every pipeline command (shared by `run`, `demo` and `review`)."""
    from orchestration.studies import run_study
    from peerlake.console import console, report_run, run_quietly
    from reviewing.study import StudyError, load_study, resolve_papers, study_pdfs
    from warehouse.studies import StudyFiles

    try:
        log = _log()
        study = load_study(log, name)
        # Say it before starting Dagster: a study with reviewers, nothing to ingest and no ingested
        # manuscript has nothing to review.
        if study.reviewers and not study_pdfs(study) and not resolve_papers(log, study).reviewable:
            raise StudyError(f"study {name!r} covers no ingested manuscript ({study.paper_source()}); "
                             "ingest PDFs with `peerlake ingest pdf DIR` or change the study's [papers] "
                             f"({StudyFiles(log.lake).path(name)})")
    except (StudyError, FileNotFoundError, ValueError) as exc:
        _fail(str(exc))
    result = run_quietly(run_study, command, study=name, probes=probes, tags={"peerlake/command": command})
    report_run(result.study)
    if result.build is not None:
        report_run(result.build)
    if not result.success:
        console.print(f"[bold red]Study {name} failed[/] (runs {result.study.run_id}"
                      f"{', ' + result.build.run_id if result.build else ''}).")
        raise typer.Exit(1)
    return result


def register(app: typer.Typer) -> None:
    app.add_typer(study_app, name="study")

    @app.command("run")
    def run(name: str = typer.Argument(..., help="the study to run (see `peerlake study list`)"),
            probes: bool = typer.Option(False, "--probes",
                                        help="also forced-decimal reviews and logprob probes")) -> None:
        """Materialize a study: ingest what it reads, review its papers, build and gate the marts."""
        result = run_study_command(name, probes, "run")
        meta = result.study.asset_metadata.get("ai_reviews", {})
        typer.echo(f"study {name}: {meta.get('papers', 0)} papers, {meta.get('reviews', 0)} reviews "
                   f"({meta.get('model_calls_made', 0)} model calls made, {meta.get('replayed', 0)} replayed, "
                   f"{meta.get('failed', 0)} failed)")
