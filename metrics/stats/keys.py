"""Which columns key an analysis table: (study_id, reviewer_config) once studies exist, else
reviewer_config alone, so the demo's numbers and a user's study never pool."""

import pandas as pd

STUDY = "study_id"


def has_study(frame: pd.DataFrame) -> bool:
    return STUDY in frame.columns


def key_columns(frame: pd.DataFrame, *rest: str) -> list[str]:
    """study_id first when the frame has it, then the given columns."""
    return [STUDY, *rest] if has_study(frame) else list(rest)


def keyed_columns(frame: pd.DataFrame, columns: dict[str, str]) -> dict[str, str]:
    """An output schema with study_id (string) as its first column when the input has one."""
    return {STUDY: "string", **columns} if has_study(frame) else dict(columns)


def join_id(*parts) -> str:
    """A readable primary key from its parts, e.g. study|config|scope."""
    return "|".join(str(p) for p in parts)
