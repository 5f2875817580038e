"""[judging.probes]: which bias probes `peerlake probe-judges` runs and their tolerances; every mistake is a
StudyError naming the key."""

import pytest

from peerlake.studies import StudyError, parse_study

BASE = 'name = "s"\njudges = ["flaws"]\n[papers]\ncorpus = "demo"\n'


def test_no_table_declares_nothing():
    j = parse_study("s", BASE).judging
    assert (j.probes, j.probe_seed, j.probe_tolerances) == ((), 0, ())


def test_a_table_with_run_seed_and_tolerances():
    j = parse_study("s", BASE + '[judging.probes]\nrun = ["pool_order", "length"]\nseed = 3\n'
                                '[judging.probes.tolerance]\nlength = 0.2\n"pool_order.n_mentions" = 2\n'
                                '"self_preference.doa" = 0.1\n').judging
    assert j.probes == ("pool_order", "length") and j.probe_seed == 3
    assert j.probe_tolerances == (("length", 0.2), ("pool_order.n_mentions", 2.0), ("self_preference.doa", 0.1))
    assert parse_study("s", BASE + "[judging.probes]\nseed = 1\n").judging.probes == (
        "length", "comment_order", "pool_order", "candidate_order")  # run left out: every probe


@pytest.mark.parametrize(("table", "says"), [
    ('run = ["verbosity"]', "judging.probes.run"),
    ('run = "length"', "judging.probes.run"),
    ("seed = -1", "judging.probes.seed"),
    ("sead = 1", "judging.probes.sead"),
    ('[judging.probes.tolerance]\nlenght = 0.1', "judging.probes.tolerance.lenght"),
    ('[judging.probes.tolerance]\n"length.doa" = 0.1', "judging.probes.tolerance.length.doa"),
    ("[judging.probes.tolerance]\nlength = -0.1", "must be a number >= 0"),
])
def test_mistakes_name_the_key(table, says):
    with pytest.raises(StudyError, match=says.replace(".", r"\.")):
        parse_study("s", BASE + "[judging.probes]\n" + table + "\n")
