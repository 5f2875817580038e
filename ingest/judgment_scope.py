"""Put imported judgments into a study's scope: the quality marts count a judgment only for the judge
configs and reviews the study's newest `study_resolved` (asset `judgments`) lists.

The new resolution is the study's newest one with one row per imported judge config added (or
replaced): {judge, judge_config, provider "imported", model (the evaluator models the files name),
repeats 1, review_keys: every subject judged under that config}. A later `peerlake run` of the study
records its own resolution without these rows: import again (nothing new is written but the scope;
when the scope already holds them, nothing at all).
"""

import json

from peerlake.warehouse.blobs import sha256_hex
from peerlake.warehouse.events import StudyResolved
from peerlake.warehouse.log import EventLog
from peerlake.warehouse.studies import StudyFiles

ASSET = "judgments"


def _by_config(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda j: str(j.get("judge_config")))


def _newest(events: list[StudyResolved]) -> StudyResolved | None:
    return max(events, key=lambda e: e.event_id, default=None)


def scope_row(log: EventLog, judge: str, config: str) -> dict:
    """The study_resolved judges row of every judgment recorded under `config`. The flaws judge's subjects
    are pools: its row lists them as `pools`, and their member reviews as `review_keys`."""
    keys, pools, models = set(), set(), set()
    for e in log.iter_events("judgment_recorded"):
        if e.judge == judge and e.judge_config == config:
            if judge == "flaws":
                if e.step == "pool":
                    pools.add(e.subject_key)
                    keys.update(u.get("review_key") for u in json.loads(e.units_json or "[]")
                                if isinstance(u, dict) and u.get("kind") == "member" and u.get("review_key"))
            else:
                keys.add(e.subject_key)
            model = json.loads(e.inputs_json or "{}").get("evaluator_model")
            if model:
                models.add(model)
    return {"judge": judge, "judge_config": config, "provider": "imported", "model": ",".join(sorted(models)) or None,
            "repeats": 1, "review_keys": sorted(keys), "pools": sorted(pools)}


def check_study(log: EventLog, study_id: str) -> None:
    """ValueError when the lake knows no such study (neither a resolution nor a study file): checked
    before anything is imported, so a mistyped name writes nothing."""
    if any(e.study_id == study_id for e in log.iter_events("study_resolved")):
        return
    files = StudyFiles(log.lake)
    if not files.exists(study_id):
        raise ValueError(f"no study {study_id!r} in this lake (known: {', '.join(files.names()) or 'none'}); "
                         f"create it first, e.g. `peerlake ingest prism DIR --study {study_id}`")


def add_to_study(log: EventLog, study_id: str, rows: list[dict], paper_ids: set[str]) -> StudyResolved:
    """Append the study's judgments resolution with `rows` merged in; ValueError when the lake knows no
    such study (neither a resolution nor a study file)."""
    mine = [e for e in log.iter_events("study_resolved") if e.study_id == study_id]
    base = _newest([e for e in mine if e.asset == ASSET]) or _newest(mine)
    if base is not None:
        sha, papers, judges = base.study_sha256, set(json.loads(base.paper_ids_json)), \
            json.loads(base.judges_json or "[]") if base.asset == ASSET else []
        reviewers, external, source = base.reviewers_json, base.external_systems_json, base.paper_source
    else:
        check_study(log, study_id)
        text = StudyFiles(log.lake).read(study_id)
        log.blobs.put_text(text)
        sha, papers, judges, reviewers, external, source = sha256_hex(text.encode("utf-8")), set(), [], "[]", "[]", ""
    replaced = {r["judge_config"] for r in rows}
    merged = [j for j in judges if j.get("judge_config") not in replaced] + rows
    if base is not None and base.asset == ASSET and _by_config(merged) == _by_config(judges) and paper_ids <= papers:
        return base  # the scope already says this: a re-import writes nothing
    judges = merged
    return log.append(StudyResolved(
        study_id=study_id, study_sha256=sha, paper_ids_json=json.dumps(sorted(papers | paper_ids)),
        reviewers_json=reviewers, external_systems_json=external, paper_source=source or "imported", asset=ASSET,
        judges_json=json.dumps(judges)))
