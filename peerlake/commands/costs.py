"""`peerlake costs`: what model calls cost, by study, reviewer configuration, judge, asset, run, model,
prompt or day, from the published `cost_breakdown` mart."""

import typer

from peerlake.commands import command_group

DIMENSIONS = ("study", "reviewer_config", "judge", "system", "asset", "run", "model", "prompt", "day")
ALL_STUDIES = "(all studies)"  # cost_breakdown.study_scope of the rows that count every call


def breakdown_sql(by: str, study: str | None) -> str:
    """The SELECT over cost_breakdown for one dimension and study scope (values quoted, `by` checked)."""
    if by not in DIMENSIONS:
        raise ValueError(f"--by must be one of {', '.join(DIMENSIONS)}, not {by!r}")
    scope = (study or ALL_STUDIES).replace("'", "''")
    return f"""
select
    dimension_value as "{by}",
    n_paid_calls as paid,
    n_error_attempts as errors,
    n_replays as replays,
    n_retrieval_calls as searches,
    uncached_input_tokens as uncached_in_tok,
    cached_input_tokens as cached_in_tok,
    cache_write_tokens as cache_write_tok,
    output_tokens as output_tok,
    round(cost_usd, 6) as cost_usd,
    n_unpriced_calls as unpriced
from cost_breakdown
where study_scope = '{scope}' and dimension = '{by}'
order by cost_usd desc nulls last, dimension_value
"""


@command_group("costs", listed=70)
def register(app: typer.Typer) -> None:
    @app.command(rich_help_panel="Results")
    def costs(by: str = typer.Option("study", "--by", help=f"one of: {', '.join(DIMENSIONS)}"),
              study: str = typer.Option(None, "--study", help="only what this study's runs did "
                                        "(default: every call in the lake)"),
              fmt: str = typer.Option("table", "--format", "-f", help="table | csv | json")) -> None:
        """What calls cost per study, reviewer configuration, judge, asset, Dagster run, model, prompt
        version or UTC day: calls paid for, failed attempts, replays (free, counted), searches, tokens
        by class and USD, each call priced at the price in force on its day. A call whose price is
        unknown is counted under unpriced and left out of cost_usd, never counted as 0."""
        try:
            sql = breakdown_sql(by, study)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        from peerlake.console import emit_rows, query_published

        cols, rows = query_published(sql, hint="If the marts have no cost_breakdown mart (published before it "
                                                "existed): run `peerlake build`.")
        if fmt != "table":
            emit_rows(cols, rows, fmt)
        else:
            scope = f"study {study}" if study else "all studies"
            emit_rows(cols, rows, fmt, title=f"cost by {by} ({scope})")
            typer.echo("cost_usd: each call at the price in force on its UTC day (llm_calls/prices.toml, as "
                       "recorded in the lake); unpriced: answered calls of unknown price, not in cost_usd; "
                       "replays cost nothing. '(cli)': made outside Dagster; '(no study)': outside any study.")
