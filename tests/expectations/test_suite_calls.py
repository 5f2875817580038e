"""The call viewer's gates (suites call_replays, call_judgments, call_system_runs) on hand-made frames: a
good frame passes, and each broken row fails the expectation it breaks."""

from datetime import UTC, datetime

import pandas as pd
import pytest

from peerlake.expectations import validate_frame

T0, T1 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)


def replays(**cols) -> pd.DataFrame:
    base = {"call_replay_id": ["c1|a", "c1|b"], "llm_call_id": ["c1", "c1"], "study_id": ["a", "b"],
            "n_replays": [1, 3], "first_replayed_at": [T0, T0], "last_replayed_at": [T0, T1]}
    return pd.DataFrame({**base, **cols})


def judgments(**cols) -> pd.DataFrame:
    base = {"judgment_id": ["j1", "j2"], "judge": ["depth", "depth"], "step": ["units", "units"],
            "judge_config": ["d" * 16] * 2, "subject_key": ["peerlake:r1", "human:h1"], "status": ["ok", "null"],
            "null_reason": [None, "no_answer"], "n_calls": [1, 0]}
    return pd.DataFrame({**base, **cols})


def runs(**cols) -> pd.DataFrame:
    base = {"system_review_id": ["s1", "s2"], "system_name": ["mlr", "mlr"], "system_config": ["e" * 16] * 2,
            "paper_id": ["P1", "P2"], "status": ["ok", "null"], "n_steps": [3, 0], "n_steps_answered": [3, 0]}
    return pd.DataFrame({**base, **cols})


@pytest.mark.parametrize(("suite", "frame"), [("call_replays", replays()), ("call_judgments", judgments()),
                                              ("call_system_runs", runs())])
def test_a_good_frame_passes(suite, frame):
    result = validate_frame(suite, frame)
    assert result.success, result.describe()


@pytest.mark.parametrize(("suite", "frame", "bad"), [
    ("call_replays", replays(last_replayed_at=[T0, T0], first_replayed_at=[T0, T1]), "last_replayed_at"),
    ("call_judgments", judgments(null_reason=[None, None]), "null_reason"),  # a null judgment that says not why
    ("call_judgments", judgments(null_reason=["why?", "no_answer"]), "null_reason"),  # an ok one with a reason
    ("call_system_runs", runs(n_steps_answered=[4, 0]), "n_steps"),  # more answered than named
])
def test_a_broken_row_fails_its_expectation(suite, frame, bad):
    result = validate_frame(suite, frame)
    assert not result.success and len(result.failures) == 1 and bad in result.failures[0], result.describe()
