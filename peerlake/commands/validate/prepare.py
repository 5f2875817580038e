"""One dataset made ready to judge: its labels imported (a second import writes nothing), its reviews chosen
and the study `<dataset>-validation` saved with the judges it anchors on those reviews only."""

from dataclasses import dataclass
from pathlib import Path

import typer

from peerlake.commands.validate.choice import choose_reviews
from peerlake.commands.validate.datasets import ANCHORS, HOLDS, DatasetError, study_name


@dataclass(frozen=True)
class Prepared:
    study: str
    judges: tuple[str, ...]
    reviews: tuple[str, ...]  # the review keys judged (empty: all of the study's papers' reviews)


def study_file(paper_ids: list[str], provider: str | None = None, model: str | None = None,
               repeats: int = 1, temperature: float | None = None, dataset: str = "substanreview",
               reviews: list[str] = ()) -> str:
    """The validation study: the dataset's judges on its imported reviews only (no reviewer, no human
    review); `reviews` narrows them to those review keys."""
    from peerlake.studies import study_text

    judges = ANCHORS[dataset]
    judging = {"sources": ["external"], **({"reviews": list(reviews)} if reviews else {}),
               # DISAPERE ships reviews without their papers: novelty's claims (the stances) are extracted anyway
               **({"claims_without_paper": True} if "novelty" in judges else {}),
               **({"provider": provider} if provider else {}), **({"model": model} if model else {}),
               **({"repeats": repeats} if repeats > 1 else {}),
               **({"temperature": temperature} if temperature is not None else {})}
    return study_text(study_name(dataset), description=f"The {' and '.join(judges)} judge(s) against {dataset}'s "
                      "human labels (written by `peerlake validate-judges`).", ids=paper_ids, reviewers=False,
                      external_systems=[dataset], judges=list(judges), judging=judging)


def _import_substanreview(log, data: Path, split: str, limit: int | None) -> tuple[Prepared, list[str]]:
    from peerlake.ingest.batch import counts
    from peerlake.ingest.substanreview import (
        import_substanreview,
        import_substanreview_annotators,
        imported_paper_ids,
    )

    try:
        outcomes = import_substanreview(log, data, split, limit)
    except ValueError as exc:
        raise DatasetError(str(exc)) from None
    # the annotators' own spans (annotation_IAA): the human ceiling of the judge card
    for o in [*import_substanreview_annotators(log, data), *outcomes]:
        if o.status == "rejected":
            typer.secho(f"REJECTED {o.reason}", err=True, fg=typer.colors.RED)
    typer.echo(f"substanreview {split}: " + " · ".join(
        f"{k} {v}" for k, v in counts(outcomes, ("imported", "skipped", "rejected")).items()))
    paper_ids = imported_paper_ids(outcomes)
    if not paper_ids:
        raise DatasetError(f"no review of {data} ({split}) is in the lake; nothing to judge (give the folder "
                           f"holding {HOLDS['substanreview']})")
    return Prepared(study_name("substanreview"), ANCHORS["substanreview"], ()), paper_ids


def _import_labels(log, dataset: str, data: Path, limit: int | None) -> tuple[Prepared, list[str]]:
    from peerlake.ingest.label_datasets import import_labels

    try:
        imported = import_labels(log, dataset, data)
    except ValueError as exc:
        raise DatasetError(str(exc)) from None
    for o in imported.outcomes:
        if o.status == "rejected":
            typer.secho(f"REJECTED {o.reason}", err=True, fg=typer.colors.RED)
    typer.echo(f"{dataset}: {imported.summary()}")
    log.seal()
    reviews = choose_reviews(log, dataset, limit)
    if not reviews:
        raise DatasetError(f"{data}: no review has a reference label for every judge {dataset} anchors "
                           f"({', '.join(ANCHORS[dataset])}); nothing to judge (is it the folder holding "
                           f"{HOLDS[dataset]}? see the REJECTED lines above)")
    papers = {f"external:{e.system}:{e.review_id}": e.paper_id for e in log.iter_events("external_review_imported")
              if e.system == dataset}
    return Prepared(study_name(dataset), ANCHORS[dataset], tuple(reviews)), sorted({papers[k] for k in reviews})


def prepare(dataset: str, data: Path, split: str, limit: int | None, model_keys: dict) -> Prepared:
    """Import the dataset, choose its reviews and save its study; DatasetError says why it cannot."""
    from peerlake.studies import StudyError, save_study
    from peerlake.warehouse import EventLog

    log = EventLog()
    try:
        if dataset == "substanreview":
            prepared, paper_ids = _import_substanreview(log, data, split, limit)
        else:
            prepared, paper_ids = _import_labels(log, dataset, data, limit)
        log.seal()
        save_study(log, prepared.study, study_file(paper_ids, dataset=dataset, reviews=list(prepared.reviews),
                                                   **model_keys))
    except (StudyError, ValueError) as exc:
        raise DatasetError(str(exc)) from None
    finally:
        log.close()
    n, k = len(prepared.reviews) or len(paper_ids), len(prepared.judges)
    typer.echo(f"{prepared.study}: the {' and '.join(prepared.judges)} judge{'s' * (k > 1)} on {n} "
               f"review{'s' * (n != 1)}")
    return prepared
