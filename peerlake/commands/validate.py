"""`peerlake validate-judges DATASET|all`: hold each PRISM judge against people. Per dataset: import its
human labels (idempotent: a second import writes nothing), choose N labelled reviews, write the study
`<dataset>-validation` with the judges the dataset anchors on those reviews only, run it as `peerlake run`
does, build once, and print each judge's card (mart judge_cards) with the annotators' ceiling beside it.

    substanreview   depth (claim / premise spans)           the first N reviews of the split
    disapere        depth (roles), novelty (stances)        N by the rule of `choose_reviews`
    revutil         constructiveness (D1, D2, D3, D5)       〃
    reviewcritique  flaws (validity, manuscript at hand)    〃

`all` runs the four in turn, goes on past one that fails, and ends with one summary table. The annotators
of SubstanReview labelled the first 50 reviews of its train split: `--split train --limit 50` gives that
card its human ceiling."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import typer

from peerlake.commands import command_group

STUDY = "substanreview-validation"  # the SubstanReview study's name (study_name("substanreview"))
# What each dataset anchors (docs/judges/human-labels.md); the label datasets' judges are also named by
# their mappings (prompts/label_mappings/<dataset>.toml), and a test holds the two equal.
ANCHORS = {"substanreview": ("depth",), "disapere": ("depth", "novelty"), "revutil": ("constructiveness",),
           "reviewcritique": ("flaws",)}
DATASETS = tuple(ANCHORS)
HOLDS = {"substanreview": "annotation_final/", "disapere": "final_dataset/ and extra_annotations/",
         "revutil": "all_human_annotations_processed.csv", "reviewcritique": "ReviewCritique_LLM.jsonl"}
# Beside a checkout, the shared data folder holds a copy of each (../shared/data/<dataset>).
_BESIDE_CHECKOUT = ("shared", "data")
# What the command prints of the depth mart (the rest: `peerlake query "select * from quality_judge_validation"`).
SHOWN = ("judge_model", "dataset_split", "n_reviews", "n_null_judgments", "n_gold_spans", "n_units",
         "span_precision_iou", "span_recall_iou", "span_f1_iou", "span_f1_overlap", "role_accuracy_iou",
         "claim_all_f1_iou", "premise_all_f1_iou")
CARD = ("judge", "judge_model", "dataset", "dimension", "statistic", "estimate", "ci_low", "ci_high", "n",
        "n_reviews", "status", "null_reason")
# The card's rows against people and across repeats; the annotators' alpha is printed beside them as the ceiling.
AGAINST = ("human_kappa", "human_alpha", "retest_alpha", "retest_icc")
CEILING = "human_human_alpha"
EMBEDDED_NOTE = (
    "These cards come from the embedded {model}: it tests the machinery (the imports, the choice of reviews, "
    "the judge calls and their parsing, the matching of the judge's units to the people's items, the cards), "
    "not what a judge can reach. A 1.5B model is no judge of argument roles, novelty stances, comment ratings "
    "or flaw validity, and on {n} review(s) per dataset every interval is wide: these figures are not a "
    "judge's quality. For a card that is, run a hosted model on more reviews: "
    "peerlake validate-judges all --provider openai --model gpt-4.1 --limit 50.")


class DatasetError(Exception):
    """One dataset cannot be validated; the message says what, where, why and what to do."""


@dataclass(frozen=True)
class Prepared:
    study: str
    judges: tuple[str, ...]
    reviews: tuple[str, ...]  # the review keys judged (empty: all of the study's papers' reviews)


def study_name(dataset: str) -> str:
    return f"{dataset}-validation"


def default_data_path(dataset: str) -> Path | None:
    """../shared/data/<dataset> beside a checkout; None when there is none."""
    from peerlake.warehouse import settings

    path = settings.REPO_ROOT.parent.joinpath(*_BESIDE_CHECKOUT, dataset)
    return path if settings.IN_CHECKOUT and path.is_dir() else None


def choose_reviews(log, dataset: str, limit: int | None) -> list[str]:
    """The reviews of `dataset` to judge: those with a reference label on a dimension of every judge the
    dataset anchors (a DISAPERE review needs an originality sentence for novelty); those labelled by two or
    more people first (the card's human ceiling needs them), then within each group those with two or more
    labelled items first (one item makes no kappa: a RevUtil review of one rated comment measures nothing),
    each group in SHA-256 order of the review key (a fixed draw, as plan-labels draws); the first `limit`
    (all without one)."""
    from peerlake.ingest.label_mapping import load

    judge_of = {d.name: d.judge for d in load(dataset).dimensions}
    judged: dict[str, set[str]] = {}
    items: dict[str, set[str]] = {}
    people: dict[str, set[str]] = {}
    for e in log.iter_events("human_label_imported"):
        if e.dataset != dataset:
            continue
        people.setdefault(e.review_key, set()).update([e.annotator] if e.annotator else [])
        if e.is_reference:
            mapped = json.loads(e.mapped_json)
            judges = {judge_of[k] for k, v in mapped.items() if v is not None and k in judge_of}
            judged.setdefault(e.review_key, set()).update(judges)
            if judges:
                items.setdefault(e.review_key, set()).add(e.item_key)
    wanted = set(ANCHORS[dataset])
    keys = sorted((len(people[k]) < 2, len(items[k]) < 2, hashlib.sha256(k.encode()).hexdigest(), k)
                  for k, judges in judged.items() if wanted <= judges)
    return [k for *_, k in keys][:limit]


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


def validation_rows(duckdb_path: Path, study: str = STUDY) -> list[dict]:
    from peerlake.warehouse.marts_reader import rows

    return rows(duckdb_path, f"select {', '.join(SHOWN)} from quality_judge_validation where study_id = ? "
                "order by judge_model, dataset_split", [study])


def card_rows(duckdb_path: Path, study: str = STUDY) -> list[dict]:
    """The study's judge card rows (mart judge_cards), every statistic of every judge it ran."""
    from peerlake.warehouse.marts_reader import rows

    return rows(duckdb_path, f"select {', '.join(CARD)} from judge_cards where study_id = ? "
                "order by judge, dataset, dimension, statistic", [study])


def _interval(row: dict | None) -> str:
    if row is None:
        return "—"
    if row["estimate"] is None or row["estimate"] != row["estimate"]:  # null or NaN: not defined
        return f"— ({row['null_reason'] or 'undefined'})"
    lo, hi = row["ci_low"], row["ci_high"]
    # one review: resampling reviews cannot make an interval
    ci = " (no interval)" if lo is None or lo != lo else f" [{lo:.2f}, {hi:.2f}]"
    return f"{row['estimate']:.2f}{ci}"


def compact_card(rows: list[dict]) -> list[dict]:
    """The card as printed: one line per (judge, dataset, dimension, statistic) against people or across
    repeats, the annotators' alpha on the same items beside it (the ceiling)."""
    ceiling = {(r["judge"], r["dataset"], r["dimension"]): r for r in rows if r["statistic"] == CEILING}
    return [{"judge": r["judge"], "dataset": r["dataset"] or "", "dimension": r["dimension"],
             "statistic": r["statistic"], "estimate [95% CI]": _interval(r), "n": r["n"], "reviews": r["n_reviews"],
             "human ceiling": _interval(ceiling.get((r["judge"], r["dataset"], r["dimension"])))
             if r["statistic"].startswith("human") else "", "status": r["status"]}
            for r in rows if r["statistic"] in AGAINST]


def summary_row(dataset: str, judge: str, rows: list[dict], failure: str | None) -> dict:
    """One judge on one dataset: its lowest human kappa (the dimension named), that dimension's ceiling."""
    out = {"dataset": dataset, "judge": judge, "reviews": "", "lowest human κ [95% CI]": "", "dimension": "",
           "human ceiling": "", "status": "failed (its error is above)" if failure else ""}
    if failure:
        return out
    mine = [r for r in rows if r["judge"] == judge]
    kappas = [r for r in mine if r["statistic"] == "human_kappa"]
    measured = [r for r in kappas if r["status"] == "measured"]
    if not measured:
        out["status"] = kappas[0]["status"] + f" ({kappas[0]['null_reason']})" if kappas else "no card row"
        return out
    low = min(measured, key=lambda r: r["estimate"])
    ceiling = next((r for r in mine if r["statistic"] == CEILING and r["dataset"] == low["dataset"]
                    and r["dimension"] == low["dimension"]), None)
    out.update({"reviews": max(r["n_reviews"] for r in kappas), "lowest human κ [95% CI]": _interval(low),
                "dimension": low["dimension"], "human ceiling": _interval(ceiling),
                "status": f"{len(measured)} of {len(kappas)} dimensions measured"})
    return out


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


def _run(prepared: Prepared) -> None:
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


def _build() -> None:
    """One build of the marts for every study run here (the cards), gated and published as `peerlake build`."""
    from peerlake.console import report_run, run_quietly
    from peerlake.orchestration.build_plan import AUTO
    from peerlake.orchestration.studies import build_all

    run = run_quietly(build_all, "validate-judges", tags={"peerlake/command": "validate-judges"}, mode=AUTO)
    report_run(run)
    if not run.success:
        _fail("the build of the marts failed (above); the cards are not current: fix it and run "
              "`peerlake build`, then this command again (it replays every call)")


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    raise typer.Exit(1)


def _print(dataset: str, prepared: Prepared, split: str) -> list[dict]:
    from peerlake.console import print_rows
    from peerlake.warehouse import settings
    from peerlake.warehouse.marts_reader import MartsUnreadable

    try:
        card = card_rows(settings.duckdb_path(), prepared.study)
        validation = validation_rows(settings.duckdb_path(), prepared.study) if dataset == "substanreview" else []
    except MartsUnreadable as exc:
        raise DatasetError(str(exc)) from None
    if validation:
        print_rows(validation, title=f"depth judge vs {dataset} human spans (study {prepared.study}, {split}; "
                   "IoU >= span_match_iou, default 0.5)")
    print_rows(compact_card(card), title=f"judge card · {dataset} (study {prepared.study}; 95% intervals over "
               "reviews; human ceiling = the annotators' alpha on the same items)")
    return card


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
            _fail(f"unknown dataset {dataset!r}; known: all, {', '.join(DATASETS)}")
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
                _run(prepared[name])
            except DatasetError as exc:
                failures[name] = str(exc)
                typer.secho(f"error: {name}: {exc}", fg="red", err=True)
                prepared.pop(name, None)
        cards: dict[str, list[dict]] = {}
        if prepared:
            _build()
            for name, p in prepared.items():
                try:
                    cards[name] = _print(name, p, split)
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
