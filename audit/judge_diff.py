"""Two judge configurations of one study, compared (`peerlake diff STUDY --judges A B`): per judge, metric
and system the paired difference B − A over the same reviews (judge_pair_differences: per-paper means,
paper-bootstrap interval, Wilcoxon), and the reviews whose score moved most between the two, each with the
llm calls of the judgments behind each side (`llm_call_ids_a`/`_b`: `peerlake call ID`, the viewer's
#call/ID). Read from the published marts; the configurations are named as the study names them
(dim_judge_configs.judge_label)."""

from dataclasses import dataclass

from peerlake.studies.parse import did_you_mean


class JudgeUnknown(KeyError):
    """A judge configuration the study does not have; the message lists the ones it has."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class JudgeDiff:
    study: str
    a: str
    b: str
    differences: list[dict]
    moved: list[dict]

    def as_json(self) -> dict:
        return {"study": self.study, "judge_a": self.a, "judge_b": self.b, "difference": "b - a",
                "differences": self.differences, "reviews_moved_most": self.moved}


def labels_of(marts, study: str) -> list[str]:
    return [r["judge_label"] for r in marts.rows(
        "select distinct judge_label from dim_judge_configs where study_id = ? order by 1", [study])]


def judge_diff(marts, study: str, a: str, b: str, metric: str | None = None, top: int = 10) -> JudgeDiff:
    """B − A for the study's two configurations `a` and `b` (in the user's order, whatever the mart's)."""
    known = labels_of(marts, study)
    for label in (a, b):
        if label not in known:
            raise JudgeUnknown(f"study {study!r} has no judge configuration {label!r}; "
                               f"{did_you_mean([label], set(known))}known: {', '.join(known) or 'none'} "
                               "(dim_judge_configs.judge_label; a panel names them in [[judging.panel]])")
    if a == b:
        raise JudgeUnknown(f"--judges names {a!r} twice: give two configurations of the study ({', '.join(known)})")
    flip = a > b  # the mart orders each pair by name: x < y, difference y − x
    x, y = (b, a) if flip else (a, b)
    sign = -1.0 if flip else 1.0
    where = "" if metric is None else " and metric = ?"
    params = [study, x, y] + ([metric] if metric else [])
    differences = []
    for r in marts.rows(f"""select judge, metric, system, n_pairs, mean_x, mean_y, mean_diff, ci_low, ci_high,
                                   wilcoxon_p, holm_p, skip_reason
                            from judge_pair_differences
                            where study_id = ? and label_x = ? and label_y = ?{where}
                            order by judge, metric, system""", params):
        lo, hi = r["ci_low"], r["ci_high"]
        differences.append({
            "judge": r["judge"], "metric": r["metric"], "system": r["system"], "n_papers": r["n_pairs"],
            "mean_a": r["mean_y"] if flip else r["mean_x"], "mean_b": r["mean_x"] if flip else r["mean_y"],
            "diff_b_minus_a": None if r["mean_diff"] is None else sign * r["mean_diff"],
            "ci_low": None if lo is None else (-hi if flip else lo),
            "ci_high": None if hi is None else (-lo if flip else hi),
            "wilcoxon_p": r["wilcoxon_p"], "holm_p": r["holm_p"], "skip_reason": r["skip_reason"]})
    moved = marts.rows(f"""
        with a as (select * from int_quality_panel_metrics where study_id = ? and judge_label = ?),
             b as (select * from int_quality_panel_metrics where study_id = ? and judge_label = ?)
        select a.judge, a.metric, a.review_key, a.pool_key, a.system, a.source, a.value as value_a,
               b.value as value_b, b.value - a.value as diff_b_minus_a, a.judge_config as judge_config_a,
               b.judge_config as judge_config_b
        from a join b using (judge, metric, review_key)
        where (a.pool_key is not distinct from b.pool_key) and a.value is not null and b.value is not null
              {where.replace('metric', 'a.metric')}
        order by abs(b.value - a.value) desc, a.judge, a.metric, a.review_key
        limit ?""", [study, a, study, b] + ([metric] if metric else []) + [top])
    calls = judgment_calls(marts, [(m["judge"], m[f"judge_config_{side}"], m["pool_key"] or m["review_key"])
                                   for m in moved for side in "ab"])
    for m in moved:
        for side in "ab":
            m[f"llm_call_ids_{side}"] = calls.get((m["judge"], m[f"judge_config_{side}"],
                                                   m["pool_key"] or m["review_key"]), [])
    return JudgeDiff(study, a, b, differences, moved)


def judgment_calls(marts, subjects: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[str]]:
    """The llm calls behind each (judge, judge configuration, subject): those of its newest judgment per step
    and repeat (the ones its metrics count, as int_judgments_latest picks them), in step, repeat and the
    judge's order, only calls fct_llm_calls has (a retrieval call is no call page). Empty without
    fct_call_judgments (a file published before it)."""
    if not subjects or "fct_call_judgments" not in marts.tables():
        return {}
    judges, configs, keys = (list(c) for c in zip(*set(subjects), strict=True))
    out: dict[tuple[str, str, str], list[str]] = {}
    for r in marts.rows("""
            with wanted as (select unnest(?::varchar[]) as judge, unnest(?::varchar[]) as judge_config,
                                   unnest(?::varchar[]) as subject_key),
                 latest as (
                    select judge, step, judge_config, subject_key, repeat_index, llm_call_ids
                    from fct_call_judgments semi join wanted using (judge, judge_config, subject_key)
                    qualify row_number() over (partition by judge, step, judge_config, subject_key, repeat_index
                                               order by recorded_at desc, judgment_id desc) = 1),
                 ids as (
                    select judge, step, judge_config, subject_key, repeat_index,
                           unnest(llm_call_ids) as llm_call_id, generate_subscripts(llm_call_ids, 1) as position
                    from latest)
            select judge, judge_config, subject_key,
                   list(llm_call_id order by step, repeat_index, position) as llm_call_ids
            from ids semi join fct_llm_calls using (llm_call_id)
            group by judge, judge_config, subject_key""", [judges, configs, keys]):
        out[(r["judge"], r["judge_config"], r["subject_key"])] = r["llm_call_ids"]
    return out
