"""Stratified paper samples (`peerlake sample`), recorded as `sample_drawn` events before any
paper in them is reviewed.

Quotas: for stratum h with N_h of N papers and sample size n, q_h is floor or ceiling of
n·N_h/N (so every stratum is within one paper of its population share), Σ q_h = n, and every
subject area and every non-empty score bin gets at least one paper. Among the quota vectors that
satisfy this, the one closest to the shares (Σ |q_h − n·N_h/N|) is chosen by scipy's `milp`;
ties are broken by a seeded perturbation. Within a stratum, papers are sorted by their exact mean
human score and taken by systematic sampling with a random start. Nested samples
(1,000 ⊃ 300 ⊃ 100) are drawn largest first, each from the one before.
"""

import getpass
import json
import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from peerlake.warehouse.events import SampleDrawn, new_event_id
from peerlake.warehouse.log import EventLog

STRATA_KEYS = ("area", "score_bin", "status")


class SamplingError(ValueError):
    pass


@dataclass(frozen=True)
class Paper:
    paper_id: str
    venue: str | None
    area: str
    status: str
    mean_score: float | None

    def score_bin(self, width: float) -> str:
        if self.mean_score is None:
            return "none"
        lo = math.floor(self.mean_score / width) * width
        return f"[{lo:g},{lo + width:g})"


def population_from_log(log: EventLog) -> list[Paper]:
    """Every paper with a human review: venue, area and status (latest status event), mean score."""
    reviews: dict[str, object] = {}
    for e in log.iter_events("human_review_imported"):
        if e.review_id not in reviews or e.event_id > reviews[e.review_id].event_id:
            reviews[e.review_id] = e
    ratings: dict[str, list[float]] = defaultdict(list)
    venues: dict[str, str | None] = {}
    for e in reviews.values():
        if e.rating is not None:
            ratings[e.paper_id].append(e.rating)
        venues.setdefault(e.paper_id, e.venue)
    status: dict[str, object] = {}
    for e in log.iter_events("paper_status_recorded"):
        if e.paper_id not in status or e.event_id > status[e.paper_id].event_id:
            status[e.paper_id] = e
    out = []
    for pid in sorted(ratings):
        st = status.get(pid)
        out.append(Paper(pid, venues.get(pid) or (st.venue if st else None),
                         (st.area if st and st.area else "unknown"),
                         st.status if st else "unknown", sum(ratings[pid]) / len(ratings[pid])))
    return out


def stratum_of(p: Paper, strata: tuple[str, ...], bin_width: float) -> tuple[str, ...]:
    values = {"area": p.area, "score_bin": p.score_bin(bin_width), "status": p.status}
    return tuple(values[k] for k in strata)


def solve_quotas(counts: dict[tuple, int], n: int, strata: tuple[str, ...], seed: int) -> dict[tuple, int]:
    """Integer quotas per stratum as described in the module docstring (scipy.optimize.milp)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    keys = sorted(counts)
    total = sum(counts.values())
    if not 0 < n <= total:
        raise SamplingError(f"sample size {n} must be between 1 and the population size {total}")
    share = np.array([n * counts[k] / total for k in keys])
    lo, hi = np.floor(share), np.minimum(np.ceil(share), [counts[k] for k in keys])
    frac = share - lo
    # q = lo + z with z ∈ {0, 1} where the share is fractional; |q − share| = frac + z·(1 − 2·frac).
    rng = np.random.default_rng(seed)
    cost = (1 - 2 * frac) + 1e-6 * rng.random(len(keys))
    rows, lbs, ubs = [np.ones(len(keys))], [n - lo.sum()], [n - lo.sum()]
    for dim in ("area", "score_bin"):
        if dim not in strata:
            continue
        d = strata.index(dim)
        for value in sorted({k[d] for k in keys}):
            if dim == "score_bin" and value == "none":
                continue
            member = np.array([1.0 if k[d] == value else 0.0 for k in keys])
            need = 1 - float(member @ lo)  # at least one paper of this area / bin
            if need > 0:
                rows.append(member)
                lbs.append(need)
                ubs.append(np.inf)
    res = milp(c=cost, integrality=np.ones(len(keys)), bounds=Bounds(0, hi - lo),
               constraints=LinearConstraint(np.array(rows), lbs, ubs))
    if res.status != 0 or res.x is None:
        must = [f"{len({k[strata.index(d)] for k in keys} - {'none'})} {d} values"
                for d in ("area", "score_bin") if d in strata]
        raise SamplingError(f"no quotas of size {n} keep every stratum within one paper of its share "
                            f"and cover every area and score bin ({', '.join(must)}): {res.message}")
    z = np.round(res.x).astype(int)
    return {k: int(lo[i] + z[i]) for i, k in enumerate(keys)}


def systematic(papers: list[Paper], q: int, rng: np.random.Generator) -> list[Paper]:
    """q papers by systematic sampling, random start, over papers sorted by exact mean score."""
    if q <= 0:
        return []
    ordered = sorted(papers, key=lambda p: (p.mean_score if p.mean_score is not None else -math.inf, p.paper_id))
    step = len(ordered) / q
    start = rng.uniform(0, step)
    return [ordered[min(len(ordered) - 1, math.floor(start + i * step))] for i in range(q)]


def draw(papers: list[Paper], n: int, strata: tuple[str, ...], seed: int,
         bin_width: float = 1.0) -> tuple[list[Paper], dict[tuple, int]]:
    """One stratified sample of size n; returns (papers in draw order, quotas)."""
    unknown = [s for s in strata if s not in STRATA_KEYS]
    if unknown or not strata:
        raise SamplingError(f"strata {','.join(strata)!r}: choose from {', '.join(STRATA_KEYS)}")
    groups: dict[tuple, list[Paper]] = defaultdict(list)
    for p in papers:
        groups[stratum_of(p, strata, bin_width)].append(p)
    quotas = solve_quotas({k: len(v) for k, v in groups.items()}, n, strata, seed)
    rng = np.random.default_rng(seed)
    chosen: list[Paper] = []
    for key in sorted(groups):
        chosen += systematic(groups[key], quotas[key], rng)
    return chosen, quotas


def draw_nested(log: EventLog, papers: list[Paper], sizes: list[int], strata: tuple[str, ...],
                seed: int, venue: str | None, bin_width: float = 1.0,
                drawn_by: str | None = None) -> list[SampleDrawn]:
    """Nested samples, largest first, each recorded as a `sample_drawn` event (one fsync)."""
    events: list[SampleDrawn] = []
    pool, parent = papers, None
    for size in sorted(sizes, reverse=True):
        chosen, quotas = draw(pool, size, strata, seed, bin_width)
        ev = SampleDrawn(
            sample_id=new_event_id(), drawn_by=drawn_by or getpass.getuser(), seed=seed,
            strata=",".join(strata), size=size, venue=venue, parent_sample_id=parent,
            quotas_json=json.dumps({"|".join(k): q for k, q in sorted(quotas.items())}, ensure_ascii=False),
            paper_ids_json=json.dumps([p.paper_id for p in chosen]))
        events.append(ev)
        pool, parent = chosen, ev.sample_id
    log.append_many(events)
    return events
