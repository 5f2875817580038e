"""`validate-judges --limit N`'s choice of reviews on test_validate_all's RevUtil rows, imported into a real
lake: two people first, then (the tie-break) a review with two or more labelled items before one with a
single item, which makes no kappa; SHA-256 order only within those groups. Review B (one comment) sorts
before A (two comments) by SHA-256, so only the tie-break puts A first when both are rated by two people."""

import csv

import pytest

from peerlake.commands.validate import choose_reviews
from peerlake.ingest.label_datasets import import_labels
from peerlake.ingest.revutil import ASPECTS
from tests.judging.test_validate_all import RU_A, RU_B, RU_C1, RU_C2, _revutil_row, key_revutil, sha

A, B = key_revutil("pa", RU_A), key_revutil("pb", RU_B)


def _import(log, folder, raters_a, raters_b):
    """A's two comments and B's one, as test_validate_all writes them, rated by the people given."""
    folder.mkdir()
    header = ["review_point", "paper_id", "venue", "focused_review", "batch"] + [
        c for a in ASPECTS for c in (a, f"{a}_label", f"{a}_label_type")]
    rows = [_revutil_row(RU_C1, "pa", RU_A, raters_a, {}), _revutil_row(RU_C2, "pa", RU_A, raters_a, {}),
            _revutil_row("Please release the code.", "pb", RU_B, raters_b, {})]
    with (folder / "all_human_annotations_processed.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    import_labels(log, "revutil", folder)
    log.seal()


@pytest.mark.parametrize(("raters_a", "raters_b", "first"), [
    (["a1", "a2"], ["a1", "a2"], A),  # both two people: the review with two comments first (the tie-break)
    (["a3"], ["a1", "a2"], B),  # two people still come first, even on one comment
    (["a3"], ["a4"], A),  # one person each: two comments first
])
def test_limit_one_draws_a_review_with_two_labelled_items_after_the_two_people_rule(
        judge_log, tmp_path, raters_a, raters_b, first):
    assert sha(B) < sha(A)  # SHA-256 alone would take B, whose one comment makes no kappa
    _import(judge_log, tmp_path / "revutil", raters_a, raters_b)
    assert choose_reviews(judge_log, "revutil", 1) == [first]
    assert choose_reviews(judge_log, "revutil", None) == [first, ({A, B} - {first}).pop()]
