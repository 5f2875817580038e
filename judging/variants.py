"""What the experiment judges that read reviews of paper variants share (judging.detection for the
contradiction benchmark, judging.injection for hidden text): the built variants of one kind, and the
(variant, review, role) subjects a study's reviews give them."""

import json
from collections.abc import Sequence
from typing import Protocol, TypeVar

from peerlake.judging.reviews import JudgedReview


def built_variants(log, kind: str) -> dict[str, tuple[object, dict]]:
    """The built variants of `kind` by variant id: the newest `paper_variant` event of each, with its
    details (an unreadable details_json reads as {})."""
    newest: dict[str, object] = {}
    for ev in log.iter_events("paper_variant"):
        if ev.kind != kind or not ev.built:
            continue
        if ev.variant_id not in newest or ev.event_id > newest[ev.variant_id].event_id:
            newest[ev.variant_id] = ev
    out = {}
    for vid, ev in newest.items():
        try:
            details = json.loads(ev.details_json)
        except ValueError:
            details = {}
        out[vid] = (ev, details if isinstance(details, dict) else {})
    return out


class _Variant(Protocol):
    variant_id: str
    base_paper_id: str


V = TypeVar("V", bound=_Variant)


def variant_subjects(found: dict[str, V], reviews: Sequence[JudgedReview], *, variant_role: str,
                     base_role: str | None) -> list[tuple[V, JudgedReview, str]]:
    """(variant, review, role) for every variant the study reviewed: each review of it (`variant_role`)
    and, with a `base_role`, each non-human review of its base paper (the control: what a review of
    the unmodified paper gets judged as). Variants no review of the study read are left out."""
    by_paper: dict[str, list[JudgedReview]] = {}
    for r in reviews:
        by_paper.setdefault(r.paper_id, []).append(r)
    out = []
    for vid in sorted(found):
        v = found[vid]
        if vid not in by_paper:
            continue  # not one of the study's papers (another study's variant), or nothing reviewed it yet
        out += [(v, r, variant_role) for r in by_paper[vid]]
        if base_role is not None:
            out += [(v, r, base_role) for r in by_paper.get(v.base_paper_id, []) if r.source != "human"]
    return out
