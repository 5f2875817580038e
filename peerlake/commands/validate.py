"""`peerlake validate-judges substanreview`: import SubstanReview's human claim / evidence spans (the final
labels and the three annotators' own), run the depth judge on those reviews as the study
`substanreview-validation`, and print how far its units and claim / premise labels agree with the humans
(mart quality_judge_validation) and the judge's card (mart judge_cards: κ / α against the humans with the
annotators' α beside it, and test–retest α with --repeats 2 or more). The annotators labelled the first 50
reviews of the train split: `--split train --limit 50` gives the card its human ceiling."""

from pathlib import Path

import typer

from peerlake.commands import command_group

STUDY = "substanreview-validation"
DATASETS = ("substanreview",)
# Beside a checkout, the shared data folder holds a copy (../shared/data/substanreview).
_BESIDE_CHECKOUT = ("shared", "data", "substanreview")
# What the command prints of the mart (the rest: `peerlake query "select * from quality_judge_validation"`).
SHOWN = ("judge_model", "dataset_split", "n_reviews", "n_null_judgments", "n_gold_spans", "n_units",
         "span_precision_iou", "span_recall_iou", "span_f1_iou", "span_f1_overlap", "role_accuracy_iou",
         "claim_all_f1_iou", "premise_all_f1_iou")
CARD = ("judge_model", "dimension", "statistic", "estimate", "ci_low", "ci_high", "n", "n_reviews", "status")


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    raise typer.Exit(1)


def default_data_path() -> Path | None:
    from peerlake.warehouse import settings

    path = settings.REPO_ROOT.parent.joinpath(*_BESIDE_CHECKOUT)
    return path if settings.IN_CHECKOUT and path.is_dir() else None


def study_file(paper_ids: list[str], provider: str | None = None, model: str | None = None,
               repeats: int = 1, temperature: float | None = None) -> str:
    """The validation study: the depth judge on the imported reviews only (no reviewer, no human review)."""
    from peerlake.studies import study_text

    judging = {"sources": ["external"], **({"provider": provider} if provider else {}),
               **({"model": model} if model else {}), **({"repeats": repeats} if repeats > 1 else {}),
               **({"temperature": temperature} if temperature is not None else {})}
    return study_text(STUDY, description="The depth judge against SubstanReview's human claim / evidence spans "
                      "(written by `peerlake validate-judges`).", ids=paper_ids, reviewers=False,
                      external_systems=["substanreview"], judges=["depth"], judging=judging)


def validation_rows(duckdb_path: Path, study: str = STUDY) -> list[dict]:
    from peerlake.warehouse.marts_reader import rows

    return rows(duckdb_path, f"select {', '.join(SHOWN)} from quality_judge_validation where study_id = ? "
                "order by judge_model, dataset_split", [study])


def card_rows(duckdb_path: Path, study: str = STUDY) -> list[dict]:
    """The study's judge card rows (mart judge_cards), the depth judge's measured and unvalidated ones."""
    from peerlake.warehouse.marts_reader import rows

    return rows(duckdb_path, f"select {', '.join(CARD)} from judge_cards where study_id = ? "
                "and status != 'not_measured' order by judge_model, dimension, statistic", [study])


@command_group("validate", listed=50)
def register(app: typer.Typer) -> None:
    @app.command("validate-judges", rich_help_panel="Advanced")
    def validate_judges(
        dataset: str = typer.Argument(..., help="the human-annotated dataset: substanreview"),
        split: str = typer.Option("test", "--split", help="train | test"),
        limit: int = typer.Option(None, "--limit", min=1, help="only the first n reviews of the split"),
        data: Path = typer.Option(None, "--data", help="the dataset's folder (holding annotation_final/); "
                                  "default ../shared/data/substanreview beside the checkout"),
        provider: str = typer.Option(None, "--provider", help="the judge's provider (default: the environment's)"),
        model: str = typer.Option(None, "--model", help="the judge's model (default: the environment's)"),
        repeats: int = typer.Option(1, "--repeats", min=1, help="judge each review this many times (>= 2: the "
                                    "card's test-retest alpha)"),
        temperature: float = typer.Option(None, "--temperature", min=0.0, help="the judge's temperature (default 0, "
                                          "as PRISM; repeats differ only by their seed then)"),
    ) -> None:
        """Score the depth judge's units and claim/premise labels against human spans (a study + a mart)."""
        from peerlake.commands.study import run_study_command
        from peerlake.console import print_rows
        from peerlake.ingest.batch import counts
        from peerlake.ingest.substanreview import (
            import_substanreview,
            import_substanreview_annotators,
            imported_paper_ids,
        )
        from peerlake.studies import StudyError, save_study
        from peerlake.warehouse import EventLog, settings
        from peerlake.warehouse.marts_reader import MartsUnreadable

        if dataset not in DATASETS:
            _fail(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
        data = data or default_data_path()
        if data is None:
            _fail("no SubstanReview copy beside the checkout: pass --data PATH (the folder holding annotation_final/)")
        log = EventLog()
        try:
            outcomes = import_substanreview(log, data, split, limit)
        except ValueError as exc:
            _fail(str(exc))
        # the annotators' own spans (annotation_IAA): the human ceiling of the judge card
        for o in import_substanreview_annotators(log, data):
            if o.status == "rejected":
                typer.secho(f"REJECTED {o.reason}", err=True, fg=typer.colors.RED)
        for o in outcomes:
            if o.status == "rejected":
                typer.secho(f"REJECTED {o.reason}", err=True, fg=typer.colors.RED)
        tally = counts(outcomes, ("imported", "skipped", "rejected"))
        typer.echo(f"{dataset} {split}: " + " · ".join(f"{k} {v}" for k, v in tally.items()))
        log.seal()
        paper_ids = imported_paper_ids(outcomes)
        if not paper_ids:
            log.close()
            _fail(f"no review of {data} ({split}) is in the lake; nothing to judge")
        try:
            save_study(log, STUDY, study_file(paper_ids, provider, model, repeats, temperature))
        except (StudyError, ValueError) as exc:
            _fail(str(exc))
        finally:
            log.close()
        run_study_command(STUDY, probes=False, command="validate-judges")
        try:
            validation, card = validation_rows(settings.duckdb_path()), card_rows(settings.duckdb_path())
        except MartsUnreadable as exc:
            _fail(str(exc))
        print_rows(validation,
                   title=f"depth judge vs {dataset} human spans (study {STUDY}; IoU >= span_match_iou, default 0.5)")
        print_rows(card,
                   title=f"judge card (study {STUDY}; 95% intervals; human_human_alpha = the annotators' ceiling)")
        typer.echo('all columns: peerlake query "select * from quality_judge_validation" '
                   '/ "select * from judge_cards"')
