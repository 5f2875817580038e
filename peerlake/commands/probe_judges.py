"""`peerlake probe-judges STUDY`: the study's judges on controlled variants of what they judged (bias
probes, judging/probes.py), then the marts; judge_probes holds each shift and its verdict."""

import typer

from peerlake.commands import command_group


@command_group("probe_judges", listed=110)
def register(app: typer.Typer) -> None:
    @app.command("probe-judges", rich_help_panel="Results")
    def probe_judges(
        name: str = typer.Argument(..., help="the study whose judges are probed (run it first: `peerlake run NAME`)"),
        probe: list[str] = typer.Option([], "--probe",
                                        help="a probe to run (repeatable): length, comment_order, pool_order, "
                                             "candidate_order; default: the study's [judging.probes] run, else all"),
        build: bool = typer.Option(True, "--build/--no-build", help="build and publish the marts afterwards"),
    ) -> None:
        """Bias probes of the study's judges: each judged review (or flaws pool) judged again as a controlled
        variant — padded with neutral sentences, its comments shuffled, the pool shown system first, the
        flaws listed in reverse — by the same judge configuration. The judge_probes mart gives each shift
        (variant − original) with its 95 % interval and pass/fail against the study's tolerances, and the
        self-preference of same-family judge and reviewer. `peerlake run` never runs probes."""
        from peerlake.console import console, print_rows, report_run, run_quietly
        from peerlake.judging.probes import PROBES
        from peerlake.llm_calls.gateway import Gateway
        from peerlake.orchestration.judge_probes import run_probes
        from peerlake.studies import StudyError, load_study
        from peerlake.warehouse import EventLog

        if bad := sorted(set(probe) - set(PROBES)):
            typer.secho(f"error: unknown probe(s) {', '.join(bad)}; known: {', '.join(PROBES)}", fg="red", err=True)
            raise typer.Exit(2)
        log = EventLog()
        try:
            study = load_study(log, name)
        except (StudyError, FileNotFoundError, ValueError) as exc:
            typer.secho(f"error: {exc}", fg="red", err=True)
            raise typer.Exit(1) from None
        if not study.judges:
            typer.secho(f"error: study {name!r} names no judges (judges = [...]); nothing to probe", fg="red", err=True)
            raise typer.Exit(1)
        names = tuple(probe) or study.judging.probes or PROBES
        rows = run_probes(log, study, Gateway(log), names, progress=None)
        print_rows(rows, title=f"bias probes of {name}'s judges")
        if any(r["failed"] for r in rows):
            console.print("[yellow]Some variant judgments failed (a call error): run the command again to retry.[/]")
        if build:
            from peerlake.orchestration.build_plan import EXPLICIT
            from peerlake.orchestration.studies import build_all

            run = run_quietly(build_all, "build", tags={"peerlake/command": "probe-judges"}, mode=EXPLICIT)
            report_run(run)
            if not run.success:
                raise typer.Exit(1)
        console.print(f'The shifts: `peerlake query "select * from judge_probes where study_id = \'{name}\'"`.',
                      highlight=False, soft_wrap=True)
