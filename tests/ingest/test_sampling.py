"""Stratified sampling: quotas by milp (floor/ceil of the share, coverage), systematic draws,
nested samples, recorded events."""

import itertools
import json
import math
import random

import pytest

from peerlake.ingest.asap import import_asap
from peerlake.ingest.sampling import Paper, SamplingError, draw, draw_nested, population_from_log, solve_quotas


def _population(n=240, seed=3):
    rnd = random.Random(seed)
    areas = ["theory"] * 2 + ["vision"] * 30 + ["nlp"] * 50 + ["rl"] * 18
    return [Paper(f"P{i:04d}", "V", rnd.choice(areas), rnd.choice(["accepted", "rejected", "rejected"]),
                  round(rnd.uniform(1, 10), 3)) for i in range(n)]


def _groups(papers, strata, width=1.0):
    out = {}
    for p in papers:
        key = tuple({"area": p.area, "score_bin": p.score_bin(width), "status": p.status}[s] for s in strata)
        out.setdefault(key, []).append(p)
    return out


@pytest.mark.parametrize("n", [10, 37, 100])
def test_quotas_within_one_of_share_cover_every_area_and_bin(n):
    papers = _population()
    strata = ("area", "score_bin")
    chosen, quotas = draw(papers, n, strata, seed=11)
    groups = _groups(papers, strata)
    assert sum(quotas.values()) == n == len(chosen) == len({p.paper_id for p in chosen})
    for key, members in groups.items():
        share = n * len(members) / len(papers)
        assert math.floor(share) <= quotas[key] <= math.ceil(share)
        picked = [p for p in chosen if p in members]
        assert len(picked) == quotas[key]
    assert {p.area for p in chosen} == {p.area for p in papers}
    assert {p.score_bin(1.0) for p in chosen} == {p.score_bin(1.0) for p in papers}


def test_quotas_are_the_closest_feasible_ones():
    counts = {("a", "x"): 7, ("a", "y"): 3, ("b", "x"): 1, ("b", "y"): 9}
    n = 6
    best = min(
        (q for q in itertools.product(*[range(math.floor(n * c / 20), math.ceil(n * c / 20) + 1)
                                         for c in counts.values()])
         if sum(q) == n and q[2] + q[3] >= 1 and q[0] + q[1] >= 1 and q[0] + q[2] >= 1 and q[1] + q[3] >= 1),
        key=lambda q: sum(abs(qi - n * c / 20) for qi, c in zip(q, counts.values(), strict=True)))
    got = solve_quotas(counts, n, ("area", "score_bin"), seed=0)
    assert tuple(got[k] for k in counts) == best


def test_systematic_within_stratum_follows_score_order_and_seed():
    papers = [Paper(f"Q{i}", "V", "nlp", "rejected", float(i)) for i in range(100)]
    a, _ = draw(papers, 10, ("area",), seed=5)
    b, _ = draw(papers, 10, ("area",), seed=5)
    c, _ = draw(papers, 10, ("area",), seed=6)
    assert a == b and a != c
    idx = [int(p.paper_id[1:]) for p in a]
    # One paper from each tenth of the score order, all at the same offset.
    assert [i // 10 for i in idx] == list(range(10)) and len({i % 10 for i in idx}) == 1


def test_nested_samples_largest_first_and_recorded(log):
    papers = _population(400)
    events = draw_nested(log, papers, [30, 200, 90], ("area", "score_bin", "status"), seed=7,
                         venue="V", drawn_by="tester")
    assert [e.size for e in events] == [200, 90, 30]
    ids = [set(json.loads(e.paper_ids_json)) for e in events]
    assert ids[0] >= ids[1] >= ids[2] and [len(s) for s in ids] == [200, 90, 30]
    assert events[0].parent_sample_id is None
    assert [e.parent_sample_id for e in events[1:]] == [events[0].sample_id, events[1].sample_id]
    stored = list(log.iter_events("sample_drawn"))
    assert [s.sample_id for s in stored] == [e.sample_id for e in events]
    assert stored[0].drawn_by == "tester" and stored[0].seed == 7 and stored[0].strata == "area,score_bin,status"
    assert sum(json.loads(stored[1].quotas_json).values()) == 90


def test_impossible_coverage_and_bad_strata_are_clear_errors():
    papers = _population()
    with pytest.raises(SamplingError, match="cover every area"):
        draw(papers, 3, ("area", "score_bin"), seed=1)
    with pytest.raises(SamplingError, match="choose from"):
        draw(papers, 3, ("venue",), seed=1)
    with pytest.raises(SamplingError, match="between 1 and the population size"):
        draw(papers, 10_000, ("area",), seed=1)


def test_population_from_real_asap_sample(log, shared):
    import_asap(log, shared("asap_review_iclr2017", "sample"))
    papers = population_from_log(log)
    assert len(papers) == 30 and {p.status for p in papers} == {"accepted", "rejected"}
    chosen, _ = draw(papers, 10, ("area", "score_bin", "status"), seed=2)
    assert len(chosen) == 10 and {p.score_bin(1.0) for p in chosen} == {p.score_bin(1.0) for p in papers}
