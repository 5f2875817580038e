"""Which labelled reviews of a dataset `validate-judges --limit N` judges: a fixed draw, so the same N
reviews come back on every run and lake (docs/judges/human-labels.md, "Choose N reviews")."""

import hashlib
import json

from peerlake.commands.validate.datasets import ANCHORS


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
