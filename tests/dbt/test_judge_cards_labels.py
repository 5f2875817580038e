"""Judge cards for all four PRISM judges from human_label_imported rows (DISAPERE sentences for depth and
novelty, RevUtil comments for constructiveness, ReviewCritique segments for flaw validity), on a tiny lake
of hand-made labels and judgments built by dbt; every κ, α and ceiling is worked out by hand below. Then
the flaw judge's test–retest, and the gate with per-judge requirements ([judging.require.flaws])."""

import hashlib
import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from peerlake.expectations import run_gate
from peerlake.studies import resolution_event
from peerlake.studies.parse import parse_study
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.events import HumanLabelImported, JudgmentRecorded
from tests.dbt.test_judge_cards import build_marts

D, N, C, F = "dep0000000000001", "nov0000000000001", "con0000000000001", "fla0000000000001"
RD, RN, RC = "external:disapere:r1", "external:disapere:r2", "external:revutil:c1"
RF, RF3 = "external:reviewcritique:p9-r1", "external:reviewcritique:p8-r1"
POOL, POOL2 = "pool:P9|reviewcritique|s0", "pool:P8|reviewcritique|s0"
STUDY = "lab"
SHA = {"disapere": "d" * 64, "revutil": "e" * 64, "reviewcritique": "c" * 64}
OLD_REVUTIL = "0" * 64  # an earlier import under another mapping: never part of a card
T0 = datetime(2026, 3, 1, tzinfo=UTC)

# The study's requirements as a study file says them: κ >= 0.5 for every judge, flaws its own 0.2.
STUDY_TOML = ('name = "lab"\njudges = ["depth", "novelty", "constructiveness", "flaws"]\n[papers]\ncorpus = "demo"\n'
              "[judging.require]\nkappa_min = 0.5\n[judging.require.flaws]\nkappa_min = 0.2\n")

# DISAPERE review RD, sentences at judged offsets [0,20) [20,40) [40,60) [60,80): the final dataset's roles
# (annotator a1) and an extra annotation by a2.
ROLES_A1 = ["claim", "premise", "none", "claim"]
ROLES_A2 = ["claim", "claim", "none", "claim"]
# DISAPERE review RN, originality sentences: the final stance (a1) and a2's.
SENTENCES = ["The idea is new.", "This was done before by Smith.", "Novelty is unclear to me."]
ACTION = {"claim": "arg_evaluative", "premise": "arg_fact", "none": "arg_structuring"}  # as the dataset gives them
STANCE_A1 = ["novel", "not_novel", "unclear"]
STANCE_A2 = ["novel", "not_novel", "not_novel"]
# RevUtil comments of RC: the majority's actionability (the reference) and three raters', mapped to 0-2.
COMMENTS = ["Please add an ablation on the encoder.", "The writing could be clearer.", "Why not compare with BERT?"]
ACT_MAJORITY = [2, 1, 0]
ACT_RATERS = {"u1": [2, 1, 0], "u2": [1, 0, 0], "u3": [2, 1, 1]}
# ReviewCritique segments of RF: the experts' validity (the third and fourth are reliable criticisms).
SEGMENTS = ["The method ignores prior work on X.", "The experiments lack a baseline.", "Table 2 is wrong.",
            "The paper is well written."]
VALID = [False, True, True, True]


def _label(dataset, review_key, i, text, annotator, is_reference, mapped, *, start=None, at=0, sha=None,
           given=None):
    return HumanLabelImported(
        dataset=dataset, item_key=f"{review_key.rsplit(':', 1)[1]}#{i}", review_key=review_key, paper_id="P9",
        split=None, annotator=annotator, is_reference=is_reference, item_text=text, start=start,
        end=None if start is None else start + 20, judged_start=start, judged_end=None if start is None else start + 20,
        labels_json=json.dumps(given or {}), mapped_json=json.dumps(mapped), mapping=dataset,
        mapping_sha256=sha or SHA[dataset], source_path="t", occurred_at=T0 + timedelta(minutes=at))


def labels() -> list:
    out = []
    for i, (a1, a2) in enumerate(zip(ROLES_A1, ROLES_A2, strict=True)):
        for who, role, ref in (("a1", a1, True), ("a2", a2, False)):
            out.append(_label("disapere", RD, i, f"sentence {i}", who, ref,
                              {"role": None if role == "none" else role, "is_unit": role != "none"}, start=20 * i,
                              given={"review_action": ACTION[role], "aspect": "asp_soundness-correctness"}))
    for i, text in enumerate(SENTENCES):
        for who, stance, ref in (("a1", STANCE_A1[i], True), ("a2", STANCE_A2[i], False)):
            out.append(_label("disapere", RN, i, text, who, ref,
                              {"role": None, "is_unit": None, "novelty_stance": stance},
                              given={"review_action": "arg_evaluative", "aspect": "asp_originality"}))
    # a3 labelled the first sentence too, but not as an originality statement: no stance, so 'none' in the ceiling
    out.append(_label("disapere", RN, 0, SENTENCES[0], "a3", False, {"role": "claim", "is_unit": True},
                      given={"review_action": "arg_evaluative", "aspect": "asp_soundness-correctness"}))
    for i, text in enumerate(COMMENTS):
        # the old mapping's rows say the opposite, and are older: the card must not read them
        out.append(_label("revutil", RC, i, text, None, True, {"actionability": 2 - ACT_MAJORITY[i]}, sha=OLD_REVUTIL))
        out.append(_label("revutil", RC, i, text, None, True, {"actionability": ACT_MAJORITY[i]}, at=5))
        for who, acts in ACT_RATERS.items():
            out.append(_label("revutil", RC, i, text, who, False, {"actionability": acts[i]}, at=5))
    for i, (text, valid) in enumerate(zip(SEGMENTS, VALID, strict=True)):
        out.append(_label("reviewcritique", RF, i, text, None, True, {"validity": valid},
                          given={"reliability": "Yes" if valid else "No",
                                 "error_type": "reliable" if valid else "misunderstanding"}))
    return out


def _judgment(judge, step, config, subject, repeat, units) -> JudgmentRecorded:
    return JudgmentRecorded(
        judgment_key=hashlib.sha256(f"{config}{subject}{repeat}".encode()).hexdigest(), judge=judge, step=step,
        judge_config=config, subject_key=subject, paper_id="P9", repeat=repeat, status="ok", null_reason=None,
        units_json=json.dumps(units), dropped_json="{}", llm_call_ids_json="[]", request_keys_json="[]",
        inputs_json=json.dumps({"chars": 5000, "chars_judged": 1000}), study=STUDY)


def _unit(i, start, role):
    return {"unit_index": i, "text": "x" * 20, "start": start, "field": "text", "role": role, "aspect": "soundness",
            "grounding": None}


def _claim(i, text, stance):
    return {"claim_index": i, "claim_text": text, "stance": stance, "prior_work": [], "candidate_id": None,
            "candidate_title": None, "candidate_year": None, "pool_rank": None, "relevance": None, "verdict": None,
            "reason": "no_candidates"}


def _comment(i, anchor, act):
    return {"comment_index": i, "text": f"comment {i}", "section": "weaknesses", "anchor_quote": anchor,
            "anchor_found": True, "actionability": act, "specificity": 1, "justification": 1, "solution": 1,
            "tone": 2}


def _raise(flaw, review_key, valid, severity, quote):
    return {"kind": "raise", "review_key": review_key, "flaw_id": flaw, "topic": "methodology",
            "summary": f"flaw {flaw}", "is_valid": valid, "severity": severity, "quote": quote, "verbatim": "strict"}


def _mention(flaw, severity, position):
    return {"flaw_id": flaw, "severity": severity, "position": position, "section": "weaknesses",
            "flaw_verbatim": True}


def judgments() -> list:
    member, member2 = {"kind": "member", "review_key": RF}, {"kind": "member", "review_key": RF3}
    # depth: repeat 0 calls the fourth sentence a premise, repeat 1 a claim; no unit on the third
    depth = {0: ["claim", "premise", "premise"], 1: ["claim", "premise", "claim"]}
    # novelty: no claim on the third sentence; the second claim holds the second sentence (and more)
    second = {0: "not_novel", 1: "somewhat_novel"}
    # constructiveness: repeat 0 has no comment anchored in the third RevUtil comment
    comments = {0: [_comment(0, "add an ablation on the  Encoder", 2), _comment(1, "writing could be clearer", 2)],
                1: [_comment(0, "add an ablation on the encoder", 2), _comment(1, "writing could be clearer", 1),
                    _comment(2, "compare with BERT", 0)]}
    # flaws: F1 critical, F2 critical, F3 minor, all raised by RF; validity calls per repeat. The order step:
    # RF mentions a minor flaw before a critical one in repeat 0, the other way round in repeat 1; RF3 (alone
    # in a second pool, raising nothing) mentions none
    validity = {0: (False, True, False), 1: (True, True, True)}
    mentions = {0: [_mention("F3", "minor", 0), _mention("F2", "critical", 10)],
                1: [_mention("F2", "critical", 0), _mention("F3", "minor", 10)]}
    out = []
    for k in (0, 1):
        out.append(_judgment("depth", "units", D, RD, k, [_unit(0, 0, depth[k][0]), _unit(1, 20, depth[k][1]),
                                                          _unit(2, 60, depth[k][2])]))
        out.append(_judgment("novelty", "claims", N, RN, k, [
            _claim(0, "the idea is new", "novel"), _claim(1, "This was done before by Smith. It is old.", second[k])]))
        out.append(_judgment("constructiveness", "comments", C, RC, k, comments[k]))
        f1, f2, f3 = validity[k]
        raises = [_raise("F1", RF, f1, "critical", "ignores prior work on X"),
                  _raise("F2", RF, f2, "critical", "lack a baseline"),
                  _raise("F3", RF, f3, "minor", "Table 2 is wrong")]
        out.append(_judgment("flaws", "pool", F, POOL, k, [member, *raises]))
        out.append(_judgment("flaws", "pool", F, POOL2, k, [member2]))
        out.append(_judgment("flaws", "order", F, f"{POOL}|{RF}", k, mentions[k]))
        out.append(_judgment("flaws", "order", F, f"{POOL2}|{RF3}", k, []))
    return out


def build_lake(root: Path) -> None:
    log = EventLog(Lake(root))
    require = json.loads(json.dumps(dict(parse_study(STUDY, STUDY_TOML).judging.require)))
    rows = [{"judge": judge, "judge_config": cfg, "provider": "fake", "model": "m", "repeats": 2,
             "review_keys": keys, "pools": pools, "require": require}
            for judge, cfg, keys, pools in (("depth", D, [RD], []), ("novelty", N, [RN], []),
                                            ("constructiveness", C, [RC], []), ("flaws", F, [RF, RF3], [POOL, POOL2]))]
    log.append_many([*labels(), *judgments(),
                     resolution_event(STUDY, "f" * 64, ["P9"], [], ["disapere", "revutil", "reviewcritique"],
                                      paper_source="test", asset="judgments", judges=rows)])
    log.seal()
    log.close()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("judge_cards_labels")
    build_lake(root / "lake")
    return build_marts(root / "lake", root)


def _cards(db: Path) -> dict:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from judge_cards")
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    return {(r["judge_config"], r["dimension"], r["statistic"]): r for r in rows}


def test_depth_against_disapere_sentences_and_its_ceiling(db):
    cards = _cards(db)
    # (judge, human) over 4 sentences x 2 repeats: r0 (c,c) (p,p) (none,none) (p,c); r1 the same but (c,c).
    # p_o = 7/8; judge c 3, p 3, none 2; human c 4, p 2, none 2: p_e = (12 + 6 + 4)/64; κ = (56 − 22)/(64 − 22)
    kappa = cards[(D, "role", "human_kappa")]
    assert kappa["estimate"] == pytest.approx(34 / 42)
    assert (kappa["dataset"], kappa["n"], kappa["label_mapping"], kappa["label_mapping_sha256"]) == \
        ("disapere", 8, "disapere", SHA["disapere"])
    # α: cc 3 items, pp 2, nn 2, c–p 1: n_c 7, n_p 5, n_none 4, n 16; D_o = 2/16, D_e = 2(35 + 28 + 20)/240
    assert cards[(D, "role", "human_alpha")]["estimate"] == pytest.approx(1 - (2 / 16) / (166 / 240))
    # a1 (the final dataset) and a2: (c,c) (p,c) (n,n) (c,c): n_c 5, n_p 1, n_n 2; D_o 2/8, D_e 2(5+10+2)/56
    ceiling = cards[(D, "role", "human_human_alpha")]
    assert ceiling["estimate"] == pytest.approx(1 - (2 / 8) / (34 / 56)) and ceiling["n"] == 4
    # repeats: (c,c) (p,p) (n,n) (p,c): n_c 3, n_p 3, n_n 2; D_o 2/8, D_e 2(9 + 6 + 6)/56
    assert cards[(D, "role", "retest_alpha")]["estimate"] == pytest.approx(1 - (2 / 8) / (42 / 56))


def test_novelty_against_disapere_originality_sentences(db):
    cards = _cards(db)
    # r0 (novel,novel) (not,not) (none,unclear); r1 (novel,novel) (somewhat,not) (none,unclear): p_o = 3/6;
    # judge novel 2, not 1, somewhat 1, none 2; human novel 2, not 2, unclear 2: p_e = (4 + 2)/36; κ = 12/30
    kappa = cards[(N, "stance", "human_kappa")]
    assert kappa["estimate"] == pytest.approx(0.4) and kappa["dataset"] == "disapere" and kappa["n"] == 6
    # α: n_novel 4, n_not 3, n_somewhat 1, n_none 2, n_unclear 2 (n 12); D_o 6/12, D_e (144 − 34)/132
    assert cards[(N, "stance", "human_alpha")]["estimate"] == pytest.approx(1 - (6 / 12) / (110 / 132))
    # a1, a2 (and a3 on the first: 'none'): (novel,novel,none) (not,not) (unclear,not). The first sentence's
    # 6 ordered pairs weigh 1/2: o_nn 1, o_n–none 1 + 1; then o_not,not 2, o_unclear–not 1 + 1. n_novel 2,
    # n_none 1, n_not 3, n_unclear 1 (n 7): D_o = 4/7, D_e = (49 − 15)/42
    ceiling = cards[(N, "stance", "human_human_alpha")]
    assert ceiling["estimate"] == pytest.approx(1 - (4 / 7) / (34 / 42)) and ceiling["n"] == 3
    # repeats: (novel,novel) (not,somewhat) (none,none): D_o 2/6, D_e (36 − 10)/30
    assert cards[(N, "stance", "retest_alpha")]["estimate"] == pytest.approx(1 - (2 / 6) / (26 / 30))


def test_constructiveness_against_revutil_raters(db):
    cards = _cards(db)
    # (judge, majority) with a value on both: (2,2) (2,1) (2,2) (1,1) (0,0) — repeat 0's third is 'none'.
    # Quadratic weights: observed Σw·p = 1/5; margins judge (1,1,3)/5, human (1,2,2)/5:
    # Σw·p_i·q_j = (2 + 8 + 1 + 2 + 12 + 6)/25 = 31/25; κ_w = 1 − 5/31
    kappa = cards[(C, "actionability", "human_kappa")]
    assert kappa["estimate"] == pytest.approx(26 / 31) and kappa["measurement_level"] == "ordinal"
    assert (kappa["dataset"], kappa["label_mapping_sha256"]) == ("revutil", SHA["revutil"])  # never the old one
    # ordinal α on the 5 pairs: n_0 2, n_1 3, n_2 5; δ(0,1) = 2.5², δ(1,2) = 4², δ(0,2) = 6.5²;
    # Σo·δ = 2·16, Σn_c·n_k·δ = 2(6·6.25 + 15·16 + 10·42.25) = 1400: α = 1 − 9·32/1400
    assert cards[(C, "actionability", "human_alpha")]["estimate"] == pytest.approx(1 - 9 * 32 / 1400)
    # three raters (2,1,2) (1,0,1) (0,0,1): o_00 = o_11 = o_22 = 1, o_01 = 2, o_12 = 1; n_0 3, n_1 4, n_2 2;
    # δ(0,1) = 3.5², δ(1,2) = 3², δ(0,2) = 6.5²; Σo·δ = 2(2·12.25 + 9) = 67,
    # Σn·n·δ = 2(12·12.25 + 8·9 + 6·42.25) = 945: α = 1 − 8·67/945
    ceiling = cards[(C, "actionability", "human_human_alpha")]
    assert ceiling["estimate"] == pytest.approx(1 - 8 * 67 / 945) and ceiling["n"] == 3


def test_flaw_validity_against_reviewcritique_and_the_flaw_retest(db):
    cards = _cards(db)
    # segments a raise quotes, (judge, experts): r0 (i,i) (v,v) (i,v); r1 (v,i) (v,v) (v,v). The fourth segment
    # is quoted by no raise: no item. p_o = 4/6; margins i 2, v 4 on both sides: p_e = 20/36; κ = 4/16
    kappa = cards[(F, "validity", "human_kappa")]
    assert kappa["estimate"] == pytest.approx(0.25) and (kappa["n"], kappa["dataset"]) == (6, "reviewcritique")
    # α: n_i 4, n_v 8 (n 12); D_o 4/12, D_e 2·32/132
    assert cards[(F, "validity", "human_alpha")]["estimate"] == pytest.approx(1 - (4 / 12) / (64 / 132))
    # one label per segment (the experts'): no ceiling, and it says why
    ceiling = cards[(F, "validity", "human_human_alpha")]
    assert (ceiling["status"], ceiling["null_reason"]) == ("not_measured", "fewer_than_2_annotators")
    # the validity calls' test–retest on the same segments: (i,v) (v,v) (i,v): D_o 4/6, D_e 16/30
    assert cards[(F, "validity", "retest_alpha")]["estimate"] == pytest.approx(1 - (4 / 6) / (16 / 30))
    # nCPS per (pool, review) and repeat, w = 2 critical, 1 minor, one section: RF r0 (minor, critical):
    # CPS = 1/log2 2 + 2/log2 3, ICPS = 2/log2 2 + 1/log2 3, so a = CPS/ICPS; r1 critical first: 1. RF3 mentions
    # nothing: 0 in both (PRISM's rule). ICC(1), k = 2: grand mean g = (a + 1)/4, review means 2g and 0:
    # MSB = 2((2g − g)² + g²) = 4g², MSW = 2((1 − a)/2)²/2 = ((1 − a)/2)²; ICC = (MSB − MSW)/(MSB + MSW)
    a = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    g, msw = (a + 1) / 4, ((1 - a) / 2) ** 2
    icc = cards[(F, "ncps", "retest_icc")]
    assert icc["estimate"] == pytest.approx((4 * g * g - msw) / (4 * g * g + msw)) and icc["n"] == 2
    # interval α of (a, 1) and (0, 0): D_o = 2(1 − a)²/4; the 4 values' unordered squared differences sum to
    # U = (1 − a)² + 2a² + 2, D_e = 2U/12: α = 1 − 3(1 − a)²/U
    u = (1 - a) ** 2 + 2 * a * a + 2
    assert cards[(F, "ncps", "retest_alpha")]["estimate"] == pytest.approx(1 - 3 * (1 - a) ** 2 / u)
    # recall_critical: RF finds every valid critical flaw in both repeats; RF3's pool has none (null): one review
    recall = cards[(F, "recall_critical", "retest_icc")]
    assert (recall["status"], recall["null_reason"]) == ("not_measured", "fewer_than_2_reviews_repeated")
    assert run_gate("judge_cards", db).success


def test_per_judge_requirements_one_passes_one_blocks(db):
    with duckdb.connect(str(db), read_only=True) as con:
        rows = {r[0]: r[1:] for r in con.execute(
            "select judge, threshold, measured, check_status, failure from judge_card_checks "
            "where requirement = 'kappa_min'").fetchall()}
    # flaws' κ 0.25 would fail the study's 0.5; its own table asks 0.2, and it passes
    assert rows["flaws"][:3] == (pytest.approx(0.2), pytest.approx(0.25), "pass")
    # novelty has κ 0.4 < 0.5: it fails, named; depth (0.81) and constructiveness (its lowest κ, 0.84) pass
    assert rows["novelty"][2] == "fail" and "kappa_min - 0.4 (disapere stance) < 0.5" in rows["novelty"][3]
    assert rows["depth"][2] == "pass" and rows["constructiveness"][2] == "pass"
    result = run_gate("judge_card_checks", db)
    assert not result.success
    assert f"judge novelty {N} in study {STUDY} - kappa_min" in result.describe()
    assert "judge flaws" not in result.describe()
