"""judge_cards and judge_card_checks on a tiny lake of hand-made depth judgments and human spans (both
import routes: span_annotation_imported and `peerlake ingest labels` JSONL), every expected number worked
out by hand below; and the [judging.require] gate: a judge below its κ fails it, naming the check."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from peerlake.expectations import run_gate
from peerlake.ingest.reference_labels import import_reference_labels
from peerlake.studies import resolution_event
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import JudgmentRecorded, SpanAnnotationImported

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
A, B, C = "cfga000000000001", "cfgb000000000002", "cfgc000000000003"
R1, R2, HUMAN = "external:substanreview:1", "external:substanreview:2", "human:H1"
STUDY = "cards"

# Human reference spans [start, end) and roles: R1 s0 [0,10) claim, s1 [20,40) premise, s2 [50,60) claim;
# R2 s3 [0,10) premise, s4 [20,30) claim. R1's come as a span annotation, R2's as JSONL span labels.
REFERENCE = {R1: [(0, 10, "claim"), (20, 40, "premise"), (50, 60, "claim")],
             R2: [(0, 10, "premise"), (20, 30, "claim")]}
# Annotator a1 = the reference; a2 calls s1 a claim and has no span near s2.
A2 = {R1: [(0, 10, "claim"), (20, 40, "claim")], R2: [(0, 10, "premise"), (20, 30, "claim")]}
# Judge A's units per repeat: it misses s2, calls s3 a claim, and flips s4 to premise in repeat 1.
# Judge B's units are the reference in both repeats. Judge C judged only an unannotated human review.
UNITS_A = {0: {R1: [(0, 10, "claim"), (20, 40, "premise")], R2: [(0, 10, "claim"), (20, 30, "claim")]},
           1: {R1: [(0, 10, "claim"), (20, 40, "premise")], R2: [(0, 10, "claim"), (20, 30, "premise")]}}


def _judgment(config: str, subject: str, repeat: int, units: list) -> JudgmentRecorded:
    body = [{"unit_index": k, "text": "x" * (e - s), "start": s, "field": "text", "role": role,
             "aspect": "soundness", "grounding": None} for k, (s, e, role) in enumerate(units)]
    return JudgmentRecorded(
        judgment_key=hashlib.sha256(f"{config}{subject}{repeat}".encode()).hexdigest(), judge="depth", step="units",
        judge_config=config, subject_key=subject, paper_id=subject, repeat=repeat, status="ok", null_reason=None,
        units_json=json.dumps(body), dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps({"chars": 5000, "chars_judged": 1000}), study=STUDY)


def _annotation(review_key: str, spans: list, annotator: str | None) -> SpanAnnotationImported:
    rows = [{"start": s, "end": e, "label": "x", "role": role, "pair": None, "judged_start": s, "judged_end": e}
            for s, e, role in spans]
    return SpanAnnotationImported(review_key=review_key, dataset="substanreview", split="train", annotator=annotator,
                                  spans_json=json.dumps(rows), text_sha256="0" * 64, source_path="t.jsonl", line_no=1)


def build_lake(root: Path, tmp: Path, on_fail: str = "block") -> None:
    log = EventLog(Lake(root))
    require = {"kappa_min": 0.5, "retest_alpha_min": 0.9, "on_fail": on_fail}
    judges = [{"judge": "depth", "judge_config": cfg, "provider": "fake", "model": f"m-{cfg[3]}", "repeats": 2,
               "review_keys": keys, "pools": [], "require": require}
              for cfg, keys in ((A, [R1, R2]), (B, [R1, R2]), (C, [HUMAN]))]
    log.append_many([
        *[_judgment(A, r, k, UNITS_A[k][r]) for k in (0, 1) for r in (R1, R2)],
        *[_judgment(B, r, k, REFERENCE[r]) for k in (0, 1) for r in (R1, R2)],
        _judgment(C, HUMAN, 0, [(0, 5, "claim")]),
        _annotation(R1, REFERENCE[R1], None), _annotation(R1, REFERENCE[R1], "a1"), _annotation(R1, A2[R1], "a2"),
        resolution_event(STUDY, "f" * 64, ["substanreview-1"], [], ["substanreview"], paper_source="test",
                         asset="judgments", judges=judges),
    ])
    lines = [{"review_key": R2, "start": s, "end": e, "label": role, **({"annotator": who} if who else {})}
             for who, spans in ((None, REFERENCE[R2]), ("a1", REFERENCE[R2]), ("a2", A2[R2])) for s, e, role in spans]
    path = tmp / "labels.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"review_key": "x", "start": 3}\n')
    outcomes = import_reference_labels(log, path, "substanreview")
    assert [o.status for o in outcomes] == ["imported"] * 6 + ["rejected"]
    log.seal()
    log.close()


def build_marts(lake_root: Path, work: Path) -> Path:
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(lake_root), PEERLAKE_DUCKDB_PATH=str(work / "marts.duckdb"))
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", "+judge_card_checks", "+quality_depth",
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return work / "marts.duckdb"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("judge_cards")
    build_lake(root / "lake", root)
    return build_marts(root / "lake", root)


def _cards(db: Path) -> dict:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from judge_cards")
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    return {(r["judge_config"], r["dimension"], r["statistic"]): r for r in rows}


def test_agreement_with_humans_and_the_human_ceiling(db):
    cards = _cards(db)
    # A's 10 (span, repeat) pairs (judge, human): repeat 0 (c,c) (p,p) (none,c) (c,p) (c,c); repeat 1 the same
    # but s4 (p,c). p_o = 5/10. Judge margins c .5, p .3, none .2; human c .6, p .4:
    # p_e = .5·.6 + .3·.4 = .42, κ = (.5 − .42) / .58 = 0.1379.
    kappa = cards[(A, "role", "human_kappa")]
    assert kappa["estimate"] == pytest.approx(0.08 / 0.58)
    assert (kappa["n"], kappa["n_reviews"], kappa["dataset"], kappa["status"]) == (10, 2, "substanreview", "measured")
    assert kappa["ci_low"] <= kappa["estimate"] <= kappa["ci_high"] and "bootstrap over reviews" in kappa["method"]
    # α, the same 10 pairs: coincidences cc 6, pp 4, c–none 2+2, c–p 3+3; n_c 11, n_p 7, n_none 2, n 20.
    # D_o = 10/20; D_e = 2(11·7 + 11·2 + 7·2) / (20·19) = 226/380; α = 1 − 190/226 = 36/226.
    assert cards[(A, "role", "human_alpha")]["estimate"] == pytest.approx(36 / 226)
    # B labels exactly as the reference: κ = 1
    assert cards[(B, "role", "human_kappa")]["estimate"] == pytest.approx(1.0)
    # annotators a1 (= reference) and a2 on the 5 spans: s0 (c,c) s1 (p,c) s2 (c,none) s3 (p,p) s4 (c,c):
    # cc 4, pp 2, c–p 1+1, c–none 1+1; n_c 6, n_p 3, n_none 1; D_o = 4/10, D_e = 2(18 + 6 + 3)/90 = .6: α = 1/3
    ceiling = cards[(A, "role", "human_human_alpha")]
    assert ceiling["estimate"] == pytest.approx(1 / 3) and (ceiling["n"], ceiling["n_reviews"]) == (5, 2)


def test_test_retest_and_between_judges(db):
    cards = _cards(db)
    # A's label of each span across its 2 repeats: s0 (c,c) s1 (p,p) s2 (none,none) s3 (c,c) s4 (c,p):
    # cc 4, pp 2, nn 2, c–p 1+1; n_c 5, n_p 3, n_none 2; D_o = 2/10, D_e = 2(15 + 10 + 6)/90 = 62/90: α = 44/62
    assert cards[(A, "role", "retest_alpha")]["estimate"] == pytest.approx(44 / 62)
    assert cards[(B, "role", "retest_alpha")]["estimate"] == pytest.approx(1.0)
    # every unit without grounding: doa is 0 in every repeat, and ICC has no variance to split
    icc = cards[(A, "doa", "retest_icc")]
    assert icc["estimate"] is None or icc["estimate"] != icc["estimate"]
    assert icc["status"] == "not_measured"
    # A against B on the same (span, repeat): B is the reference, so it is A's human α again
    between = cards[(A, "role", "judge_judge_alpha")]
    assert between["other_judge_config"] == B and between["estimate"] == pytest.approx(36 / 226)


def test_a_judge_without_human_labels_is_unvalidated_never_valid(db):
    cards = _cards(db)
    row = cards[(C, "*", "human_kappa")]
    assert (row["status"], row["null_reason"]) == ("unvalidated", "no_human_labels")
    assert not [r for r in cards.values() if r["status"] not in ("measured", "not_measured", "unvalidated")]
    assert run_gate("judge_cards", db).success


def test_the_gate_blocks_a_judge_below_its_kappa_and_names_the_check(db):
    with duckdb.connect(str(db), read_only=True) as con:
        rows = {(r[0], r[1]): r[2:] for r in con.execute(
            "select judge_config, requirement, check_status, failure, is_judge_unvalidated "
            "from judge_card_checks").fetchall()}
    assert rows[(A, "kappa_min")][0] == "fail" and "kappa_min - 0.138" in rows[(A, "kappa_min")][1]
    assert rows[(B, "kappa_min")] == ("pass", None, False)
    assert rows[(A, "retest_alpha_min")][0] == "fail" and rows[(B, "retest_alpha_min")][0] == "pass"
    # C has no human labels and no repeats: not measured, and that is no pass
    assert rows[(C, "kappa_min")][0] == "not_measured" and "no human labels" in rows[(C, "kappa_min")][1]
    assert "peerlake ingest labels --format disapere" in rows[(C, "kappa_min")][1]  # where depth's labels come from
    result = run_gate("judge_card_checks", db)
    assert not result.success
    assert f"judge depth {A} in study {STUDY} - kappa_min" in result.describe()


def test_a_blocked_judge_leaves_the_previous_marts_served_and_the_cli_names_the_check(db, tmp_path, monkeypatch):
    """The gate's blocking asset check records its failure and published_marts then refuses the candidate
    (tests/orchestration/test_publish_guard.py); here the same steps by hand on the marts built above."""
    from peerlake.cli import app
    from peerlake.warehouse.publish import record_gate_failure, reset_candidate

    lake = Lake(tmp_path / "lake")
    lake.duckdb_path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(lake.duckdb_path)) as con:  # the previous build, published
        con.execute("create table quality_depth as select 'previous' as quality_depth_id")
    reset_candidate(lake)
    shutil.copy(db, lake.candidate_duckdb_path)
    result = run_gate("judge_card_checks", lake.candidate_duckdb_path)
    assert not result.success
    record_gate_failure(lake, "gx_judge_card_checks", result.describe())
    monkeypatch.setenv("PEERLAKE_HOME", str(lake.root))
    out = CliRunner().invoke(app, ["query", "select quality_depth_id from quality_depth"])
    assert out.exit_code == 0, out.output
    assert "previous" in out.output and "gx_judge_card_checks" in out.output
    assert f"judge depth {A} in study {STUDY} - kappa_min" in out.output  # the failing check, named


@pytest.fixture(scope="module")
def flagged(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("judge_cards_flag")
    build_lake(root / "lake", root, on_fail="flag")
    return build_marts(root / "lake", root)


def test_a_study_that_says_flag_publishes_the_rows_marked(flagged):
    assert run_gate("judge_card_checks", flagged).success
    with duckdb.connect(str(flagged), read_only=True) as con:
        flags = dict(con.execute("select judge_config, any_value(judge_flag) from quality_depth group by 1").fetchall())
    # A fails kappa_min and retest_alpha_min, C has nothing measured; B passes both
    assert flags == {A: "judge_unvalidated", B: None, C: "judge_unvalidated"}
