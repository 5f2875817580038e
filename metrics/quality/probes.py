"""The shift a bias probe finds, with its 95 % interval, and its verdict against a declared tolerance.

  paired  (length, order probes) d_i = variant − original of the same subject and repeat; the shift is
          mean(d) with Student's t interval mean ± t(0.975, n−1)·sd(d)/√n (n ≥ 2; sd with n − 1).
  welch   (self-preference) same-family rows minus other-family rows: mean(a) − mean(b) with Welch's
          interval (Satterthwaite degrees of freedom; each group ≥ 2 rows).

Verdict, as an equivalence test reads it (two one-sided tests at 5 % each give this 90 %-interval rule;
the 95 % interval is stricter): 'pass' when the whole 95 % interval lies within ±tolerance, 'fail' when
the whole interval lies outside it (|shift| > tolerance beyond doubt), else 'inconclusive' (too few pairs
or too noisy to tell). One pair has no interval, so it is never a pass; pairs that all shift by the same
amount have a zero-width interval, judged as that point.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats

LEVEL = 0.95


@dataclass(frozen=True)
class Shift:
    shift: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


def paired_shift(diffs: Sequence[float], level: float = LEVEL) -> Shift:
    """mean(d) and its t interval; n < 2 gives the mean (or nothing) and no interval."""
    d = [float(x) for x in diffs]
    n = len(d)
    if n == 0:
        return Shift(None, None, None, 0)
    mean = sum(d) / n
    if n < 2:
        return Shift(mean, None, None, n)
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = stats.t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return Shift(mean, mean - half, mean + half, n)


def welch_shift(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> Shift:
    """mean(a) − mean(b) with Welch's interval; n = len(a) + len(b). Either group below 2: no interval."""
    a, b = [float(x) for x in a], [float(x) for x in b]
    if not a or not b:
        return Shift(None, None, None, len(a) + len(b))
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    diff = ma - mb
    if len(a) < 2 or len(b) < 2:
        return Shift(diff, None, None, len(a) + len(b))
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1) / len(a)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return Shift(diff, diff, diff, len(a) + len(b))
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf(0.5 + level / 2, df) * se
    return Shift(diff, diff - half, diff + half, len(a) + len(b))


def verdict(s: Shift, tolerance: float) -> str:
    """'pass' | 'fail' | 'inconclusive' (see the module docstring)."""
    if s.ci_low is None or s.ci_high is None:
        return "inconclusive"
    if -tolerance <= s.ci_low and s.ci_high <= tolerance:
        return "pass"
    if s.ci_low > tolerance or s.ci_high < -tolerance:
        return "fail"
    return "inconclusive"


# ---- the tables the dbt models return -------------------------------------------------------------------

SELF_PREFERENCE_COLUMNS = ("review_metric_id", "study_id", "judge", "judge_config", "judge_model", "review_key",
                           "source", "system", "metric", "value", "reviewer_model", "judge_family",
                           "reviewer_family", "is_same_family")
PROBE_COLUMNS = {"judge_probe_id": "string", "study_id": "string", "judge": "string", "judge_config": "string",
                 "judge_model": "string", "probe": "string", "dimension": "string", "n": "int64",
                 "n_reference": "int64", "n_variant": "int64", "n_unmeasured": "int64",
                 "mean_reference": "float64", "mean_variant": "float64", "shift": "float64", "ci_low": "float64",
                 "ci_high": "float64", "tolerance": "float64", "status": "string", "is_pass": "boolean"}


def self_preference_rows(metrics, review_calls):
    """Every quality row (int_quality_review_metrics) with the families of its judge and of the model that
    wrote the review; is_same_family is null where either is unknown (a human review, an imported system)."""
    import pandas as pd

    from peerlake.judging.probes import model_family

    models = dict(zip("peerlake:" + review_calls["request_key"].astype(str), review_calls["model"], strict=True))
    out = metrics.copy()
    out["reviewer_model"] = [models.get(k) if s == "peerlake" else None
                             for k, s in zip(out["review_key"], out["source"], strict=True)]
    out["judge_family"] = [model_family(m) for m in out["judge_model"]]
    out["reviewer_family"] = [model_family(m) for m in out["reviewer_model"]]
    # pandas 3 stores a missing family of a string column as NaN, not None: pd.isna reads both
    out["is_same_family"] = pd.array([None if pd.isna(j) or pd.isna(r) else j == r
                                      for j, r in zip(out["judge_family"], out["reviewer_family"], strict=True)],
                                     dtype="boolean")
    return out[list(SELF_PREFERENCE_COLUMNS)].reset_index(drop=True)


def _text(value) -> str:
    """A string column's value, "" for a missing one (None, or NaN from a data frame)."""
    return value if isinstance(value, str) else ""


def _declared(resolutions) -> dict[str, dict[str, float]]:
    """study_id -> the tolerances its newest judge_probes run declared (judges_json rows' `tolerances`)."""
    import json

    out: dict[str, dict[str, float]] = {}
    for study, judges in zip(resolutions["study_id"], resolutions["judges"], strict=True):
        rows = json.loads(judges) if isinstance(judges, str) else (judges or [])
        for row in rows:
            out.setdefault(study, {}).update({k: float(v) for k, v in (row.get("tolerances") or {}).items()})
    return out


def _row(key: tuple, s: Shift, ref: list, var: list, unmeasured: int, tol: float) -> dict:
    study, judge, config, model, probe, dim = key
    status = verdict(s, tol)
    return {"judge_probe_id": "|".join((study, config, probe, dim)), "study_id": study, "judge": judge,
            "judge_config": config, "judge_model": model, "probe": probe, "dimension": dim, "n": s.n,
            "n_reference": len(ref), "n_variant": len(var), "n_unmeasured": unmeasured,
            "mean_reference": sum(ref) / len(ref) if ref else None,
            "mean_variant": sum(var) / len(var) if var else None, "shift": s.shift, "ci_low": s.ci_low,
            "ci_high": s.ci_high, "tolerance": tol, "status": status, "is_pass": status == "pass"}


def probe_table(pairs, flagged, resolutions):
    """judge_probes: per (study, judge configuration, probe, dimension) the shift variant − original over
    the paired judgments (paired_shift), and for self_preference same-family − other-family quality rows
    of the systems under test (welch_shift), each with its tolerance and verdict."""
    import json

    import pandas as pd

    from peerlake.judging.probes import SELF_PREFERENCE, measures, tolerance

    declared = _declared(resolutions)
    diffs: dict[tuple, list[tuple[float, float]]] = {}
    unmeasured: dict[tuple, int] = {}  # per (study, judge, config, model, probe): pairs not both ok
    empty: dict[tuple, dict] = {}  # the dimensions a probe's (judge, step) has, for a probe nothing measured
    for p in pairs.itertuples(index=False):
        base = (p.study_id, p.judge, p.judge_config, _text(p.judge_model), p.probe)
        empty.setdefault(base, {}).update(measures(p.judge, p.step, [], {}))
        if not p.is_pair_ok:
            unmeasured[base] = unmeasured.get(base, 0) + 1
            continue
        orig = measures(p.judge, p.step, json.loads(p.original_units or "[]"), json.loads(p.original_inputs or "{}"))
        var = measures(p.judge, p.step, json.loads(p.variant_units or "[]"), json.loads(p.variant_inputs or "{}"))
        for dim in sorted(set(orig) & set(var)):
            diffs.setdefault((*base, dim), []).append((orig[dim], var[dim]))
    keys = set(diffs) | {(*b, dim) for b, dims in empty.items() if not any(k[:5] == b for k in diffs) for dim in dims}
    rows = []
    for key in sorted(keys):
        got = diffs.get(key, [])
        rows.append(_row(key, paired_shift([v - o for o, v in got]), [o for o, _ in got], [v for _, v in got],
                         unmeasured.get(key[:5], 0), tolerance(key[4], key[5], declared.get(key[0]))))
    systems = flagged[(flagged["source"] != "human") & flagged["is_same_family"].notna() & flagged["value"].notna()]
    for (study, judge, config, model, metric), g in systems.groupby(
            ["study_id", "judge", "judge_config", "judge_model", "metric"], dropna=False, sort=True):
        same = g.loc[g["is_same_family"].astype(bool), "value"].astype(float).tolist()
        other = g.loc[~g["is_same_family"].astype(bool), "value"].astype(float).tolist()
        key = (study, judge, config, _text(model), SELF_PREFERENCE, metric)
        rows.append(_row(key, welch_shift(same, other), other, same, 0,
                         tolerance(SELF_PREFERENCE, metric, declared.get(study))))
    out = pd.DataFrame(rows, columns=list(PROBE_COLUMNS))
    return out.astype(PROBE_COLUMNS)
