"""The model steps of a validation study, as `peerlake run --no-build` runs them, and the one build of the
marts after the last dataset; a failure of either is said, with what to do, and ends that dataset or the
command."""

import typer

from peerlake.commands.validate.datasets import DatasetError
from peerlake.commands.validate.prepare import Prepared


def run_steps(prepared: Prepared) -> None:
    """The study's model steps as `peerlake run --no-build` runs them (progress, ETA, Ctrl-C)."""
    from click.exceptions import Exit

    from peerlake.commands.study import run_study_command

    try:
        run_study_command(prepared.study, probes=False, command="validate-judges", build=False)
    except (Exit, typer.Exit) as exc:
        # 2: the judge's model cannot answer (no key, unknown name), the same for every dataset;
        # 130, 143: stopped (Ctrl-C, SIGTERM). Both end the command, as they end `peerlake run`.
        if exc.exit_code in (2, 130, 143):
            raise
        raise DatasetError(f"the run of study {prepared.study} failed (exit {exc.exit_code}; its message is "
                           f"above); run `peerlake run {prepared.study}` again once that is fixed") from None


def build_marts() -> None:
    """One build of the marts for every study run here (the cards), gated and published as `peerlake build`."""
    from peerlake.console import report_run, run_quietly
    from peerlake.orchestration.build_plan import AUTO
    from peerlake.orchestration.studies import build_all

    run = run_quietly(build_all, "validate-judges", tags={"peerlake/command": "validate-judges"}, mode=AUTO)
    report_run(run)
    if not run.success:
        fail("the build of the marts failed (above); the cards are not current: fix it and run "
             "`peerlake build`, then this command again (it replays every call)")


def fail(message: str) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    raise typer.Exit(1)
