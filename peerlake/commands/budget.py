"""`peerlake budget`: how many reviews per paper are enough, from numbers or from the lake."""

import json
from pathlib import Path

import typer

from peerlake.commands import command_group

LAKE_SQL = """
select study_id || '|' || reviewer_config as name, variance_hat, n_papers_repeated, n_certified_pairs,
    reviews_per_paper_min
from reliability_repeatability
"""


class BudgetInputError(ValueError):
    """The lake cannot supply V̂ for the requested configuration; the message says why."""


def lake_inputs(duckdb_path: Path, config: str | None) -> dict:
    """V̂, N, n and M for one `study|reviewer_config` (or a unique prefix of it, or a configuration
    hash that only one study has) from the lake, read-only. M is the certified pair count N·⌊n_min/2⌋."""
    from peerlake.warehouse.marts_reader import MartsUnreadable, NoMarts
    from peerlake.warehouse.marts_reader import rows as mart_rows

    try:
        rows = mart_rows(duckdb_path, LAKE_SQL)
    except NoMarts as exc:
        raise BudgetInputError(f"{exc}; or pass --variance/--papers/--pilot-reviews") from None
    except MartsUnreadable as exc:
        raise BudgetInputError(str(exc)) from None
    if not rows:
        raise BudgetInputError(f"{duckdb_path} holds no reviewer configuration yet (no AI reviews)")
    by_name = {r["name"]: r for r in rows}
    known = sorted(by_name)
    matches = [n for n in known if config is None or n == config] or \
        [n for n in known if n.startswith(config or "") or n.split("|", 1)[1].startswith(config or "")]
    if len(matches) != 1:
        why = "several configurations" if config is None else (
            f"no configuration matches {config!r}" if not matches else f"{config!r} is ambiguous")
        raise BudgetInputError(f"{why}; pass --config with one of: {', '.join(known)}")
    row = by_name[matches[0]]
    if row["variance_hat"] is None:
        raise BudgetInputError(f"configuration {row['name']} has no paper with two or more parsed scores, "
                               "so no variance estimate; review with --samples 2 or more")
    return {"reviewer_config": row["name"], "variance_hat": float(row["variance_hat"]),
            "n_papers": int(row["n_papers_repeated"]),
            "pilot_reviews": int(row["reviews_per_paper_min"]), "n_pairs": int(row["n_certified_pairs"])}


@command_group("budget", listed=20)
def register(app: typer.Typer) -> None:
    """Add `peerlake budget` to the app."""

    @app.command(rich_help_panel="Results")
    def budget(
        tolerance: float = typer.Option(..., "--tolerance", "-e",
                                        help="ε: wanted distance from the paper's true mean score"),
        variance: float | None = typer.Option(None, "--variance", help="V̂: mean within-paper variance of the pilot"),
        papers: int | None = typer.Option(None, "--papers", help="N: papers in the pilot"),
        pilot_reviews: int | None = typer.Option(None, "--pilot-reviews", help="n: reviews per paper in the pilot"),
        alpha: float = typer.Option(0.05, "--alpha", help="P(V > U) allowed for the certified bound"),
        beta: float = typer.Option(0.05, "--beta", help="allowed average failure rate (1 − target success)"),
        scale_min: float = typer.Option(1, "--scale-min", help="a: lowest score on the scale"),
        scale_max: float = typer.Option(10, "--scale-max", help="b: highest score on the scale"),
        configs: int = typer.Option(1, "--configs", help="m: configurations controlled at once (α/m each)"),
        config: str | None = typer.Option(None, "--config",
                                          help="reviewer_config (or a prefix) to read V̂ from the lake"),
        as_json: bool = typer.Option(False, "--json", help="print JSON"),
    ) -> None:
        """New reviews per paper for the mean of k to land within ε of the truth: planning (V̂),
        certified (upper bound U, P(V > U) ≤ α) and range-only (no pilot) budgets."""
        from peerlake.metrics.stats.budgets import compute_budgets
        from peerlake.warehouse import settings

        try:
            if variance is None:
                if papers is not None or pilot_reviews is not None:
                    raise BudgetInputError("--papers/--pilot-reviews need --variance "
                                           "(without it all three come from the lake)")
                inputs = lake_inputs(settings.duckdb_path(), config)
            else:
                if papers is None or pilot_reviews is None:
                    raise BudgetInputError("--variance needs --papers and --pilot-reviews")
                inputs = {"variance_hat": variance, "n_papers": papers,
                          "pilot_reviews": pilot_reviews, "n_pairs": None}
            result = compute_budgets(
                inputs["variance_hat"], inputs["n_papers"], inputs["pilot_reviews"], tolerance,
                alpha=alpha, beta=beta, scale_min=scale_min, scale_max=scale_max,
                n_configs=configs, n_pairs=inputs["n_pairs"])
        except ValueError as exc:  # BudgetInputError and out-of-range numbers
            typer.echo(f"peerlake budget: {exc}", err=True)
            raise typer.Exit(2) from None
        out = result.as_dict()
        if "reviewer_config" in inputs:
            out = {"reviewer_config": inputs["reviewer_config"], **out}
        if as_json:
            typer.echo(json.dumps(out, indent=1))
            return
        source = f"configuration {out['reviewer_config']}" if "reviewer_config" in out else "given numbers"
        typer.echo(
            f"pilot ({source}): V̂ = {result.variance_hat:.4g} from {result.n_papers} papers, "
            f"M = {result.n_pairs} disjoint score pairs; scale [{result.scale_min:g}, {result.scale_max:g}]\n"
            f"U (P(V > U) ≤ α/m = {result.alpha_per_config:.4g}) = {result.variance_upper:.4g}\n"
            f"new reviews per paper for ε = {tolerance:g}, β = {beta:g}:\n"
            f"  planning   ⌈V̂/(βε²)⌉            {result.planning_budget}\n"
            f"  certified  ⌈U/(βε²)⌉             {result.certified_budget}\n"
            f"  range-only ⌈(b−a)²·log(2/β)/(2ε²)⌉ {result.range_only_budget}")
