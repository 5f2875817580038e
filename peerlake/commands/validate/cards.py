"""The judge cards `validate-judges` prints: read from the published marts (judge_cards, and for SubstanReview
quality_judge_validation), one line per statistic with the annotators' ceiling beside it, and the summary
line per judge that `all` ends with."""

from pathlib import Path

from peerlake.commands.validate.datasets import STUDY, DatasetError
from peerlake.commands.validate.prepare import Prepared

# What the command prints of the depth mart (the rest: `peerlake query "select * from quality_judge_validation"`).
SHOWN = ("judge_model", "dataset_split", "n_reviews", "n_null_judgments", "n_gold_spans", "n_units",
         "span_precision_iou", "span_recall_iou", "span_f1_iou", "span_f1_overlap", "role_accuracy_iou",
         "claim_all_f1_iou", "premise_all_f1_iou")
CARD = ("judge", "judge_model", "dataset", "dimension", "statistic", "estimate", "ci_low", "ci_high", "n",
        "n_reviews", "status", "null_reason")
# The card's rows against people and across repeats; the annotators' alpha is printed beside them as the ceiling.
AGAINST = ("human_kappa", "human_alpha", "retest_alpha", "retest_icc")
CEILING = "human_human_alpha"


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


def print_cards(dataset: str, prepared: Prepared, split: str) -> list[dict]:
    """The dataset's card (and SubstanReview's span table) from the published marts; the rows, for the summary."""
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
