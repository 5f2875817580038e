"""`peerlake validate-judges substanreview`: import SubstanReview's human claim / evidence spans, run the
depth judge on those reviews as the study `substanreview-validation`, and print how far its units and
claim / premise labels agree with the humans (mart quality_judge_validation)."""

from pathlib import Path

import typer

STUDY = "substanreview-validation"
DATASETS = ("substanreview",)
# Beside a checkout, the shared data folder holds a copy (../shared/data/substanreview).
_BESIDE_CHECKOUT = ("shared", "data", "substanreview")
# What the command prints of the mart (the rest: `peerlake query "select * from quality_judge_validation"`).
SHOWN = ("judge_model", "dataset_split", "n_reviews", "n_null_judgments", "n_gold_spans", "n_units",
         "span_precision_iou", "span_recall_iou", "span_f1_iou", "span_f1_overlap", "role_accuracy_iou",
         "claim_all_f1_iou", "premise_all_f1_iou")


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    raise typer.Exit(1)


def default_data_path() -> Path | None:
    from warehouse import settings

    path = settings.REPO_ROOT.parent.joinpath(*_BESIDE_CHECKOUT)
    return path if settings.IN_CHECKOUT and path.is_dir() else None


def study_file(paper_ids: list[str], provider: str | None = None, model: str | None = None) -> str:
    """The validation study: the depth judge on the imported reviews only (no reviewer, no human review)."""
    from studies import study_text

    judging = {"sources": ["external"], **({"provider": provider} if provider else {}),
               **({"model": model} if model else {})}
    return study_text(STUDY, description="The depth judge against SubstanReview's human claim / evidence spans "
                      "(written by `peerlake validate-judges`).", ids=paper_ids, reviewers=False,
                      external_systems=["substanreview"], judges=["depth"], judging=judging)


def validation_rows(duckdb_path: Path, study: str = STUDY) -> list[dict]:
    import duckdb

    cols = ", ".join(SHOWN)
    with duckdb.connect(str(duckdb_path), read_only=True) as con:
        cur = con.execute(f"select {cols} from quality_judge_validation where study_id = ? "
                          "order by judge_model, dataset_split", [study])
        return [dict(zip(SHOWN, r, strict=True)) for r in cur.fetchall()]


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
    ) -> None:
        """Score the depth judge's units and claim/premise labels against human spans (a study + a mart)."""
        from ingest.batch import counts
        from ingest.substanreview import import_substanreview, imported_paper_ids
        from peerlake.commands.study import run_study_command
        from peerlake.console import print_rows
        from studies import StudyError, save_study
        from warehouse import EventLog, settings

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
            save_study(log, STUDY, study_file(paper_ids, provider, model))
        except (StudyError, ValueError) as exc:
            _fail(str(exc))
        finally:
            log.close()
        run_study_command(STUDY, probes=False, command="validate-judges")
        print_rows(validation_rows(settings.duckdb_path()),
                   title=f"depth judge vs {dataset} human spans (study {STUDY}; IoU >= span_match_iou, default 0.5)")
        typer.echo('all columns: peerlake query "select * from quality_judge_validation"')
