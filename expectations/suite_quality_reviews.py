"""Suite `quality_reviews`: a judged review's null headline metric always says why (null_reasons). The
metrics' ranges are each judge's own mart's checks (quality_depth, ...), not repeated here."""

MODEL = "quality_reviews"
KEY = "quality_review_id"
STAGE = "statistics"


def _headline() -> list[str]:
    from peerlake.judging.registry import review_metrics

    return [m.name for m in review_metrics() if m.headline]


COLUMNS = [KEY, "study_id", "review_key", "source", "null_reasons", *_headline()]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    return [gx.expectations.ExpectColumnValuesToNotBeNull(column="null_reasons", row_condition=Column(m).is_null())
            for m in _headline()]
