"""Suite `revision_cases`: one row per (study, condition, Scorer pair, stratum); a row with a paper names
its gains and the block it shows, an empty stratum names none, and the directions are signs."""

MODEL = "revision_cases"
KEY = "revision_case_id"
STAGE = "statistics"
COLUMNS = [KEY, "study_id", "condition", "scorer_x", "scorer_y", "stratum", "n_papers_in_stratum", "paper_id",
           "gain_x", "gain_y", "direction_x", "direction_y", "block_rule"]


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    picked = Column("n_papers_in_stratum") > 0
    return [
        *[gx.expectations.ExpectColumnValuesToNotBeNull(column=c, row_condition=picked)
          for c in ("paper_id", "gain_x", "gain_y", "direction_x", "direction_y")],
        gx.expectations.ExpectColumnValuesToBeNull(column="paper_id", row_condition=Column("n_papers_in_stratum") == 0),
        *[gx.expectations.ExpectColumnValuesToBeInSet(column=c, value_set=[-1, 0, 1], row_condition=picked)
          for c in ("direction_x", "direction_y")],
    ]
