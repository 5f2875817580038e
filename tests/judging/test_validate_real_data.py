"""`peerlake validate-judges` on the real datasets in ../shared/data (skipped when absent), up to the study and
no further (no model): the import, a second import that writes nothing, and the reviews chosen, worked out
here from the dataset's own files (the rule: a reference label for every judge the dataset anchors, two or
more people first, then two or more labelled items, then SHA-256 order of the review key; SubstanReview: the
first N of the split)."""

import ast
import csv
import hashlib
import json
import tomllib

import pytest

from peerlake.commands.validate import prepare
from peerlake.studies import load_study
from peerlake.warehouse import EventLog, settings

N = 2
MODEL = {"provider": None, "model": None, "repeats": 1, "temperature": None}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def first(candidates: dict[str, tuple[int, int]]) -> list[str]:
    """candidates: review key -> (how many people labelled it, how many items have a reference label); the
    rule's first N."""
    return sorted(candidates, key=lambda k: (candidates[k][0] < 2, candidates[k][1] < 2, sha(k)))[:N]


def disapere_expected(root) -> list[str]:
    people: dict[str, set] = {}
    with_stance, items = set(), {}
    for part in ("final_dataset", "extra_annotations"):
        for path in root.glob(f"{part}/*/*.json"):
            doc = json.loads(path.read_text(encoding="utf-8"))
            key = f"external:disapere:{doc['metadata']['review_id']}"
            people.setdefault(key, set()).add(doc["metadata"]["annotator"])
            # novelty's stance is mapped for originality sentences; depth's is_unit for every sentence
            if part == "final_dataset" and any(s["aspect"] == "asp_originality" for s in doc["review_sentences"]):
                with_stance.add(key)
            if part == "final_dataset":  # every sentence is an item (depth's is_unit)
                items[key] = len(doc["review_sentences"])
    return first({k: (len(people[k]), items[k]) for k in with_stance})


def revutil_expected(root) -> list[str]:
    csv.field_size_limit(10**7)
    people: dict[str, set] = {}
    rated, items = set(), {}
    with (root / "all_human_annotations_processed.csv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            key = f"external:revutil:revutil-{row['paper_id'].strip()}-{sha(row['focused_review'])[:12]}"
            for aspect in ("actionability", "grounding_specificity", "verifiability", "professional_tone",
                           "helpfulness", "valid_point", "addressed_to_author"):
                people.setdefault(key, set()).update(ast.literal_eval(row[aspect])["annotators"])
            if row["actionability_label"].strip() in {"1", "2", "3", "4", "5"}:  # D1 mapped: a reference label
                rated.add(key)
            # an item (a comment) with a reference label the mapping reads, on any of the four dimensions
            if any(row[f"{a}_label"].strip() in ("1", "2", "3", "4", "5") for a in (
                    "actionability", "grounding_specificity", "verifiability")) or \
                    row["professional_tone_label"].strip() in ("0", "1"):
                items.setdefault(key, set()).add(row["review_point"])
    return first({k: (len(people[k]), len(items[k])) for k in rated})


def kind(segment: dict) -> str | None:
    """A segment's error type as the mapping reads it; None for one the import sets aside (reliable yet given an
    error type). The dataset writes a missing error type as NaN."""
    error = segment.get("error_type")
    error = error.strip() if isinstance(error, str) else ""
    if segment["reliability"] == "Yes":
        return None if error else "reliable"
    return (error or "unspecified").lower()


def reviewcritique_expected(root) -> list[str]:
    mapping = tomllib.loads((settings.REPO_ROOT / "prompts/label_mappings/reviewcritique.toml").read_text())
    mapped = set(mapping["dimensions"]["validity"]["values"])  # reliable and the error types it maps
    keys = {}
    for line in (root / "ReviewCritique_LLM.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        paper = json.loads(line)
        for model in ("claude_opus", "gpt4", "gemini_pro_1.5"):
            if paper.get(model) and any(s["reliability"] == "Yes" for s in paper[model]["review"]):  # valid: true
                kinds = [kind(s) for s in paper[model]["review"]]
                key = f"external:reviewcritique:reviewcritique-{sha(paper['title'].strip())[:12]}.{model}"
                keys[key] = (0, sum(k in mapped for k in kinds))  # no person named
    return first(keys)


@pytest.mark.parametrize(("dataset", "expected"), [("disapere", disapere_expected), ("revutil", revutil_expected),
                                                   ("reviewcritique", reviewcritique_expected)])
def test_the_reviews_chosen_from_the_real_labels(lake, shared_data, dataset, expected):
    root = shared_data / dataset
    prepared = prepare(dataset, root, "test", N, MODEL)
    log = EventLog(lake)
    n_events = sum(1 for _ in log.iter_events())
    assert list(prepared.reviews) == expected(root)
    again = prepare(dataset, root, "test", N, MODEL)
    assert again == prepared and sum(1 for _ in EventLog(lake).iter_events()) == n_events  # nothing written
    study = load_study(EventLog(lake), f"{dataset}-validation")
    papers = {f"external:{e.system}:{e.review_id}": e.paper_id for e in log.iter_events("external_review_imported")}
    assert study.judging.reviews == prepared.reviews
    assert study.ids == tuple(sorted({papers[k] for k in prepared.reviews}))


def test_substanreview_takes_the_first_reviews_of_the_split(lake, shared_data):
    root = shared_data / "substanreview"
    ids = [json.loads(line)["id"] for line in (root / "annotation_final/test.jsonl").read_text(
        encoding="utf-8").splitlines()[:N]]
    prepare("substanreview", root, "test", N, MODEL)
    n_events = sum(1 for _ in EventLog(lake).iter_events())
    prepare("substanreview", root, "test", N, MODEL)
    assert sum(1 for _ in EventLog(lake).iter_events()) == n_events
    study = load_study(EventLog(lake), "substanreview-validation")
    assert (study.ids, study.judges, study.judging.reviews) == (
        tuple(f"substanreview-{i}" for i in ids), ("depth",), ())
