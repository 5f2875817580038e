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


def test_a_judge_table_is_that_judges_whole_requirement():
    study = parse_study("s", 'name = "s"\njudges = ["depth", "flaws"]\n[papers]\ncorpus = "demo"\n'
                             '[judging.require]\nkappa_min = 0.5\nretest_alpha_min = 0.8\non_fail = "flag"\n'
                             '[judging.require.flaws]\nkappa_min = 0.2\non_fail = "block"\n')
    require = dict(study.judging.require)
    # the common keys for depth; flaws' own κ and on_fail over them, its retest α inherited
    assert (require["kappa_min"], require["on_fail"]) == (0.5, "flag")
    assert require["flaws"] == (("kappa_min", 0.2), ("on_fail", "block"), ("retest_alpha_min", 0.8))
    assert "depth" not in require
    # a judge's table alone is a requirement (for that judge only)
    only = parse_study("s", BASE + "[judging.require.novelty]\nkappa_min = 0.3\n").judging.require
    assert only == (("novelty", (("kappa_min", 0.3), ("on_fail", "block"))),)


@pytest.mark.parametrize(("text", "says"), [
    ("[judging.require.flawz]\nkappa_min = 0.2\n", "did you mean `judging.require.flaws`"),
    ("[judging.require.flaws]\nkappa_min = 2\n", "judging.require.flaws.kappa_min must be a number in [-1, 1]"),
    ("[judging.require.flaws]\nkapa_min = 0.2\n", "did you mean `judging.require.flaws.kappa_min`"),
    ('[judging.require.flaws]\non_fail = "flag"\n', "[judging.require.flaws] sets no threshold"),
    ("[judging.require]\nflaws = 0.2\n", "judging.require.flaws must be a table"),
])
def test_a_bad_judge_table_is_refused_naming_the_key(text, says):
    with pytest.raises(StudyError) as info:
        parse_study("s", BASE + text)
    assert says in str(info.value)


def test_a_requirement_of_a_judge_the_study_does_not_run_is_refused_at_parse():
    """Whether a judge's card will have human labels is known only at the build (not measured, then, fails
    as on_fail says: judge_card_checks); a judge the study never runs is known here."""
    with pytest.raises(StudyError) as info:
        parse_study("s", 'name = "s"\njudges = ["depth"]\n[papers]\ncorpus = "demo"\n'
                         "[judging.require.flaws]\nkappa_min = 0.2\n")
    assert "requires of a judge the study does not run (judges = [depth])" in str(info.value)
