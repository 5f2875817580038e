"""`peerlake plan-labels STUDY --target-width W`: how many human labels (and judged reviews) give a
system-vs-human difference an interval of width W, with and without the judge (prediction-powered
inference), from the variances quality_comparison measured; the judge-side twin of `peerlake budget`."""

import math

import typer

from peerlake.commands import command_group

SQL = """
select system, metric, judge_config, n_human_labels, n_judged, ppi_var_human, ppi_var_residual, ppi_var_judge,
    naive_diff, ppi_diff
from quality_comparison
where study_id = ? and n_human_labels > 0 and ppi_var_residual is not null
order by system, metric
"""
CAVEAT = ("Dorner, Nastl & Hardt (\"Limits to scalable evaluation at the frontier: LLM as judge won't beat twice "
          "the data\", ICLR 2025): when the judge is no more accurate than the model it evaluates, debiasing with it "
          "saves at most half the labels. A saving above 50 % here says the measured judge is better than that, on "
          "these labels; it is an estimate from few labels, not a guarantee.")


def plan_rows(rows: list[dict], width: float) -> list[dict]:
    """One plan per (system, metric): labels for a difference of width W (each side gets half of the
    labels and of the judged reviews, so the difference's variance is four times one mean's: the plan of
    one mean of width W/2; metrics.quality.ppi.plan_labels)."""
    from peerlake.metrics.quality.ppi import Z, plan_labels

    out = []
    for r in rows:
        p = plan_labels(width / 2, r["ppi_var_human"], r["ppi_var_residual"], r["ppi_var_judge"], int(r["n_judged"]))
        budget = (width / 2 / (2 * Z)) ** 2
        out.append({"system": r["system"], "metric": r["metric"], "labels now": int(r["n_human_labels"]),
                    "judged reviews": p.judged,
                    "labels (PPI)": "unreachable" if p.labels_ppi is None else p.labels_ppi,
                    "labels (humans only)": p.labels_classical,
                    "saving": "—" if p.saving is None else f"{100 * p.saving:.0f} %",
                    "judged reviews needed at least": math.floor(r["ppi_var_judge"] / budget) + 1
                    if r["ppi_var_judge"] else 1})
    return out


@command_group("plan_labels", listed=120)
def register(app: typer.Typer) -> None:
    @app.command("plan-labels", rich_help_panel="Results")
    def plan_labels_command(
        name: str = typer.Argument(..., help="the study whose quality_comparison rows are planned"),
        target_width: float = typer.Option(..., "--target-width", "-w", min=0.0,
                                           help="the width of the 95 % interval of the system − human difference"),
    ) -> None:
        """How many human labels (and judged reviews) give each system-vs-human quality difference a 95 %
        interval of width W: with the judge's values debiased by prediction-powered inference, and from human
        labels alone. Needs human labels (`peerlake ingest labels`) on some reviews the judge judged."""
        from peerlake.console import console, print_rows
        from peerlake.warehouse import Lake
        from peerlake.warehouse.marts_reader import MartsUnreadable
        from peerlake.warehouse.marts_reader import rows as mart_rows

        if target_width <= 0:
            typer.secho("error: --target-width must be > 0", fg="red", err=True)
            raise typer.Exit(2)
        try:
            rows = mart_rows(Lake.default().duckdb_path, SQL, [name])
        except MartsUnreadable as exc:  # no file, or one published before quality_comparison had its PPI columns
            typer.secho(f"error: {exc}", fg="red", err=True)
            raise typer.Exit(1) from None
        if not rows:
            console.print(f"Study {name} has no quality metric with human labels yet: import some with "
                          "`peerlake ingest labels FILE --dataset NAME` (reviews the judge judged), then "
                          "`peerlake build`. Without them no variance of the judge's error is known.",
                          highlight=False, soft_wrap=True)
            raise typer.Exit(1)
        print_rows(plan_rows(rows, target_width), title=f"human labels for a 95 % interval of width {target_width:g}")
        console.print(CAVEAT, highlight=False, soft_wrap=True)
