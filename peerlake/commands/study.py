"""`peerlake study new|list|show` and `peerlake run NAME`: the unit a researcher works in."""

import json
from pathlib import Path

import typer
from rich.markup import escape

from peerlake.commands import command_group

study_app = typer.Typer(no_args_is_help=True, help="Create, list and show studies (papers × reviewers × samples).")


def _log():
    from peerlake.warehouse import EventLog

    return EventLog()


def _fail(message: str, code: int = 1) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    raise typer.Exit(code)


def _refuse(exc: Exception) -> None:
    """A study's problem in one line (exit 1); a setting's goes up to `peerlake`'s main (exit 2)."""
    from peerlake.warehouse.settings import SettingError

    if isinstance(exc, SettingError):
        raise exc
    _fail(str(exc))


def _checked(name: str) -> str:
    """A study name that can name its file, and the run's settings readable, before anything is
    read or written: either is a usage error (exit 2), said in one line."""
    from peerlake.warehouse import settings
    from peerlake.warehouse.studies import check_name

    try:
        check_name(name)
    except ValueError as exc:
        _fail(str(exc), code=2)
    settings.check_run_settings()  # a SettingError goes up to main(): one line, exit 2
    return name


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
    system: list[str] = typer.Option([], "--system",
                                     help="a reviewer system instead of the single-prompt reviewer (repeatable; "
                                          "`peerlake systems` lists them); --samples then counts its reviews "
                                          "per paper"),
    judges: str = typer.Option("", "--judges",
                               help="PRISM judges on every review, comma-separated, or 'all' (an unknown name is "
                                    "refused with the known ones; narrow them with a [judging] table in the file)"),
    description: str = typer.Option("", "--description"),
    force: bool = typer.Option(False, "--force", help="replace an existing study file"),
) -> None:
    """Write a study file into the lake (edit it by hand afterwards if you like; its hash is its version)."""
    from peerlake.studies import StudyError, save_study, study_text
    from peerlake.warehouse.studies import StudyFiles

    _checked(name)
    for folder in papers:  # said now, where the typo is made, not at the first `peerlake run`
        if not folder.is_dir():
            what = "is a file, not a folder" if folder.exists() else "does not exist"
            _fail(f"--papers {folder}: {what} ({folder.resolve()}); give a folder holding the PDFs to review, "
                  "e.g. `--papers ~/papers/`", code=2)
    log = _log()
    _check_sample(log, sample, samples)
    if StudyFiles(log.lake).exists(name) and not force:
        _fail(f"study {name!r} exists ({StudyFiles(log.lake).path(name)}); pass --force to replace it")
    try:
        text = study_text(name, description=description, folders=[str(p) for p in papers], sample=sample,
                          venues=venue, ids=[i.strip() for i in (ids or "").split(",") if i.strip()],
                          all_ingested=all_ingested, samples=samples, template=template,
                          external_systems=external, reviewers=not no_reviewers,
                          judges=_judges(judges), systems=system)
        path = save_study(log, name, text)
    except (StudyError, ValueError) as exc:
        _refuse(exc)
    typer.echo(f"study {name} written to {path}")
    for folder in papers:
        typer.echo(f"  {folder}: {_folder_tally(folder)}")
    typer.echo(f"run it with: peerlake run {name}")


def _check_sample(log, sample: str | None, samples: int | None) -> None:
    """--sample names a `peerlake sample` draw of this lake (or 'latest'): said now, at the flag, not at the
    first run. A number there is most likely --samples (reviews per paper) mistyped, and is said to be."""
    if sample is None:
        return
    draws = sorted({e.sample_id for e in log.iter_events("sample_drawn")})
    if (sample == "latest" and draws) or sample in draws:
        return
    if sample == "latest":
        _fail("--sample latest: no sample was drawn in this lake yet; draw one with `peerlake sample ...`, "
              "or name the papers with --papers, --venue, --ids or --all", code=2)
    hint = (f" — for {sample} reviews per paper, that is --samples {sample}" if sample.isdigit() and samples is None
            else "")
    _fail(f"--sample {sample}: no such sample in this lake (drawn: {', '.join(draws) or 'none'}){hint}", code=2)


def _folder_tally(folder: Path) -> str:
    """A papers folder as a study's run reads it: its PDFs, and the other files named, not ignored."""
    from peerlake.commands.ingest import skipped_not_pdfs

    files = [f for f in sorted(Path(folder).iterdir()) if f.is_file() and not f.name.startswith(".")]
    pdfs = [f for f in files if f.match("*.pdf")]  # what studies.study_pdfs reads (its glob)
    skipped = skipped_not_pdfs([f for f in files if f not in pdfs])
    return f"{len(pdfs)} PDF{'s' if len(pdfs) != 1 else ''}" + (f"; {skipped}" if skipped else "")


def _judges(option: str) -> list[str]:
    from peerlake.studies import JUDGES

    names = [j.strip() for j in option.split(",") if j.strip()]
    return list(JUDGES) if names == ["all"] else names


@study_app.command("list")
def study_list() -> None:
    """The studies in this lake, with the papers each covered the last time it ran."""
    import json

    from peerlake.orchestration.running_studies import running_studies
    from peerlake.warehouse.studies import StudyFiles

    log = _log()
    last = {}
    for e in log.iter_events("study_resolved"):
        if e.study_id not in last or e.event_id > last[e.study_id].event_id:
            last[e.study_id] = e
    names = StudyFiles(log.lake).names()
    if not names:
        typer.echo("no studies yet: `peerlake demo` writes `demo`; `peerlake study new NAME ...` writes yours")
    running = running_studies()
    for name in names:
        e = last.get(name)
        ran = (f"last run {e.occurred_at:%Y-%m-%d %H:%M} UTC, {len(json.loads(e.paper_ids_json))} papers"
               if e else "never run")
        if name in running:  # a run records its papers only after its ingest step: say it runs
            ran = f"running (run {running[name]})" + ("" if e is None else f"; {ran}")
        typer.echo(f"{name:24} {ran}")
    from peerlake.studies.builtin import BUILTIN_STUDIES

    if unwritten := [b for b in BUILTIN_STUDIES if b not in names]:
        typer.echo(f"built in, written on first run: {', '.join(unwritten)}")


@study_app.command("show")
def study_show(name: str) -> None:
    """Print a study's file, its hash and what it resolves to now."""
    from peerlake.studies import StudyError, load_study, resolve_papers

    _checked(name)
    log = _log()
    try:
        study = load_study(log, name)
        checked = _experiments(study)
        res = resolve_papers(log, study)
    except (StudyError, FileNotFoundError, ValueError) as exc:
        _refuse(exc)
    typer.echo(study.text.rstrip())
    for exp in checked:
        typer.echo(f"# experiment [{exp.name}]: {exp.judge.JUDGE} judge, checked")
    if (revision := study.revision()) is not None:
        roles = ", ".join(f"{m.letter} = {m.label}" for m in revision.models)
        typer.echo(f"# revision crossover: cells {', '.join(revision.cells)} ({roles}); {revision.repeats} Scorer "
                   f"reviews per side; checked")
    typer.echo(f"\n# sha256 {study.sha256}\n# papers now: {len(res.paper_ids)} ({study.paper_source()}), "
               f"{len(res.reviewable)} with a manuscript a reviewer can read"
               + (f"; {len(res.missing)} selected but unknown to the lake" if res.missing else ""))


MODEL_HELP = ("PROVIDER/MODEL (e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-6) for every reviewer and judge "
              "whose model the study leaves unset: the same as $PEERLAKE_PROVIDER and $PEERLAKE_MODEL for this run; "
              "the key comes from the provider's variable, e.g. $OPENAI_API_KEY")


def use_model(spec: str | None, executor: str = "in_process") -> None:
    """`--model PROVIDER/MODEL`: set $PEERLAKE_PROVIDER and $PEERLAKE_MODEL for this process and the
    step processes it starts, before anything reads them. No key check: calls in the log replay without one."""
    import os

    from peerlake.warehouse.settings import PROVIDERS

    if spec is None:
        return
    provider, _, model = spec.partition("/")  # split once: a model id may hold slashes (org/model)
    if provider not in PROVIDERS or not model:
        _fail(f"--model {spec!r}: give PROVIDER/MODEL with PROVIDER one of {', '.join(PROVIDERS)}, "
              "e.g. --model openai/gpt-4.1", code=2)
    if executor in ("celery", "dask"):
        _fail(f"--model with --executor {executor}: the workers read their own environment; set "
              "PEERLAKE_PROVIDER and PEERLAKE_MODEL where they run", code=2)
    os.environ["PEERLAKE_PROVIDER"], os.environ["PEERLAKE_MODEL"] = provider, model


def _experiments(study) -> list:
    """The study's experiment tables ([contradictions], [hidden_text] …), checked (StudyError)."""
    if not study.experiments:
        return []
    from peerlake.studies.experiments import experiments

    return experiments(study)


def run_study_command(name: str, probes: bool, command: str, max_cost: float | None = None,
                      build: bool = True, executor: str = "in_process") -> None:
    """Run a study and report like every pipeline command (shared by `run`, `demo` and `review`)."""
    from peerlake.console import console, print_chain_head, report_run, run_quietly
    from peerlake.llm_calls.gateway import Gateway
    from peerlake.studies import StudyError, load_study, resolve_papers, study_pdfs
    from peerlake.warehouse.studies import StudyFiles

    _checked(name)
    try:
        log = _log()
        study = load_study(log, name)
        _experiments(study)  # a typo in an experiment table is refused before any call
        # Say it before starting Dagster: a study with reviewers, nothing to ingest and no ingested
        # manuscript has nothing to review.
        if study.reviewers and not study_pdfs(study) and not resolve_papers(log, study).reviewable:
            raise StudyError(f"study {name!r} covers no ingested manuscript ({study.paper_source()}); "
                             "ingest PDFs with `peerlake ingest pdf DIR` or change the study's [papers] "
                             f"({StudyFiles(log.lake).path(name)})")
        gateway = Gateway(log)  # its catch-up reads every call in the log: once for both checks
        _preflight(log, study, remote=executor in ("celery", "dask"), gateway=gateway)
    except (StudyError, FileNotFoundError, ValueError) as exc:
        _refuse(exc)
    from peerlake.orchestration.noop_run import forget_completed, nothing_new, record_completed

    # A run that would make no call and build nothing ends here, before Dagster and the dbt project load.
    noop, why = nothing_new(log, study, gateway, probes=probes, build=build, executor=executor)
    if noop is not None:
        console.print(f"Nothing new for study {name}: every call is in the log and the published marts are "
                      "current; no Dagster run was needed.", highlight=False, soft_wrap=True)
        report_run(noop.build)
        print_chain_head()
        return noop
    from peerlake.orchestration.executors import ExecutorError, check_ready

    try:
        check_ready(executor)  # no broker or no worker: say what to start before anything runs
    except ExecutorError as exc:
        _fail(str(exc))
    for folder in filter(lambda f: Path(f).is_dir(), study.folders):  # a missing one fails in the ingest step
        console.print(f"papers folder {folder}: {_folder_tally(Path(folder))}", highlight=False)
    if executor != "in_process":
        console.print(f"The study's steps run on the {executor} executor's workers; the build runs here.")
    from peerlake.llm_calls.progress import notice
    from peerlake.orchestration.studies import run_study

    notice(f"a Dagster run is needed: {why}")
    forget_completed(log.lake, name)
    result = run_quietly(run_study, command, study=name, probes=probes, tags={"peerlake/command": command},
                         max_cost_usd=max_cost, build=build, executor=executor)
    _exit_if_stopped(name, result)
    report_run(result.study)
    if result.build is not None:
        report_run(result.build)
    print_chain_head()
    if not result.success:
        console.print(f"[bold red]Study {name} failed[/] (runs {result.study.run_id}"
                      f"{', ' + result.build.run_id if result.build else ''}).")
        raise typer.Exit(1)
    if not _calls_failed(result) and not _left_undone(result):
        record_completed(log.lake, name, study.sha256, result.study.run_id)
    return result


def _preflight(log, study, remote: bool = False, gateway=None) -> None:
    """Before Dagster starts: refuse (exit 2, one line each) a model of the study that cannot answer — an
    unknown name, no key, no model file, no server (costs.study_checks) — and warn of a retired one. With
    `remote` steps (celery, dask workers: their own environment, files and network) only warn."""
    from peerlake.console import console
    from peerlake.costs.study_checks import study_findings
    from peerlake.llm_calls.gateway import Gateway

    def judged() -> list:  # the reviews the judges would read; the module imports Dagster, so only when asked
        from peerlake.orchestration.assets.judgments import judged_reviews

        return judged_reviews(log, study)[1]

    findings = study_findings(log, study, gateway or Gateway(log), judged_reviews=judged)
    for f in findings:
        if not f.blocking or remote:
            where = " (checked on this machine; the workers read their own)" if f.blocking else ""
            console.print(f"[yellow]warning:[/] {escape(f.message)}{where}", soft_wrap=True, highlight=False)
    blocking = [f for f in findings if f.blocking and not remote]
    for f in blocking:
        typer.secho(f"error: {f.message}", fg="red", err=True)
    if blocking:
        raise typer.Exit(2)


def _exit_if_stopped(name: str, result) -> None:
    """After a Ctrl-C or SIGTERM: what the run kept, and how to go on (exit 130 or 143). Short: the details
    (each step's end, what Dagster and its helpers printed on the signal) are in the run's log file."""
    from peerlake.console import console, last_run_log
    from peerlake.signals import exit_code, stopped_by
    from peerlake.warehouse import settings

    signum = stopped_by()
    if signum is None:
        return
    run_id = result.study.run_id
    made = sum(1 for e in _log().iter_events("llm_call") if e.dagster_run_id == run_id and e.status == "ok")
    build = result.build
    if build is None:
        built = "Nothing was built or published."
    elif "published_marts" in build.asset_metadata:
        built = "The marts were published before the stop."
    else:
        built = "The build was stopped: nothing was published" + (
            " (the marts published before are still served)." if settings.duckdb_path().exists() else ".")
    console.print(f"[yellow]Study {name} stopped on request[/] (run {run_id}): {made} calls made in this run are kept "
                  f"in the log and replay at no cost; none was started after the stop. {built} To go on, run the same "
                  f"command again: {_same_command(name)}. Details: {last_run_log()}", soft_wrap=True, highlight=False)
    raise typer.Exit(exit_code(signum))


def _same_command(name: str) -> str:
    """The command line this process was started with, as a user retypes it (`peerlake run NAME` otherwise)."""
    import shlex
    import sys

    if Path(sys.argv[0]).name == "peerlake" and len(sys.argv) > 1:
        return shlex.join(["peerlake", *sys.argv[1:]])
    return f"peerlake run {name}"


def show_dry_run(name: str, probes: bool) -> None:
    """Print the calls a run of the study would make (new vs in the log), their estimated tokens and
    cost, and record the estimate (a run_estimated event without a run id)."""
    from peerlake.console import console, print_rows
    from peerlake.costs.estimate import DEFAULT_OUTPUT_SHARE, DEFAULT_TOKENS_PER_CHAR, grouped, run_estimated
    from peerlake.costs.plan import study_estimate
    from peerlake.costs.study_checks import study_findings
    from peerlake.llm_calls.gateway import Gateway
    from peerlake.llm_calls.preflight import did_you_mean
    from peerlake.orchestration.assets.judgments import judged_reviews
    from peerlake.studies import StudyError, load_study

    _checked(name)
    log = _log()
    try:
        study = load_study(log, name)
        judged = judged_reviews(log, study)[1] if study.judges else []
        gateway = Gateway(log)
        est = study_estimate(log, study, gateway, probes=probes, judged_reviews=judged)
        findings = study_findings(log, study, gateway, estimate=est)  # said after the estimate, beside it
    except (StudyError, FileNotFoundError, ValueError) as exc:
        _refuse(exc)
    ev = log.append(run_estimated(est, dagster_run_id=None))
    by_model: dict[str, list[dict]] = {}
    groups = grouped(est.rows)
    panel = sorted({g["judge_label"] for g in groups if "judge_label" in g})  # a judge panel's members
    for g in groups:  # one table per model: narrower, and a model's calls read together
        row = _estimate_row(g, g["asset"], g["prompt_template"])
        if g["est_cost_usd"] is None and (guess := did_you_mean(g["provider"], g["model"])):
            row["cost USD"] = f"unknown (no price; did you mean {guess}?)"
        if panel:
            row = {"judge": g.get("judge_label", ""), **row}
        by_model.setdefault(f"{g['provider']}/{g['model']}", []).append(row)
    for model, rows in by_model.items():
        print_rows(rows, title=f"dry run of study {name} on {model}: no call made")
    t = est.totals()
    print_rows([_estimate_row(t, "TOTAL", f"{len(by_model)} models")], title=None)
    if t["unpriced_calls"]:
        unpriced = sorted({(r["provider"], r["model"]) for r in est.rows if r["new"] and r["est_cost_usd"] is None})
        names = ", ".join(f"{p}/{m}" + (f" (did you mean {guess}?)" if (guess := did_you_mean(p, m)) else "")
                          for p, m in unpriced)
        console.print(f"[yellow]{_n(t['unpriced_calls'])} new calls use a model with no price[/] "
                      f"(llm_calls/prices.toml): {escape(names)}: their cost is unknown, and a run under a cap "
                      "refuses them.", soft_wrap=True, highlight=False)
    for note in est.notes:
        console.print(f"note: {note}", highlight=False)
    if panel:
        console.print(f"note: judge panel of {len(panel)} ({', '.join(panel)}): each judges the same reviews; in "
                      "each unit of papers the primary judges first, so a cost cap leaves the others undone first",
                      highlight=False)
    lo, mid, hi = DEFAULT_TOKENS_PER_CHAR
    olo, omid, ohi = DEFAULT_OUTPUT_SHARE
    console.print(f"Estimated ({est.method}) from this lake's own ok calls: input = request characters × tokens "
                  f"per character of the model, output = output tokens of the model and template, as the mean "
                  f"[10th–90th percentile]. Without history ({'<'}3 calls): {mid} tokens/char [{lo}–{hi}], "
                  f"output {omid:.0%} of max_tokens [{olo:.0%}–{ohi:.0%}], 1 judge call per review per template. "
                  f"Calls in the log replay for free. Recorded as run_estimated {ev.estimate_id}.",
                  highlight=False, soft_wrap=True)
    reasoning = sorted({f"{r['provider']}/{r['model']}" for r in est.rows
                        if r["new"] and "reasoning prior" in r["basis"]})
    if reasoning:
        console.print(f"Reasoning models without history ({', '.join(reasoning)}): output includes a reasoning "
                      "prior (docs/costs/dry-runs-and-caps.md), not this lake's figures; under a cap each call is "
                      "bounded at its whole reasoning headroom or thinking budget.", highlight=False, soft_wrap=True)
    for f in findings:  # what `peerlake run` would say before its first call; a dry run needs no key
        console.print(f"[yellow]warning:[/] {escape(f.message)}", soft_wrap=True, highlight=False)
    if any(f.blocking for f in findings):
        console.print(f"`peerlake run {name}` refuses to start until the warnings above are fixed.", highlight=False)
    cap = study.costs.max_cost_usd
    console.print(f"Cost cap: {'none' if cap is None else f'${cap:.2f} (study)'}; set one per run with "
                  f"`peerlake run {name} --max-cost USD`.", highlight=False)


def _estimate_row(g: dict, asset: str, template: str) -> dict:
    return {"asset": asset, "template": template, "new calls": _n(g["new_calls"]), "in log": _n(g["replayed_calls"]),
            "input tokens": _interval(g, "est_input_tokens", "{:,.0f}"),
            "output tokens": _interval(g, "est_output_tokens", "{:,.0f}"),
            "cost USD": _interval(g, "est_cost", "{:.4f}", suffix="_usd")}


def _n(x: float) -> str:
    return f"{x:,.0f}" if abs(x - round(x)) < 1e-9 else f"{x:,.1f}"


def _interval(row: dict, stem: str, fmt: str, suffix: str = "") -> str:
    mid, lo, hi = row.get(f"{stem}{suffix}"), row.get(f"{stem}_lo{suffix}"), row.get(f"{stem}_hi{suffix}")
    if mid is None:
        return "unknown (no price)"
    return f"{fmt.format(mid)} [{fmt.format(lo)}–{fmt.format(hi)}]"


def estimate_vs_actual(run_id: str) -> list[dict]:
    """The run's rows of the published cost_estimate_accuracy mart (empty when not published)."""
    from peerlake.warehouse import Lake
    from peerlake.warehouse.marts_reader import MartsUnreadable
    from peerlake.warehouse.marts_reader import rows as mart_rows

    try:
        rows = mart_rows(Lake.default().duckdb_path, """
            select purpose, provider || '/' || model as model, est_calls, actual_calls, est_cost_usd,
                   est_cost_lo_usd, est_cost_hi_usd, actual_cost_usd, cost_ratio, is_cost_in_interval
            from cost_estimate_accuracy where dagster_run_id = ? order by purpose, model""", [run_id])
    except MartsUnreadable:
        return []  # nothing published, or an older published build without the mart
    money = "{:.4f}".format
    return [{"purpose": p, "model": m, "calls est / made": f"{_n(ec)} / {ac}",
             "est USD [10th–90th]": "unknown" if e is None else f"{money(e)} [{money(lo)}–{money(hi)}]",
             "actual USD": "unknown" if a is None else money(a),
             "actual/est": "" if r is None else f"{r:.2f}", "in interval": "" if inside is None else str(inside)}
            for p, m, ec, ac, e, lo, hi, a, r, inside in (row.values() for row in rows)]


def report_experiments(result) -> None:
    """One line per experiment the study ran: the manuscripts it made, the judgments it recorded."""
    from peerlake.judging.registry import variant_experiments

    meta = result.study.asset_metadata
    variants = meta.get("paper_variants", {})
    for exp in variant_experiments():
        if f"{exp}_variants" in variants:
            typer.echo(f"[{exp}] {variants[f'{exp}_variants']} variants, {variants.get(f'{exp}_built', 0)} built"
                       + (f"; not built: {variants[f'{exp}_not_built_reasons']}"
                          if f"{exp}_not_built_reasons" in variants else ""))
    revision = meta.get("revision_manuscripts", {})
    if "outcomes" in revision:
        blocked = json.loads(revision.get("blocked") or "{}")
        typer.echo(f"[revision] {revision['papers']} papers, {revision['outcomes']} paper conditions "
                   f"({revision['outcomes'] - sum(blocked.values())} ok"
                   + (f", blocked: {', '.join(f'{k} {v}' for k, v in sorted(blocked.items()))}" if blocked else "")
                   + f"); {revision.get('diffs', 0)} candidate diffs, {revision.get('accepted', 0)} accepted; "
                     f"{revision.get('model_calls_made', 0)} model calls made")
    scores = meta.get("revision_scores", {})
    if "scorer_reviews" in scores:
        typer.echo(f"[revision] Scorers ({scores.get('cells')}): {scores['scorer_reviews']} reviews "
                   f"({scores.get('model_calls_made', 0)} model calls made, {scores.get('failed', 0)} failed)")
    for key, m in sorted(meta.items()):
        if key.startswith("experiment_") and "judge" in m:
            typer.echo(f"[{key.removeprefix('experiment_')}] {m['judge']} judge ({m.get('model')}, {m.get('repeats')} "
                       f"repeats): {m.get('judgments', 0)} judgments ({m.get('new_judgments', 0)} new, "
                       f"{m.get('null_judgments', 0)} null with a reason, {m.get('failed', 0)} failed; "
                       f"{m.get('model_calls_made', 0)} model calls made)")


def report_costs(result) -> None:
    """After a run: spent, cap, what the cap left undone, and estimate vs actual per purpose/model."""
    from peerlake.console import console, print_rows

    metas = [m for m in result.study.asset_metadata.values() if "run_spent_usd" in m]
    if not metas:
        return
    spent = max(m["run_spent_usd"] for m in metas)  # each asset reads the run's total so far: the last is largest
    undone = sum(m.get("left_undone", 0) for m in metas)
    cap = next((m["cost_cap_usd"] for m in metas if "cost_cap_usd" in m), None)
    console.print(f"spent ${spent:.4f} on new calls" + (f" of a ${cap:.2f} cap" if cap is not None else "")
                  + (f"; [yellow]{undone} calls left undone by the cap[/] (raise it with --max-cost and run "
                     "again: what was made replays for free)" if undone else ""), highlight=False)
    rows = estimate_vs_actual(result.study.run_id)
    if rows:
        print_rows(rows, title="estimate vs actual (cost_estimate_accuracy)")


@command_group("study", listed=40)
def register(app: typer.Typer) -> None:
    app.add_typer(study_app, name="study", rich_help_panel="Your data")

    @app.command("run", rich_help_panel="Your data")
    def run(name: str = typer.Argument(..., help="the study to run (see `peerlake study list`)"),
            probes: bool = typer.Option(False, "--probes",
                                        help="also forced-decimal reviews and logprob probes"),
            dry_run: bool = typer.Option(False, "--dry-run",
                                         help="list the calls the run would make and what they would cost; make none"),
            max_cost: float = typer.Option(None, "--max-cost", min=0.0,
                                           help="USD this run may spend on new paid calls (replays are free); "
                                                "overrides the study's [costs] max_cost_usd"),
            build: bool = typer.Option(True, "--build/--no-build",
                                       help="build, gate and publish the marts after the model steps (default); "
                                            "--no-build leaves that to a later `peerlake build`"),
            executor: str = typer.Option("in_process", "--executor",
                                         help="where the study's steps run: in_process (default), multiprocess, "
                                              "celery (workers on a Redis broker, $PEERLAKE_CELERY_BROKER) or dask "
                                              "($PEERLAKE_DASK_SCHEDULER); the build runs here"),
            model: str = typer.Option(None, "--model", help=MODEL_HELP)) -> None:
        """Materialize a study: ingest what it reads, review its papers, build and gate the marts."""
        use_model(model, executor)
        if dry_run:
            show_dry_run(name, probes)
            return
        from peerlake.orchestration.executors import EXECUTORS

        if executor not in EXECUTORS:
            _fail(f"--executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
        result = run_study_command(name, probes, "run", max_cost=max_cost, build=build, executor=executor)
        meta = result.study.asset_metadata.get("ai_reviews", {})
        if meta.get("reviewer_configs"):  # the study has single-template reviewers
            typer.echo(f"study {name}: {meta.get('papers', 0)} papers, {meta.get('reviews', 0)} reviews "
                       f"({meta.get('model_calls_made', 0)} model calls made, {meta.get('replayed', 0)} replayed, "
                       f"{meta.get('failed', 0)} failed)")
        systems = result.study.asset_metadata.get("system_reviews", {})
        if systems.get("system_reviews"):
            typer.echo(f"reviewer systems: {systems['system_reviews']} reviews ({systems.get('new_reviews', 0)} new, "
                       f"{systems.get('null_reviews', 0)} null with a reason, {systems.get('failed', 0)} failed; "
                       f"{systems.get('model_calls_made', 0)} model calls made); per system "
                       f"{systems.get('reviews_per_system', '{}')}")
        judged = {k.removeprefix("judgments_"): m for k, m in result.study.asset_metadata.items()
                  if k.startswith("judgments_") and "judgments" in m}
        for judge, m in sorted(judged.items()):
            typer.echo(f"[{judge} judge] ({m.get('model')}) {m['judgments']} judgments of {m.get('reviews', 0)} "
                       f"reviews ({m.get('new_judgments', 0)} new, {m.get('null_judgments', 0)} null with a reason, "
                       f"{m.get('failed', 0)} failed; {m.get('model_calls_made', 0)} model calls made)")
        report_experiments(result)
        report_costs(result)
        if judged and build and result.build is not None and result.build.success:
            from peerlake.console import print_judge_panel, print_quality

            print_quality(name)
            print_judge_panel(name)  # a study with a judge panel: each judge's ranking of the systems
        if not build:
            typer.echo("marts not built (--no-build): `peerlake build` builds, gates and publishes them")
        elif result.build is not None and result.build.success:
            from peerlake.warehouse import settings

            typer.echo("next:\n" + "\n".join(f"  {line}" for line in next_commands(name, meta, settings.lake_root())))
        fail_if_calls_failed(result, name)


def next_commands(name: str, reviews_meta: dict, lake_root: Path) -> list[str]:
    """What to run after a study's marts are published, with this study's real ids: its report page (and where
    it is written), the audit of a validity row of its first reviewer configuration, the call viewer."""
    lines = [f"peerlake report --study {name} --open    # writes {lake_root / 'reports' / f'{name}.html'}"]
    configs = [c.strip() for c in str(reviews_meta.get("reviewer_configs") or "").split(",") if c.strip()]
    if configs:
        lines.append(f"peerlake audit reliability_validity '{name}|{configs[0]}|all'    # where a number comes from")
    lines.append(f"peerlake view --study {name}    # every call of the study in a browser")
    return lines


def _calls_failed(result) -> dict[str, int]:
    return {asset: m["failed"] for asset, m in sorted(result.study.asset_metadata.items())
            if isinstance(m.get("failed"), int) and m["failed"] > 0}


def _left_undone(result) -> int:
    return sum(m.get("left_undone", 0) for m in result.study.asset_metadata.values()
               if isinstance(m.get("left_undone", 0), int))


def fail_if_calls_failed(result, name: str) -> None:
    """Exit 1 when any review, judgment or probe of the run failed (a fatal provider error, or retries
    exhausted): the study is incomplete, and a script must not read it as done. Left undone by a
    cost cap is not a failure."""
    if failed := _calls_failed(result):
        _fail(f"study {name}: {sum(failed.values())} model call(s) failed "
              f"({', '.join(f'{a} {n}' for a, n in failed.items())}): its results are incomplete. The errors: "
              f"`make ui` → Runs → {result.study.run_id}, or fct_llm_calls where not is_ok; fix the cause and "
              f"run `peerlake run {name}` again (what was made replays at no cost)")
