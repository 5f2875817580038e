"""Suite `stress_cards`: counts nest (papers within built variants, gamed papers within papers, mentioning
reviews within those judged); an interval brackets its estimate; every null number has a reason; and each
verdict follows from its shift in noise units and the row's declared tolerance (not_measured exactly when
there is no such shift), so a card can never say pass for a reviewer its own numbers fail."""

import numpy as np

MODEL = "stress_cards"
KEY = "stress_card_id"
STAGE = "statistics"
NULL_REASONS = {"shift_mean": "shift_null_reason", "shift_ci_low": "shift_ci_null_reason",
                "sigma": "sigma_null_reason", "gameability": "gameability_null_reason"}
SOUNDNESS_NULL_REASONS = {"discrimination": "discrimination_null_reason", "detection_rate": "detection_null_reason"}
COLUMNS = [KEY, "family", "n_variants", "n_not_built", "not_built_reasons", "n_papers", "shift_mean", "shift_ci_low",
           "shift_ci_high", "shift_null_reason", "shift_ci_null_reason", "sigma", "sigma_null_reason",
           "shift_noise_units", "discrimination", "discrimination_null_reason", "n_gamed_papers", "gameability",
           "gameability_ci_low", "gameability_ci_high", "gameability_null_reason", "n_reviews_judged",
           "n_reviews_mentioning", "detection_rate", "detection_null_reason", "invariance_max_noise_units",
           "sensitivity_min_noise_units", "verdict", "verdict_reason"]


def derive(frame):
    """null_without_reason: the numbers null with no reason beside them (must be none); verdict_follows:
    the verdict is what the shift in noise units and the tolerance give (the rule of metrics.stress, restated
    here so the gate checks the mart instead of trusting it)."""
    soundness = frame["family"] == "soundness"
    missing = sum((frame[v].isna() & frame[r].isna()).astype(int) for v, r in NULL_REASONS.items())
    missing += sum((soundness & frame[v].isna() & frame[r].isna()).astype(int)
                   for v, r in SOUNDNESS_NULL_REASONS.items())
    frame["null_without_reason"] = missing
    u = frame["shift_noise_units"].astype(float)
    top, need = frame["invariance_max_noise_units"], frame["sensitivity_min_noise_units"]
    ok = np.where(soundness, u <= -need, np.where(frame["family"] == "injection", u <= top, u.abs() <= top))
    expected = np.where(u.isna(), "not_measured", np.where(ok, "pass", "fail"))
    frame["verdict_follows"] = frame["verdict"].astype(str) == expected
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx
    from great_expectations.expectations.row_conditions import Column

    from peerlake.expectations.shared import at_least

    return [
        at_least("n_variants", "n_papers"),
        at_least("n_papers", "n_gamed_papers", ignore_missing=True),
        at_least("n_reviews_judged", "n_reviews_mentioning", ignore_missing=True),
        at_least("shift_ci_high", "shift_ci_low", ignore_missing=True),
        at_least("gameability", "gameability_ci_low", ignore_missing=True),
        at_least("gameability_ci_high", "gameability", ignore_missing=True),
        gx.expectations.ExpectColumnValuesToBeBetween(column="null_without_reason", min_value=0, max_value=0),
        gx.expectations.ExpectColumnValuesToBeInSet(column="verdict_follows", value_set=[True]),
        gx.expectations.ExpectColumnValuesToNotBeNull(column="verdict_reason"),
        gx.expectations.ExpectColumnValuesToNotBeNull(
            column="not_built_reasons", row_condition=Column("n_not_built") > 0),
        gx.expectations.ExpectColumnValuesToBeNull(column="shift_mean", row_condition=Column("n_papers") == 0),
    ]
