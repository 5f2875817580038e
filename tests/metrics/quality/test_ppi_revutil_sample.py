"""Why share_actionable has no human value for PPI (int_quality_ppi_labels, docs/judges/index.md): RevUtil rates
a sample of each review's comments, not all of them, so the share of a review's comments that are actionable
(the judge's denominator: every comment of the review) is not in its labels. The figures the docs give, from
the real file (skipped when ../shared/data is absent), each review as the importer groups it."""

import csv
import io
import statistics

import pytest

from peerlake.ingest.revutil import FILE, MAX_FIELD_CHARS, parse_row
from tests.conftest import SHARED_DATA

PATH = SHARED_DATA / "revutil" / FILE


def test_revutil_rates_a_sample_of_each_reviews_comments():
    if not PATH.is_file():
        pytest.skip(f"RevUtil not present at {PATH}")
    csv.field_size_limit(MAX_FIELD_CHARS)
    points: dict[tuple[str, str], set[str]] = {}
    for row in csv.DictReader(io.StringIO(PATH.read_text(encoding="utf-8"), newline="")):
        fields = parse_row(row)
        points.setdefault((fields["paper_id"], fields["review"]), set()).add(fields["point"])
    one = sum(1 for p in points.values() if len(p) == 1)
    held = statistics.median(sum(len(p) for p in ps) / len(review) for (_, review), ps in points.items())
    assert (one, len(points)) == (847, 974)
    assert held == pytest.approx(0.21, abs=0.005)
