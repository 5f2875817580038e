"""`peerlake label STUDY`: label a sample of a study's judged reviews in the browser (report/viewer/label.py),
served on 127.0.0.1 with the call viewer; each label a `human_label_entered` event in the lake's log."""

import getpass

import typer

from peerlake.commands import command_group

# No --n, no plan (no human labels yet, or no --target-width): a first round the plan can then learn from.
FIRST_ROUND = 30


def planned_n(db, study: str, judge_configs: set[str], width: float | None) -> tuple[int | None, str]:
    """The labels `peerlake plan-labels STUDY --target-width W` asks for on this judge's metrics (the most
    any of them needs: PPI's where reachable, else humans-only's), or None with why there is no plan."""
    from peerlake.commands.plan_labels import SQL, plan_rows
    from peerlake.warehouse.marts_reader import MartsUnreadable
    from peerlake.warehouse.marts_reader import rows as mart_rows

    if width is None:
        return None, "no --target-width to plan for"
    try:
        rows = [r for r in mart_rows(db, SQL, [study]) if r["judge_config"] in judge_configs]
    except MartsUnreadable as exc:
        return None, str(exc)
    if not rows:
        return None, f"study {study} has no human labels of this judge's metrics to plan from yet"
    plans = plan_rows(rows, width)
    need = [p["labels (PPI)"] if isinstance(p["labels (PPI)"], int) else p["labels (humans only)"] for p in plans]
    return max(need), f"plan-labels --target-width {width:g}"


@command_group("label", listed=125)
def register(app: typer.Typer) -> None:
    @app.command("label", rich_help_panel="Results")
    def label_command(
        study: str = typer.Argument(..., help="the study whose judged reviews are labelled"),
        judge: str = typer.Option("depth", "--judge", help="depth, novelty or constructiveness"),
        dimension: str = typer.Option(None, "--dimension", help="the judge's field to label (depth: aspect or "
                                      "role; novelty: stance; constructiveness: actionability, specificity, "
                                      "justification, solution or tone); the first by default"),
        n: int = typer.Option(None, "--n", min=1, help="items in the sample (default: what plan-labels asks for "
                              f"with --target-width, else {FIRST_ROUND})"),
        target_width: float = typer.Option(None, "--target-width", min=0.0, help="size the sample as "
                                           "`peerlake plan-labels STUDY --target-width W` does"),
        annotator: str = typer.Option(None, "--annotator", help="who labels (default: the login name); "
                                      "a resumed session skips the items this name has labelled"),
        show_judge: bool = typer.Option(False, "--show-judge", help="show the judge's units and labels "
                                        "(recorded on every label; blind by default)"),
        port: int = typer.Option(8601, "--port", help="the port on 127.0.0.1 (a free one when it is taken)"),
        no_open: bool = typer.Option(False, "--no-open", help="do not open a browser"),
    ) -> None:
        """Label a sample of a study's judged reviews in the browser: the text the judge read, the judge's
        choices on one dimension (keys 1-9), a span by selecting it with the mouse. Sampled as plan-labels
        plans (half human reviews, half the systems'). Each label is an event in the lake's log; quitting
        keeps what was saved, and running it again resumes with the items not yet labelled. Blind by default;
        served on 127.0.0.1 only."""
        from peerlake.commands.view import _check_study, _serve, _site
        from peerlake.console import console
        from peerlake.report.viewer.label import LabelSession
        from peerlake.warehouse import settings

        _check_study(study)
        # a page set of its own: `peerlake view` rewrites ROOT/viewer/ while this one is being served
        site = _site(settings.lake_root() / "labelling", study)
        configs = {j.judge_config for j in site.catalog.judgments if j.judge == judge}
        why = "--n"
        if n is None:
            planned, why = planned_n(site.db, study, configs, target_width)
            n, why = (planned, why) if planned is not None else (FIRST_ROUND, f"a first round of {FIRST_ROUND} ({why})")
        try:
            session = LabelSession(site.reviews, site.log, study, judge, annotator or getpass.getuser(), n,
                                   dimension or "", blind=not show_judge)
        except ValueError as exc:
            typer.secho(f"error: {exc}", fg="red", err=True)
            raise typer.Exit(2) from None
        if not session.items:
            console.print(f"Study {study} has no review the {judge} judge judged ok in the published marts "
                          f"({len(session.skipped)} set aside); run it with this judge and `peerlake build`.",
                          highlight=False, soft_wrap=True)
            raise typer.Exit(1)
        site.label = session
        site.write_lists()
        done = len(session.done())
        console.print(f"{len(session.items)} items ({why}), {done} labelled by {session.annotator} already; "
                      f"{judge} · {session.dimension}, {'blind' if session.blind else 'the judge shown'}. "
                      f"The labels reach the {judge} judge's card (judge_cards, dataset "
                      f"{'entered_blind' if session.blind else 'entered_judge_shown'}) at the next `peerlake build`.",
                      highlight=False, soft_wrap=True)
        _serve(site, port, not no_open, "label")
