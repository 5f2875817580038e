"""[judging.require]: what a study's judge card must show; checked at parse, and never part of the judge's
identity (requiring more of a judge does not make it another judge)."""

import pytest

from peerlake.studies import StudyError
from peerlake.studies.parse import parse_study

BASE = 'name = "s"\n[papers]\ncorpus = "demo"\n'


def _study(require: str):
    return parse_study("s", BASE + "[judging.require]\n" + require)


def test_thresholds_and_on_fail_are_read_and_sorted():
    study = _study('retest_alpha_min = 0.8\nkappa_min = 0.4\nposition_shift_max = 1\non_fail = "flag"\n')
    assert study.judging.require == (("kappa_min", 0.4), ("on_fail", "flag"), ("position_shift_max", 1.0),
                                     ("retest_alpha_min", 0.8))
    assert dict(_study("kappa_min = 0.5\n").judging.require)["on_fail"] == "block"  # the default
    assert parse_study("s", BASE).judging.require == ()


def test_the_requirement_is_not_part_of_the_judge_configuration():
    plain, required = parse_study("s", BASE), _study("kappa_min = 0.5\n")
    assert plain.judging.model_settings() == required.judging.model_settings()


@pytest.mark.parametrize(("text", "says"), [
    ("kappa_min = 2\n", "judging.require.kappa_min must be a number in [-1, 1]"),
    ("kappa_min = true\n", "judging.require.kappa_min must be a number"),
    ("position_shift_max = -1\n", "judging.require.position_shift_max must be a number >= 0"),
    ('kappa_min = 0.4\non_fail = "warn"\n', 'on_fail must be "block" or "flag"'),
    ("kapa_min = 0.4\n", "did you mean `judging.require.kappa_min`"),
])
def test_a_bad_requirement_is_refused_naming_the_key(text, says):
    with pytest.raises(StudyError, match=None) as info:
        _study(text)
    assert says in str(info.value)
