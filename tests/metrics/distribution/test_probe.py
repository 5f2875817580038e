import math

import numpy as np
import pytest

from peerlake.metrics.distribution import probe_distribution
from peerlake.metrics.distribution.probe import ProbeParseError


def pos(token, alts):
    return {"token": token, "logprob": math.log(dict(alts)[token]) if token in dict(alts) else -1.0,
            "top": [{"token": t, "logprob": math.log(p)} for t, p in alts]}


PREFIX = [pos('{"', [('{"', 0.99)]), pos("overall", [("overall", 0.99)]), pos('_score":', [('_score":', 0.99)])]


def test_keeps_score_candidates_and_renormalizes():
    alts = [("7", 0.5), ("8", 0.2), (" 6", 0.1), ("6", 0.05), ("}", 0.05), ("x", 0.02)]
    d = probe_distribution([*PREFIX, pos("7", alts), pos("}", [("}", 1.0)])])
    kept = 0.5 + 0.2 + 0.15
    assert d.mass_kept == pytest.approx(kept)
    assert d.r[[5, 6, 7]] == pytest.approx([0.15 / kept, 0.5 / kept, 0.2 / kept])
    assert d.r.sum() == pytest.approx(1.0)
    assert d.present.tolist() == [s in (6, 7, 8) for s in range(1, 11)]
    assert d.ten_method == "not_needed"


def test_one_is_split_into_one_and_ten_by_the_continuation():
    first = [*PREFIX, pos("8", [("8", 0.6), ("1", 0.4)])]
    cont = [*PREFIX, pos("1", [("1", 0.4), ("8", 0.6)]), pos("0", [("0", 0.75), ("}", 0.25)])]
    d = probe_distribution(first, cont)
    assert d.p_zero_after_one == pytest.approx(0.75)
    assert d.r[[0, 7, 9]] == pytest.approx([0.4 * 0.25, 0.6, 0.4 * 0.75])
    assert d.ten_method == "continuation"
    without = probe_distribution(first)
    assert without.ten_method == "no_continuation" and without.r[0] == pytest.approx(0.4)


def test_a_single_ten_token_needs_no_continuation():
    d = probe_distribution([*PREFIX, pos("10", [("10", 0.3), ("1", 0.1), ("9", 0.6)])])
    assert d.ten_method == "single_token"
    assert d.r[[0, 8, 9]] == pytest.approx([0.1, 0.6, 0.3])


def test_no_score_token_is_a_named_error():
    with pytest.raises(ProbeParseError, match="no output token holds a digit"):
        probe_distribution(PREFIX)
    with pytest.raises(ProbeParseError, match=r"no candidate among 1\.\.10"):
        probe_distribution([*PREFIX, pos("7", [("seven", 1.0)])])


def test_an_answer_of_one_carries_its_own_split():
    # the local model's real shape: ' ' then '1' then '}' with "0" among the alternatives
    first = [*PREFIX, pos(" ", [(" ", 0.85), ("1", 0.05)]), pos("1", [("1", 0.5), ("5", 0.3), ("0", 0.2)]),
             pos("}", [("}", 0.9), ("0", 0.1)])]
    d = probe_distribution(first)
    assert d.ten_method == "same_call" and d.p_zero_after_one == pytest.approx(0.1)
    assert d.r[[0, 4, 9]] == pytest.approx(np.array([0.45, 0.3, 0.05]) / 0.8)
