"""`peerlake ingest judgments`: PRISM's released judge answers (data_demo/, tests/ingest/prism_layout.py) become
judgment_recorded events keyed to the reviews `peerlake ingest prism` imported, with the file as provenance;
then one dbt build checks that the quality marts give, from those answers, the per-review figures PRISM's
formulas give (computed here from /work/shared/specs/prism-metric-definitions.md, not from peerlake's SQL)."""

import hashlib
import json
import os
import re
from pathlib import Path

import duckdb
import pytest
import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.judgments import UNIT_KEYS
from peerlake.warehouse import EventLog
from tests.ingest import prism_layout as layout
from tests.ingest.prism_layout import ICLR, data_demo, prism_data, write

REPO = Path(__file__).resolve().parents[2]
SEA, H1, H2 = f"external:sea-e:{ICLR}", "human:TKnO6M1glb", "human:NHOJ5LqlA3"
DEPTH, CONSTRUCTIVE = "prism-released:depth", "prism-released:constructiveness"


def _cli(*args: str, code: int = 0):
    app = typer.Typer()
    register(app)
    r = CliRunner().invoke(app, ["ingest", *args])
    assert r.exit_code == code, r.output
    return r


def _tally(output: str) -> dict[str, int]:
    line = [x for x in output.splitlines() if " · " in x][-1]
    return {k: int(v) for k, v in (part.rsplit(" ", 1) for part in line.split(" · "))}


def _imported(tmp_path: Path, *study: str) -> Path:
    """PRISM's data imported into the temp lake; returns data_demo/."""
    prism_data(tmp_path / "prism")
    _cli("prism", str(tmp_path / "prism"), *study)
    return data_demo(tmp_path / "prism")


def _judgments(config: str) -> dict:
    log = EventLog()
    out = {e.subject_key: e for e in log.iter_events("judgment_recorded") if e.judge_config == config}
    log.close()
    return out


def test_released_answers_become_judgments_with_their_provenance(lake, tmp_path):
    demo = _imported(tmp_path)
    t = _tally(_cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth").output)
    assert (t["imported"], t["rejected"]) == (3, 0)
    depth = _judgments(DEPTH)
    assert set(depth) == {SEA, H1, H2}  # Human_k is the k-th review of the paper's human_reviews file
    sea_file = demo / "depth_of_analysis/iclr2025/sea" / f"{ICLR}.json"
    e = depth[SEA]
    assert (e.judge, e.step, e.repeat, e.status, e.paper_id, e.llm_call_ids_json) == (
        "depth", "units", 0, "ok", ICLR, "[]")
    inputs = json.loads(e.inputs_json)
    assert (inputs["file"], inputs["sha256"]) == (str(sea_file), hashlib.sha256(sea_file.read_bytes()).hexdigest())
    assert (inputs["source"], inputs["system"], inputs["prism_source"], inputs["released_by"]) == (
        "external", "sea-e", "sea", "prism")
    assert json.loads(depth[H2].inputs_json)["evaluator_model"] == "mimo-v2.5-pro"
    released = layout.DEPTH_SEA["reviews_analysis"]["SEA_ICLR2025"]
    units = json.loads(e.units_json)
    assert [(u["text"], u["role"], u["aspect"], u["grounding"]) for u in units] == [
        (a["argument"], a["role"].lower(), a["aspect"].lower(), a["grounding_score"]) for a in released]
    assert set(units[0]) == set(UNIT_KEYS[("depth", "units")])

    t = _tally(_cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness").output)
    assert (t["imported"], t["rejected"]) == (3, 0)
    comments = _judgments(CONSTRUCTIVE)
    assert set(comments) == {SEA, H1, H2} and comments[SEA].step == "comments"
    h2 = json.loads(comments[H2].units_json)
    assert [(c["actionability"], c["specificity"], c["justification"], c["solution"], c["tone"]) for c in h2] == [
        (1, 2, 2, 1, 1), (0, 0, 1, 0, 1)]
    # the anchor is looked up in the review the lake holds: the second one is not in it
    assert [c["anchor_found"] for c in h2] == [True, False]
    assert set(h2[0]) == set(UNIT_KEYS[("constructiveness", "comments")])


def test_a_bad_file_is_set_aside_and_the_rest_imports(lake, tmp_path):
    demo = _imported(tmp_path)
    folder = demo / "depth_of_analysis" / "iclr2025"
    write(folder / "sea" / "Broken0001.json", "{oops")
    write(folder / "tree" / "NoAnalys01.json", {"paper_id": "NoAnalys01", "source": "tree_iclr2025"})
    write(folder / "tree" / f"{ICLR}.json", {**layout.DEPTH_SEA, "reviews_analysis": {"TREE": [
        {"argument": "A claim.", "role": "Claim", "aspect": "Other", "grounding_score": None}]}})
    write(folder / "human" / "NotInLake1.json", {**layout.DEPTH_HUMAN, "paper_id": "NotInLake1"})
    write(folder / "human" / "extra.json", {"paper_id": ICLR, "reviews_analysis": {"Human_9": []}})
    write(folder / "gpt" / f"{ICLR}.json", {"paper_id": ICLR, "reviews_analysis": {"GPT": []}})
    outside = write(tmp_path / "elsewhere" / f"{ICLR}.json", layout.DEPTH_SEA)
    os.symlink(outside, folder / "sea" / "Linked0001.json")
    r = _cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth")
    for why in ("Broken0001.json: not valid JSON", "NoAnalys01.json: has no 'reviews_analysis' object",
                "NotInLake1.json Human_1: no PRISM human review #1 of NotInLake1 in the lake",
                "extra.json Human_9: no PRISM human review #9",
                "gpt/03OkC0LKDD.json: names no PRISM source", "Linked0001.json: points outside"):
        assert why in r.output, why
    t = _tally(r.output)
    # the three good answers and TreeReview's one (it is in the lake too)
    assert (t["imported"], t["rejected"]) == (4, 7)  # NotInLake1 has two answers, each refused
    assert set(_judgments(DEPTH)) == {SEA, H1, H2, f"external:treereview:{ICLR}"}
    _cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth", "--strict", code=1)


def test_reimport_writes_nothing_and_a_wrong_judge_is_refused(lake, tmp_path):
    demo = _imported(tmp_path)
    _cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness")
    log = EventLog()
    before = [e.event_id for e in log.iter_events()]
    log.close()
    t = _tally(_cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness").output)
    assert (t["imported"], t["skipped"], t["rejected"]) == (0, 3, 0)
    log = EventLog()
    assert [e.event_id for e in log.iter_events()] == before
    log.close()
    r = _cli("judgments", str(demo / "constructiveness"), "--judge", "focus", code=2)
    assert "importable judges are depth," in " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())
    # a study the lake does not know: refused before anything is imported
    r = _cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth", "--study", "nope", code=2)
    assert "no study 'nope'" in " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())
    log = EventLog()
    assert [e.event_id for e in log.iter_events()] == before
    log.close()


def test_scope_is_added_once(lake, tmp_path):
    demo = _imported(tmp_path, "--study", "prism")
    for _ in range(2):
        _cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth", "--study", "prism")
        _cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness", "--study", "prism")
    log = EventLog()
    resolutions = [e for e in log.iter_events("study_resolved") if e.study_id == "prism"]
    log.close()
    assert len(resolutions) == 2  # one per judge config; the second round changed nothing
    rows = {r["judge_config"]: r for r in json.loads(resolutions[-1].judges_json)}
    assert set(rows) == {DEPTH, CONSTRUCTIVE}
    assert rows[DEPTH]["review_keys"] == sorted([SEA, H1, H2]) and rows[DEPTH]["provider"] == "imported"
    assert json.loads(resolutions[-1].paper_ids_json) == [ICLR]


def test_constructiveness_ratings_are_parsed_as_prism_parses_them(lake, tmp_path):
    """clamp(round(x), 0, 2), a non-number 0 (spec §4): counted in `dropped`, the comment kept."""
    demo = _imported(tmp_path)
    odd = {**layout.CONSTRUCTIVE_SEA, "atomic_comments": [
        {"content": "c", "D1_actionability": 3, "D2_specificity": 1.0, "D3_justification": "high",
         "D4_solution": -1, "D5_tone": True}]}
    path = write(demo / "odd" / "sea" / f"{ICLR}.json", odd)
    _cli("judgments", str(path), "--judge", "constructiveness")
    e = _judgments(CONSTRUCTIVE)[SEA]
    [c] = json.loads(e.units_json)
    assert (c["actionability"], c["specificity"], c["justification"], c["solution"], c["tone"]) == (2, 1, 0, 0, 0)
    assert json.loads(e.dropped_json) == {"clamped": 2, "non_numeric_rating": 2}


def test_unit_keys_cover_what_the_quality_models_read():
    """UNIT_KEYS is copied (ingest may not import judging): the keys the dbt models read from units, and
    the keys peerlake's own judges write, must be among them."""
    models = REPO / "dbt_project/models/intermediate"
    by_judge: dict[str, set] = {}
    for (judge, _), keys in UNIT_KEYS.items():
        by_judge.setdefault(judge, set()).update(keys)
    for judge, keys in by_judge.items():
        sql = "".join(f.read_text() for f in sorted(models.glob(f"int_quality_{judge}_*.sql")))
        read = set(re.findall(r'"(\w+)": "(?:INTEGER|VARCHAR|BOOLEAN|DOUBLE)"', sql))
        assert read and read <= keys, (judge, read - keys)
        source = (REPO / "judging" / f"{judge}.py").read_text()
        assert all(f'"{k}"' in source for k in keys if k not in ("actionability", "specificity", "justification",
                                                                  "solution", "tone")), judge


# ---- one dbt build: the marts from PRISM's answers ------------------------------------------------

def _clc(c: dict) -> float:
    return (c["D1_actionability"] + c["D2_specificity"] + c["D3_justification"] + c["D4_solution"]
            + c["D5_tone"]) / 10


def prism_constructiveness(comments: list[dict]) -> dict:
    """Spec §4: CLC_j = (D1+…+D5)/10; MCS = mean CLC; AR = frac(D1 >= 1); SD = frac(D4 = 2); CD = frac(CLC >= 0.6)."""
    n = len(comments)
    return {"mcs": sum(_clc(c) for c in comments) / n,
            "share_actionable": sum(c["D1_actionability"] >= 1 for c in comments) / n,
            "share_solution": sum(c["D4_solution"] == 2 for c in comments) / n,
            "share_clc_06": sum(_clc(c) >= 0.6 - 1e-12 for c in comments) / n}


def prism_depth(args: list[dict]) -> dict:
    """Spec §1: R = n_premise / n_ADU; S = mean non-null grounding of the premises, else 0; S_norm = S / 2;
    DoA = 2 R S_norm / (R + S_norm), 0 when R + S_norm = 0; Ratio_All_other = n_other / n_ADU."""
    premises = [a for a in args if a["role"] == "Premise"]
    grounded = [a["grounding_score"] for a in premises if a["grounding_score"] is not None]
    r = len(premises) / len(args)
    s = (sum(grounded) / len(grounded) if grounded else 0) / 2
    return {"premise_ratio": r, "grounding_norm": s, "doa": 0.0 if r + s == 0 else 2 * r * s / (r + s),
            "share_units_other": sum(a["aspect"] == "Other" for a in args) / len(args)}


def test_quality_marts_give_prisms_per_review_figures(lake, tmp_path):
    from tests.dbt.test_marts import dbt_build

    demo = _imported(tmp_path, "--study", "prism")
    r = _cli("judgments", str(demo / "depth_of_analysis"), "--judge", "depth", "--study", "prism")
    assert f"study prism: {DEPTH} covers 3 reviews" in r.output
    _cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness", "--study", "prism")
    db, _ = dbt_build(lake.root, tmp_path, db=tmp_path / "marts.duckdb")
    with duckdb.connect(str(db), read_only=True) as con:
        def row(table: str, config: str, review: str) -> dict:
            cur = con.execute(f"select * from {table} where {table}_id = ?", [f"prism|{config}|{review}"])
            names = [d[0] for d in cur.description]
            [values] = cur.fetchall()
            return dict(zip(names, values, strict=True))

        released = {SEA: layout.CONSTRUCTIVE_SEA, H1: layout.CONSTRUCTIVE_HUMAN["reviewers"][0],
                    H2: layout.CONSTRUCTIVE_HUMAN["reviewers"][1]}
        for review, answer in released.items():
            got = row("quality_constructiveness", CONSTRUCTIVE, review)
            want = prism_constructiveness(answer["atomic_comments"])
            assert {k: got[k] for k in want} == pytest.approx(want), review
            assert (got["n_repeats"], got["is_null"], got["judge_provider"]) == (1, False, "imported")
            # and the figures PRISM released beside its answers (rounded to 4 places there)
            assert round(got["mcs"], 4) == answer["metrics"]["MCS"], review
            assert round(got["share_clc_06"], 4) == answer["metrics"]["CD"], review
        # by hand: SEA's comments score 4, 5 and 8 of 10 points
        assert row("quality_constructiveness", CONSTRUCTIVE, SEA)["mcs"] == pytest.approx(17 / 30)

        analyses = {SEA: layout.DEPTH_SEA["reviews_analysis"]["SEA_ICLR2025"],
                    H1: layout.DEPTH_HUMAN["reviews_analysis"]["Human_1"],
                    H2: layout.DEPTH_HUMAN["reviews_analysis"]["Human_2"]}
        for review, args in analyses.items():
            got = row("quality_depth", DEPTH, review)
            # the aspect shares are long form, one row per aspect of the depth taxonomy
            [(other,)] = con.execute("select share_units from quality_depth_aspects where study_id = 'prism' "
                                     "and judge_config = ? and review_key = ? and aspect = 'other'",
                                     [DEPTH, review]).fetchall()
            got["share_units_other"] = other
            want = prism_depth(args)
            assert {k: got[k] for k in want} == pytest.approx(want), review
        # by hand: Human_2 has 2 premises of 3 units, one grounded (2): R = 2/3, S_norm = 1, DoA = 0.8
        assert row("quality_depth", DEPTH, H2)["doa"] == pytest.approx(0.8)
        assert row("quality_depth", DEPTH, H1)["doa"] == 0.0  # one claim, no premise


def test_judge_output_nested_too_deep_is_one_rejection(lake, tmp_path):
    from tests.ingest.hostile import deep_json

    demo = _imported(tmp_path)
    write(demo / "constructiveness" / "iclr2025" / "sea" / "DeepNest01.json", deep_json())
    r = _cli("judgments", str(demo / "constructiveness"), "--judge", "constructiveness")
    t = _tally(r.output)
    assert (t["rejected"], t["imported"]) == (1, 3) and "is nested too deeply to read" in r.output


def test_a_grounding_outside_the_0_to_2_scale_is_kept_null_and_counted():
    """PRISM's released human depth answers grade grounding 0-3; S = mean / 2 would then exceed 1 and fail
    the quality gate, so a 3 is kept as PRISM keeps an unmatched premise: null, in R but not in S."""
    from peerlake.ingest.judgments import depth_units

    units, dropped, why = depth_units([
        {"argument": "Table 2 shows no gain.", "role": "Premise", "aspect": "Experiments", "grounding_score": 3},
        {"argument": "Eq. 4 is wrong.", "role": "Premise", "aspect": "Theory", "grounding_score": 2},
        {"argument": "The idea is good.", "role": "Claim", "aspect": "Novelty", "grounding_score": None},
    ])
    assert why is None and dropped == {"grounding_outside_0_2": 1}
    assert [(u["role"], u["grounding"]) for u in units] == [("premise", None), ("premise", 2), ("claim", None)]


# ---- flaw identification: one pool per file --------------------------------------------------------------

FLAWS = "prism-released:flaws"
SEA_POOL, TREE_POOL = f"pool:{ICLR}|sea-e|s0", f"pool:{ICLR}|treereview|s0"
TREE = f"external:treereview:{ICLR}"


def test_released_flaw_pools_become_pool_and_order_judgments(lake, tmp_path):
    demo = _imported(tmp_path)
    t = _tally(_cli("judgments", str(demo / "flaw_identification"), "--judge", "flaws").output)
    # two pools; the tree file keeps the mapping's mentions: three order judgments
    assert (t["imported"], t["rejected"]) == (5, 0)
    got = _judgments(FLAWS)
    assert set(got) == {SEA_POOL, TREE_POOL, f"{TREE_POOL}|{TREE}", f"{TREE_POOL}|{H1}", f"{TREE_POOL}|{H2}"}
    pool = got[SEA_POOL]
    assert (pool.judge, pool.step, pool.status, pool.paper_id) == ("flaws", "pool", "ok", ICLR)
    units = json.loads(pool.units_json)
    assert [u["review_key"] for u in units if u["kind"] == "member"] == [H1, H2, SEA]  # Human_k, then the system
    raises = [(u["flaw_id"], u["review_key"], u["is_valid"], u["severity"], u["verbatim"])
              for u in units if u["kind"] == "raise"]
    assert raises == [("F1", H1, True, "critical", "strict"), ("F1", SEA, True, "critical", "strict"),
                      ("F2", H2, True, "minor", "strict"), ("F2", H1, True, "minor", "unchecked"),  # the elided one
                      ("F3", SEA, False, "minor", "strict"), ("F4", H2, True, "minor", "strict")]
    assert all(set(u) == set(UNIT_KEYS[("flaws", "pool")]) for u in units)
    assert json.loads(pool.inputs_json)["prism_source"] == "sea"
    order = json.loads(got[f"{TREE_POOL}|{TREE}"].units_json)
    # F09 is no flaw of the pool; the two kept mentions sit where PRISM's case-insensitive search finds them
    assert [(m["flaw_id"], m["located_by"], m["section"], m["severity"]) for m in order] == [
        ("F1", "exact", "weaknesses", "critical"), ("F2", "exact", "weaknesses", "minor")]
    assert order[1]["position"] < order[0]["position"]  # the Strengths sentence comes first
    assert json.loads(got[f"{TREE_POOL}|{TREE}"].dropped_json) == {"unknown_flaw": 1}
    assert all(set(m) == set(UNIT_KEYS[("flaws", "order")]) for m in order)


def test_a_bad_flaw_file_is_set_aside_with_what_where_and_why_and_the_rest_imports(lake, tmp_path):
    demo = _imported(tmp_path)
    folder = demo / "flaw_identification" / "iclr2025"
    write(folder / "sea" / "Broken0001.json", "{oops")
    write(folder / "sea" / "NoFlaws001.json", {"paper_id": "NoFlaws001", "evaluations": {"evaluations": {}}})
    write(folder / "human" / f"{ICLR}.json", layout.FLAWS_SEA)
    write(folder / "reviewer2" / "NotInLake1.json", {**layout.FLAWS_SEA, "paper_id": "NotInLake1"})
    r = _cli("judgments", str(demo / "flaw_identification"), "--judge", "flaws")
    out = " ".join(r.output.split())
    for why in ("Broken0001.json: not valid JSON",
                "NoFlaws001.json: has no 'micro_flaws' list (PRISM's flaw_identification output",
                f"human/{ICLR}.json: is a human source: PRISM pools its humans with one LLM review",
                "NotInLake1.json: no reviewer2 review of NotInLake1 in the lake; import the data first"):
        assert why in out, why
    t = _tally(r.output)
    assert (t["imported"], t["rejected"]) == (5, 4)
    assert {k for k in _judgments(FLAWS) if "|s0|" not in k} == {SEA_POOL, TREE_POOL}
    r = _cli("judgments", str(demo / "flaw_identification"), "--judge", "flaw_identification", code=2)
    assert "holds the flaws judge's" in " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())


def _dcg(weights: list[int]) -> float:
    import math

    return sum(w / math.log2(i + 2) for i, w in enumerate(weights))


def prism_flaws(doc: dict, who: str, n_members: int) -> dict:
    """Spec §3 over a released pool: recall = |D_r ∩ G| / |G| (None when G is empty), weighted by
    W_i = C_i / N; every raise counts (PRISM never checks raw_arguments)."""
    verdicts = doc["evaluations"]["evaluations"]
    raisers = {f["flaw_id"]: set(f["raw_arguments"]) for f in doc["micro_flaws"]["micro_flaws"]}
    out = {}
    for sev in ("Critical", "Minor"):
        truth = {f for f, v in verdicts.items() if v["is_valid"] and v["severity"] == sev}
        found = {f for f in truth if who in raisers[f]}
        out[f"recall_{sev.lower()}"] = len(found) / len(truth) if truth else None
        out[f"recall_{sev.lower()}_weighted"] = (sum(len(raisers[f]) for f in found) / n_members
                                                 / (sum(len(raisers[f]) for f in truth) / n_members)) if truth else None
    return out


def test_quality_flaws_from_released_pools_give_prisms_figures(lake, tmp_path):
    from tests.dbt.test_marts import dbt_build

    demo = _imported(tmp_path, "--study", "prism")
    r = _cli("judgments", str(demo / "flaw_identification"), "--judge", "flaws", "--study", "prism")
    assert f"study prism: {FLAWS} covers 4 reviews" in r.output  # H1, H2 and the two systems' reviews
    db, _ = dbt_build(lake.root, tmp_path, db=tmp_path / "marts.duckdb", select="+quality_flaws")
    with duckdb.connect(str(db), read_only=True) as con:
        def row(pool: str, review: str) -> dict:
            cur = con.execute("select * from quality_flaws where quality_flaws_id = ?",
                              [f"prism|{FLAWS}|{pool}|{review}"])
            names = [d[0] for d in cur.description]
            [values] = cur.fetchall()
            return dict(zip(names, values, strict=True))

        figures = ("recall_critical", "recall_minor", "recall_critical_weighted", "recall_minor_weighted")
        recorded = {r_["Reviewer_ID"]: r_ for r_ in layout.FLAWS_SEA["metrics_report"]["cfi"]["Reviewer_Rankings"]}
        names = {"recall_critical": "Critical_Recall", "recall_minor": "Minor_Recall",
                 "recall_critical_weighted": "Critical_Recall_ConsensusWeighted",
                 "recall_minor_weighted": "Minor_Recall_ConsensusWeighted"}
        for who, review in (("Human_1", H1), ("Human_2", H2), ("LLM_Reviewer", SEA)):
            got = row(SEA_POOL, review)
            want = prism_flaws(layout.FLAWS_SEA, who, 3)
            assert {k: got[k] for k in figures} == pytest.approx(want), who
            assert {k: round(got[k], 4) for k in figures} == {k: recorded[who][names[k]] for k in figures}, who
            # the released file keeps no mentions: no order judgment, so no nCPS, and the reason says so
            assert (got["ncps"], got["ncps_null_reason"], got["n_pool_members"]) == (None, "order_not_judged", 3)
        # the verbatim variant leaves out Human_1's elided quote of F02: G_m's raisers shrink, its recall drops
        h1 = row(SEA_POOL, H1)
        assert (h1["recall_minor"], h1["recall_minor_verbatim"]) == (0.5, 0.0)
        assert (h1["recall_minor_weighted"], h1["recall_minor_weighted_verbatim"]) == pytest.approx((2 / 3, 0.0))
        assert row(SEA_POOL, SEA)["hallucination_rate"] == 0.5  # F03 of its two
        # TreeReview's mentions [minor, critical] in one named section: nCPS = (1 + 2/log2 3) / (2 + 1/log2 3)
        tree = row(TREE_POOL, TREE)
        assert tree["ncps"] == pytest.approx(_dcg([1, 2]) / _dcg([2, 1]))
        assert round(tree["ncps"], 4) == layout.FLAWS_TREE["metrics_report"]["cps"]["Reviewer_Rankings"][0]["nCPS"]
        assert (row(TREE_POOL, H1)["ncps"], row(TREE_POOL, H2)["ncps"]) == (1.0, 0.0)


# ---- novelty verification: one folder of task results per paper -----------------------------------------

NOVELTY = "prism-released:novelty"


def prism_novelty(claim_scores: list[float]) -> dict:
    """Spec §2: NS = clip((mean_c s_c + 2) / 4, 0, 1), SR = frac(s_c >= 1), SSR = frac(s_c >= 2)."""
    mean = sum(claim_scores) / len(claim_scores)
    return {"ns": min(1.0, max(0.0, (mean + 2) / 4)), "sr": sum(s >= 1 for s in claim_scores) / len(claim_scores),
            "ssr": sum(s >= 2 for s in claim_scores) / len(claim_scores)}


def test_released_novelty_folders_become_claims_judgments(lake, tmp_path):
    demo = _imported(tmp_path)
    t = _tally(_cli("judgments", str(demo / "novelty_verification"), "--judge", "novelty").output)
    assert (t["imported"], t["rejected"]) == (3, 0)  # SEA's review; the humans' folder: one per review
    got = _judgments(NOVELTY)
    assert set(got) == {SEA, H1, H2}
    sea = json.loads(got[SEA].units_json)
    assert all(set(u) == set(UNIT_KEYS[("novelty", "claims")]) for u in sea)
    # C1: PRISM's best_evidence p1 p2 p3 are ranks 1-3, p4 follows; every relevance 1 (PRISM has none)
    assert [(u["claim_index"], u["candidate_id"], u["pool_rank"], u["relevance"], u["verdict"]) for u in sea[:4]] == [
        (0, "p1", 1, 1.0, "SUPPORTED"), (0, "p2", 2, 1.0, "AMBIGUOUS"), (0, "p3", 3, 1.0, "AMBIGUOUS"),
        (0, "p4", 4, 1.0, "UNSUPPORTED")]
    assert (sea[0]["stance"], sea[0]["candidate_title"], sea[4]["prior_work"]) == (
        "novel", "Fair Gradient Clipping", ["static clipping"])
    # C2 names no best_evidence: the 3 largest |score| (p6's label is missing, its score 2 stands)
    assert [(u["candidate_id"], u["pool_rank"], u["verdict"]) for u in sea[4:]] == [
        ("p1", 2, "OVERSTATED"), ("p5", 4, "AMBIGUOUS"), ("p2", 3, "UNDERSTATED"), ("p6", 1, "SUPPORTED")]
    # the humans' joined text: each claim is the review that holds it
    assert [u["claim_text"] for u in json.loads(got[H1].units_json)][:1] == ["This paper is generally well-written."]
    assert {u["claim_text"] for u in json.loads(got[H2].units_json)} == {"The paper proposes an adaptive method."}


def test_a_bad_novelty_folder_is_set_aside_with_what_where_and_why(lake, tmp_path):
    demo = _imported(tmp_path)
    folder = demo / "novelty_verification" / "iclr2025"
    write(folder / "tree" / ICLR / "task1_result.json", layout.NOVELTY_SEA_TASK1)  # no task 3
    write(folder / "reviewer2" / "NotInLake1" / "task3_result.json", layout.NOVELTY_SEA_TASK3)
    write(folder / "deepreview" / ICLR / "task3_result.json", "{oops")
    write(folder / "cyclereview" / ICLR / "task3_result.json", {"review_sentences": []})
    r = _cli("judgments", str(demo / "novelty_verification"), "--judge", "novelty")
    out = " ".join(r.output.split())
    for why in (f"tree/{ICLR}/task3_result.json: is missing: PRISM's verification (task 3) holds the verdicts",
                "NotInLake1/task3_result.json: no reviewer2 review of NotInLake1 in the lake",
                f"deepreview/{ICLR}/task3_result.json: not valid JSON",
                f"cyclereview/{ICLR}/task3_result.json: has no 'aggregated' list"):
        assert why in out, why
    t = _tally(r.output)
    assert (t["imported"], t["rejected"]) == (3, 4)


def test_quality_novelty_from_released_folders_gives_prisms_figures(lake, tmp_path):
    from tests.dbt.test_marts import dbt_build

    demo = _imported(tmp_path, "--study", "prism")
    r = _cli("judgments", str(demo / "novelty_verification"), "--judge", "novelty", "--study", "prism")
    assert f"study prism: {NOVELTY} covers 3 reviews" in r.output
    db, _ = dbt_build(lake.root, tmp_path, db=tmp_path / "marts.duckdb", select="+quality_novelty")
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select review_key, ns, sr, ssr, n_claims from quality_novelty where study_id = 'prism' "
                          "and judge_config = ?", [NOVELTY])
        got = {k: {"ns": ns, "sr": sr, "ssr": ssr, "n": n} for k, ns, sr, ssr, n in cur.fetchall()}
    # PRISM's s_c: the plain mean of its top-3 verdict scores (SUPPORTED 2 … UNSUPPORTED -2), worked by hand
    want = {SEA: prism_novelty([(2 + 0 + 0) / 3, (2 + 1 - 1) / 3]), H1: prism_novelty([(2 + 2 + 1) / 3]),
            H2: prism_novelty([2.0])}
    for key, w in want.items():
        assert {k: got[key][k] for k in ("ns", "sr", "ssr")} == pytest.approx(w), key
    assert got[SEA]["ns"] == pytest.approx(2 / 3) and got[H1]["ns"] == pytest.approx(11 / 12)
    # SEA's first claim scores PRISM's own recorded final_score: the mean of 2, 0, 0
    assert layout.NOVELTY_SEA_TASK3["aggregated"][0]["final_score"] == pytest.approx(2 / 3)
