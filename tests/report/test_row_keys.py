"""The audit keys under the report's figures, read column by column (audit.keys.row_keys): the same
KEY `peerlake audit` finds a row by, rows without a key value left out."""

import pandas as pd

from peerlake.audit.keys import row_keys


def test_keys_join_the_key_columns_and_leave_out_rows_missing_one():
    rows = pd.DataFrame({"study_id": ["s1", "s1", "s2"], "source": ["ai", "ai", None],
                         "paper_id": ["P1", "P2", "P3"], "reviewer_config": ["c", "c", "c"],
                         "sample_index": [0, 12, 3], "overall_score": [6.0, None, 4.0]})
    # an integer column reads as "12", never "12.0"; the third row has no source, so no key
    assert row_keys("fct_ai_review_scores", rows) == ["s1|ai|P1|c|0", "s1|ai|P2|c|12"]


def test_a_mart_with_a_readable_primary_key_uses_it():
    rows = pd.DataFrame({"validity_id": ["s|c|all", None], "pearson": [0.5, 0.1]})
    assert row_keys("reliability_validity", rows) == ["s|c|all"]


def test_no_keys_without_the_key_columns_or_for_an_unknown_mart():
    assert row_keys("fct_ai_review_scores", pd.DataFrame({"study_id": ["s"]})) == []
    assert row_keys("no_such_mart", pd.DataFrame({"x": [1]})) == []
