"""Suite `revision_directions`: one row per (study, condition, Scorer pair); the nine cells of the direction
table add up to n_papers, same + reversal + any-zero − both-zero = n_papers, shares are probabilities, and
Pearson lies in [−1, 1] (the identities the direction tables of "Can We Believe AI Peer Review?" obey,
checked on every build)."""

MODEL = "revision_directions"
KEY = "revision_direction_id"
STAGE = "statistics"
SIGNS = ("pos", "zero", "neg")
TABLE = tuple(f"n_{a}_{b}" for a in SIGNS for b in SIGNS)
COLUMNS = [KEY, "study_id", "condition", "scorer_x", "scorer_y", "n_papers", *TABLE, "n_same", "n_reversal",
           "n_any_zero", "share_same", "share_reversal", "share_any_zero", "pearson_gains", "gain_noise_sd_x",
           "gain_noise_sd_y"]


def derive(frame):
    """The two identities as differences that must be 0."""
    frame["table_gap"] = sum(frame[c] for c in TABLE) - frame["n_papers"]
    frame["partition_gap"] = (frame["n_same"] + frame["n_reversal"] + frame["n_any_zero"] - frame["n_zero_zero"]
                              - frame["n_papers"])
    return frame


def expectations() -> list:
    """The suite's expectations (great_expectations is imported here, not at module import)."""
    import great_expectations as gx

    return [
        *[gx.expectations.ExpectColumnValuesToBeBetween(column=c, min_value=0, max_value=0)
          for c in ("table_gap", "partition_gap")],
    ]
