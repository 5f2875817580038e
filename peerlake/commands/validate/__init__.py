"""`peerlake validate-judges DATASET|all`: hold each PRISM judge against people. Per dataset: import its
human labels (idempotent: a second import writes nothing), choose N labelled reviews, write the study
`<dataset>-validation` with the judges the dataset anchors on those reviews only, run it as `peerlake run`
does, build once, and print each judge's card (mart judge_cards) with the annotators' ceiling beside it.

    substanreview   depth (claim / premise spans)           the first N reviews of the split
    disapere        depth (roles), novelty (stances)        N by the rule of `choose_reviews` (choice.py)
    revutil         constructiveness (D1, D2, D3, D5)       〃
    reviewcritique  flaws (validity, manuscript at hand)    〃

`all` runs the four in turn, goes on past one that fails, and ends with one summary table. The annotators
of SubstanReview labelled the first 50 reviews of its train split: `--split train --limit 50` gives that
card its human ceiling.

This module holds the command; datasets.py what each dataset is, choice.py the draw of reviews, prepare.py
the import and the study, running.py the run and the build, cards.py what is printed."""

from pathlib import Path

import typer

from peerlake.commands import command_group
from peerlake.commands.validate.cards import print_cards, summary_row
from peerlake.commands.validate.choice import choose_reviews
from peerlake.commands.validate.datasets import (
    ANCHORS,
    DATASETS,
    HOLDS,
    STUDY,
    DatasetError,
    default_data_path,
    study_name,
)
from peerlake.commands.validate.prepare import Prepared, prepare, study_file
from peerlake.commands.validate.running import build_marts, fail, run_steps

EMBEDDED_NOTE = (
    "These cards come from the embedded {model}: it tests the machinery (the imports, the choice of reviews, "
    "the judge calls and their parsing, the matching of the judge's units to the people's items, the cards), "
    "not what a judge can reach. A 1.5B model is no judge of argument roles, novelty stances, comment ratings "
    "or flaw validity, and on {n} review(s) per dataset every interval is wide: these figures are not a "
    "judge's quality. For a card that is, run a hosted model on more reviews: "
    "peerlake validate-judges all --provider openai --model gpt-4.1 --limit 50.")
# What the tests and other modules import from here, besides the command.
__all__ = ["ANCHORS", "DATASETS", "STUDY", "DatasetError", "Prepared", "choose_reviews", "prepare", "register",
           "study_file", "study_name"]


@command_group("validate", listed=50)
def register(app: typer.Typer) -> None:
    @app.command("validate-judges", rich_help_panel="Advanced")
    def validate_judges(
        dataset: str = typer.Argument(..., help=f"all, or one of {', '.join(DATASETS)}"),
        split: str = typer.Option("test", "--split", help="SubstanReview's split: train | test"),
        limit: int = typer.Option(None, "--limit", min=1, help="judge n reviews of each dataset (SubstanReview: the "
                                  "first n of the split; the others: labelled by two people first, then those with "
                                  "two labelled items or more, SHA-256 order)"),
        data: Path = typer.Option(None, "--data", help="the dataset's folder; with all, the folder holding "
                                  "substanreview/, disapere/, revutil/, reviewcritique/ (default ../shared/data "
                                  "beside the checkout)"),
        provider: str = typer.Option(None, "--provider", help="the judge's provider (default: the environment's)"),
        model: str = typer.Option(None, "--model", help="the judge's model (default: the environment's)"),
        repeats: int = typer.Option(1, "--repeats", min=1, help="judge each review this many times (>= 2: the "
                                    "card's test-retest alpha)"),
        temperature: float = typer.Option(None, "--temperature", min=0.0, help="the judge's temperature (default 0, "
                                          "as PRISM; repeats differ only by their seed then)"),
    ) -> None:
        """Hold the PRISM judges against people: import a human-labelled dataset, judge N of its reviews, print
        each judge's card (kappa / alpha against the labels, the annotators' ceiling)."""
        if dataset != "all" and dataset not in DATASETS:
            fail(f"unknown dataset {dataset!r}; known: all, {', '.join(DATASETS)}")
        names = DATASETS if dataset == "all" else (dataset,)
        model_keys = {"provider": provider, "model": model, "repeats": repeats, "temperature": temperature}
        failures: dict[str, str] = {}
        prepared: dict[str, Prepared] = {}
        for i, name in enumerate(names, 1):
            typer.secho(f"\n== {name} ({i} of {len(names)}): {', '.join(ANCHORS[name])}", bold=True)
            folder = (data / name if dataset == "all" else data) if data is not None else default_data_path(name)
            try:
                if folder is None:
                    raise DatasetError(f"no {name} copy beside the checkout (../shared/data/{name}): pass --data "
                                       f"PATH, the folder holding {HOLDS[name]}" + (
                                           " (with all: the folder holding the datasets' folders)"
                                           if dataset == "all" else ""))
                prepared[name] = prepare(name, folder, split, limit, model_keys)
                run_steps(prepared[name])
            except DatasetError as exc:
                failures[name] = str(exc)
                typer.secho(f"error: {name}: {exc}", fg="red", err=True)
                prepared.pop(name, None)
        cards: dict[str, list[dict]] = {}
        if prepared:
            build_marts()
            for name, p in prepared.items():
                try:
                    cards[name] = print_cards(name, p, split)
                except DatasetError as exc:
                    failures[name] = str(exc)
                    typer.secho(f"error: {name}: {exc}", fg="red", err=True)
        if dataset == "all":
            from peerlake.console import print_rows

            print_rows([summary_row(name, judge, cards.get(name, []), failures.get(name))
                        for name in names for judge in ANCHORS[name]],
                       title="the four PRISM judges against people (lowest human kappa over each judge's dimensions)")
        _embedded_note(cards, limit)
        typer.echo('all columns: peerlake query "select * from judge_cards" / "select * from quality_judge_validation"')
        if failures:
            raise typer.Exit(1)


def _embedded_note(cards: dict[str, list[dict]], limit: int | None) -> None:
    from peerlake.warehouse import settings

    models = sorted({r["judge_model"] for rows in cards.values() for r in rows} & set(settings.LOCAL_MODELS))
    if models:
        typer.secho("\n" + EMBEDDED_NOTE.format(model=", ".join(models), n=limit or "all"), fg="yellow")
