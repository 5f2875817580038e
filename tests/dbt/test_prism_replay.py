"""PRISM's own judge answers replayed through peerlake's judges (issue #24): a hosted judge ("openai", gpt-4.1, on a
loopback server) answers every step with what PRISM's judges recorded for one paper's three reviews
(tests/ingest/prism_layout.py REPLAY_*), converted to the shape each peerlake step asks for; the real judge modules
parse and record the answers, one dbt build computes the marts, and every per-review figure must equal the one
PRISM's formulas give (/work/shared/specs/prism-metric-definitions.md, written out again below without peerlake's
code), to 1e-9, and PRISM's released 4-place figures when rounded. The same answers under the embedded model's
caps (judging/caps.py LOCAL_CAPS) lose items, and then about half the figures differ: the last test.

The depth answers use the PRISM reference code's taxonomy (Soundness / Clarity / Contribution / Other, grounding
0-2), peerlake's default; PRISM's released data_demo depth files use another (methodology ... presentation,
grounding 0-3), which no replay through this taxonomy could reproduce."""

import math
import re
from dataclasses import dataclass

import duckdb
import pytest

from peerlake.ingest.judgment_scope import add_to_study
from peerlake.judging import constructiveness, depth, flaws
from peerlake.judging.base import JudgeConfig, JudgeContext, Judgment, Recorder
from peerlake.judging.caps import LOCAL_CAPS, resolve_caps
from peerlake.judging.reviews import external_reviews, human_reviews
from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse import EventLog, Lake
from tests.dbt.test_marts import dbt_build
from tests.ingest import prism_layout as layout
from tests.ingest.test_judgment_import import _cli
from tests.judging.support import ScriptedJudgeServer
from tests.llm_calls.support import FAKE_KEYS, providers_for

STUDY, MODEL = "prism-replay", "gpt-4.1"
H1, H2 = f"human:{layout.REPLAY_H1}", f"human:{layout.REPLAY_H2}"
SEA = f"external:sea-e:{layout.REPLAY}"
REVIEWS = (H1, H2, SEA)
POOL = f"pool:{layout.REPLAY}|sea-e|s0"
# PRISM's reviewer ids → review keys, and → the labels the extractor sees (the pool's members: the humans by review
# id, which is their file order here, then the system's review; checked against the pool judgment below)
KEY = {"Human_1": H1, "Human_2": H2, "SEA": SEA, "SEA_ICLR2025": SEA, "LLM_Reviewer": SEA}
LABEL = {"Human_1": "R1", "Human_2": "R2", "LLM_Reviewer": "R3"}
# words of each review's summary, which every judge reads: the server answers a prompt holding them
NEEDLE = {H1: "OT-Route, a router for sparse", H2: "This work replaces the auxiliary",
          SEA: "an optimal-transport router"}

ANALYSES = {KEY[who]: args for f in (layout.REPLAY_DEPTH_SEA, layout.REPLAY_DEPTH_HUMAN)
            for who, args in f["reviews_analysis"].items()}
CONSTRUCTIVE = {SEA: layout.REPLAY_CONSTRUCTIVE_SEA,
                **{KEY[r["reviewer_id"]]: r for r in layout.REPLAY_CONSTRUCTIVE_HUMAN["reviewers"]}}
FLAWS = layout.REPLAY_FLAWS
MENTIONS = {KEY[who]: block["arguments"] for who, block in FLAWS["metrics_report"]["cps"].items()}
# PRISM's macro-topic number → the extractor's topic (it does not enter any figure)
TOPIC = {"1": "novelty", "2": "presentation", "3": "applicability", "4": "experiments", "5": "related_work",
         "6": "methodology"}
RATINGS = ("D1_actionability", "D2_specificity", "D3_justification", "D4_solution", "D5_tone")
ASPECTS = ("soundness", "clarity", "contribution", "other")  # prism-reference's, in its file's order


# ---- PRISM's answers in the shape of peerlake's steps ----------------------------------------------------------

def depth_replies(args: list[dict]) -> dict[str, dict]:
    """units: the arguments, verbatim; labels: role and aspect by unit number; grounding: each premise's score by
    premise number, and none for a premise PRISM's text join left null (the judge then keeps it null)."""
    premises = [a for a in args if a["role"] == "Premise"]
    return {"judge_depth_units": {"units": [a["argument"] for a in args]},
            "judge_depth_labels": {"labels": [{"unit": i, "role": a["role"].lower(), "aspect": a["aspect"].lower()}
                                              for i, a in enumerate(args, 1)]},
            "judge_depth_grounding": {"grounding": [{"premise": i, "score": a["grounding_score"]}
                                                    for i, a in enumerate(premises, 1)
                                                    if a["grounding_score"] is not None]}}


def comments_reply(comments: list[dict]) -> dict:
    names = ("actionability", "specificity", "justification", "solution", "tone")
    return {"comments": [{"section": c["section"], "text": c["content"], "anchor_quote": c["anchor_quote"],
                          **{n: c[d] for n, d in zip(names, RATINGS, strict=True)}} for c in comments]}


def extract_reply() -> dict:
    return {"flaws": [{"topic": TOPIC[f["macro_topic"].split(".")[0]], "summary": f["core_summary"],
                       "raised_by": [{"reviewer": LABEL[who], "quote": q} for who, q in f["raw_arguments"].items()]}
                      for f in FLAWS["micro_flaws"]]}


def validate_reply() -> dict:
    def severity(e: dict) -> str:  # PRISM's "None" (of an invalid flaw) is the schema's undecided
        return e["severity"].lower() if e["severity"] in ("Critical", "Minor") else "undecided"

    return {"evaluations": [{"flaw_id": fid, "is_valid": e["is_valid"], "severity": severity(e)}
                            for fid, e in FLAWS["evaluations"].items()]}


def script(server: ScriptedJudgeServer) -> None:
    for key, args in ANALYSES.items():
        for schema, reply in depth_replies(args).items():
            server.answer(schema, NEEDLE[key], reply=reply)
    for key, released in CONSTRUCTIVE.items():
        server.answer("judge_constructiveness_comments", NEEDLE[key], reply=comments_reply(released["atomic_comments"]))
    server.answer("judge_flaws_extract", reply=extract_reply())  # one pool
    server.answer("judge_flaws_validate", reply=validate_reply())
    for key, mentions in MENTIONS.items():
        server.answer("judge_flaws_order", NEEDLE[key],
                      reply={"mentions": [{"flaw_id": m["issue_id"], "anchor": m["anchor_quote"]} for m in mentions]})


# ---- PRISM's formulas (the spec), over neutral rows so PRISM's answers and peerlake's units both fit -------------

def depth_figures(units: list[tuple[str, str, int | None]]) -> dict:
    """§1 over (role, aspect, grounding): R = premises / units; S_norm = mean non-null premise grounding / 2 (0 when
    none); DoA = 2 R S / (R + S), 0 when R + S = 0; Ratio_All_a and Ratio_Prem_a per aspect."""
    premises = [u for u in units if u[0] == "premise"]
    grounded = [u[2] for u in premises if u[2] is not None]
    r, s = len(premises) / len(units), (sum(grounded) / len(grounded) if grounded else 0) / 2
    return {"n_units": len(units), "premise_ratio": r, "grounding_norm": s,
            "doa": 0.0 if r + s == 0 else 2 * r * s / (r + s),
            **{f"share_units_{a}": sum(u[1] == a for u in units) / len(units) for a in ASPECTS},
            **{f"share_premises_{a}": sum(u[1] == a for u in premises) / len(premises) for a in ASPECTS}}


def constructive_figures(comments: list[tuple[int, ...]]) -> dict:
    """§4 over (D1..D5): CLC = ΣD / 10; MCS = mean CLC; AR = frac(D1 >= 1); SD = frac(D4 = 2); CD = frac(CLC >= .6)."""
    n, clc = len(comments), [sum(c) / 10 for c in comments]
    return {"n_comments": n, "mcs": sum(clc) / n, "share_actionable": sum(c[0] >= 1 for c in comments) / n,
            "share_solution": sum(c[3] == 2 for c in comments) / n, "share_clc_06": sum(x >= 0.6 for x in clc) / n}


def _dcg(weights: list[int]) -> float:
    return sum(w / math.log2(i + 2) for i, w in enumerate(weights))


def flaw_figures(pool: dict[str, tuple[str | None, set[str]]], n_members: int, reviewer: str,
                 mentions: list[tuple[int, int, str, str]]) -> dict:
    """§3 for one reviewer. pool: flaw → (severity "critical"/"minor" when valid, None when not; its raisers).
    Recall = |D_r ∩ G| / |G|; weighted: W_i = C_i / N over the same sets. mentions: (position, list index,
    section, flaw) of the mapping; an issue counts at its first listed mention, a flaw outside the valid bank not at
    all; sorted by (position, list index), grouped by section; nCPS = Σ_s CPS_s / Σ_s ICPS_s (weights 2 / 1), 0
    when ICPS is 0."""
    found = {f for f, (_, raisers) in pool.items() if reviewer in raisers}
    out = {}
    for severity in ("critical", "minor"):
        truth = {f for f, (s, _) in pool.items() if s == severity}
        weight = {f: len(pool[f][1]) / n_members for f in truth}
        out[f"recall_{severity}"] = len(found & truth) / len(truth)
        out[f"recall_{severity}_weighted"] = sum(weight[f] for f in found & truth) / sum(weight.values())
    out["hallucination_rate"] = sum(pool[f][0] is None for f in found) / len(found)  # 1 − PRISM's precision
    seen, kept = set(), []
    for position, index, section, flaw in mentions:
        if flaw not in seen and pool.get(flaw, (None,))[0] is not None:
            seen.add(flaw)
            kept.append((position, index, section, 2 if pool[flaw][0] == "critical" else 1))
    sections: dict[str, list[int]] = {}
    for _, _, section, w in sorted(kept):
        sections.setdefault(section, []).append(w)
    cps, icps = (sum(_dcg(sorted(ws, reverse=rev) if rev else ws) for ws in sections.values()) for rev in (False, True))
    out["ncps"] = cps / icps if icps else 0.0
    return out


def prism_pool() -> dict[str, tuple[str | None, set[str]]]:
    """PRISM's micro_flaws and evaluations as flaw_figures reads them (F01 → F1, as peerlake numbers them)."""
    out = {}
    for f in FLAWS["micro_flaws"]:
        e = FLAWS["evaluations"][f["flaw_id"]]
        # a valid flaw without Critical or Minor is in neither of PRISM's sets (peerlake: minor); none here
        assert not e["is_valid"] or e["severity"] in ("Critical", "Minor"), f
        out[f"F{int(f['flaw_id'][1:])}"] = (e["severity"].lower() if e["is_valid"] is True else None,
                                            {KEY[who] for who in f["raw_arguments"]})
    return out


def prism_mentions(key: str, text: str) -> list[tuple[int, int, str, str]]:
    """PRISM's position recovery (cps_metrics.reorder_by_position): the anchor's first case-insensitive match."""
    out = []
    for i, m in enumerate(MENTIONS[key]):
        hit = re.search(re.escape(m["anchor_quote"]), text, re.IGNORECASE)
        assert hit is not None, m  # every replayed anchor is the review's own words
        out.append((hit.start(), i, m["section_name"].lower(), f"F{int(m['issue_id'][1:])}"))
    return out


def prism_depth(key: str) -> dict:
    return depth_figures([(a["role"].lower(), a["aspect"].lower(), a["grounding_score"]) for a in ANALYSES[key]])


def prism_constructive(key: str) -> dict:
    return constructive_figures([tuple(c[d] for d in RATINGS) for c in CONSTRUCTIVE[key]["atomic_comments"]])


# ---- the same figures from a judgment's units ----------------------------------------------------------------

def units_depth(j: Judgment) -> dict:
    return depth_figures([(u["role"], u["aspect"], u["grounding"]) for u in j.units])


def units_constructive(j: Judgment) -> dict:
    return constructive_figures([(u["actionability"], u["specificity"], u["justification"], u["solution"], u["tone"])
                                 for u in j.units])


def units_flaws(pool: Judgment, orders: dict[str, Judgment], key: str) -> dict:
    members = [r["review_key"] for r in pool.units if r["kind"] == "member"]
    flaws_: dict[str, tuple[str | None, set[str]]] = {}
    for r in pool.units:
        if r["kind"] == "raise":
            flaws_.setdefault(r["flaw_id"], (r["severity"] if r["is_valid"] else None, set()))[1].add(r["review_key"])
    mentions = [(u["position"], i, u["section"], u["flaw_id"]) for i, u in enumerate(orders[key].units)]
    return flaw_figures(flaws_, len(members), key, mentions)


# ---- one run: ingest, judge (hosted, and again under the embedded caps), one dbt build ------------------------

@dataclass
class Replay:
    db: object
    hosted: JudgeConfig
    capped: JudgeConfig
    configs: dict[str, str]  # judge → the hosted judge_config
    judged: dict[str, dict[str, Judgment]]  # "hosted" / "capped" → "<judge>|<subject>" → judgment
    flaws_view: dict[str, str]  # review key → the text the flaws judge read
    pool_inputs: dict


def judge_all(log: EventLog, gateway: Gateway, cfg: JudgeConfig, reviews: list, record: bool):
    configs, judged = {}, {}
    for module in (depth, constructiveness, flaws):
        config = cfg.identity(module.JUDGE, module.TEMPLATES)
        ctx = JudgeContext(log=log, gateway=gateway, cfg=cfg, judge_config=config, study=STUDY, progress=False)
        recorder = Recorder(log, config, module.PARSER_VERSION, study=STUDY)
        for j in module.judge(ctx, reviews):
            assert j.failed_call is None and j.null_reason is None, (j.subject_key, j.failed_call, j.null_reason)
            judged[f"{j.judge}|{j.subject_key}"] = j
            if record:
                assert recorder.record(j) is not None
        configs[module.JUDGE] = config
    return configs, judged


@pytest.fixture(scope="module")
def replay(tmp_path_factory) -> Replay:
    root = tmp_path_factory.mktemp("prism_replay")
    with pytest.MonkeyPatch.context() as mp, ScriptedJudgeServer() as server:
        mp.setenv("PEERLAKE_HOME", str(root / "lake"))
        for name, value in FAKE_KEYS.items():
            mp.setenv(name, value)
        lake = Lake(root / "lake").ensure()
        layout.replay_data(root / "prism")
        _cli("prism", str(root / "prism"), "--study", STUDY)
        script(server)
        log = EventLog(lake)
        gateway = Gateway(log, providers=providers_for(server), max_attempts=2, backoff_base_s=0.01,
                          backoff_max_s=0.05)
        reviews = human_reviews(log, [layout.REPLAY]) + external_reviews(log, [layout.REPLAY])
        assert [r.review_key for r in reviews] == list(REVIEWS)
        hosted = JudgeConfig(provider="openai", model=MODEL, base_url=server.openai_base_url)
        # the embedded model's caps on the same hosted model: only the caps differ
        capped = JudgeConfig(provider="openai", model=MODEL, base_url=server.openai_base_url,
                             caps=tuple(sorted(LOCAL_CAPS.items())))
        configs, judged = judge_all(log, gateway, hosted, reviews, record=True)
        _, judged_capped = judge_all(log, gateway, capped, reviews, record=False)
        assert server.unmatched == []  # every request got PRISM's answer
        add_to_study(log, STUDY, [{"judge": judge, "judge_config": config, "provider": "openai", "model": MODEL,
                                   "repeats": 1, "review_keys": sorted(REVIEWS),
                                   "pools": [POOL] if judge == "flaws" else []} for judge, config in configs.items()],
                     {layout.REPLAY})
        log.seal()
        log.close()
    db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb",
                      select="+quality_constructiveness +quality_depth +quality_depth_aspects +quality_flaws")
    return Replay(db=db, hosted=hosted, capped=capped, configs=configs,
                  judged={"hosted": judged, "capped": judged_capped},
                  flaws_view={r.review_key: r.for_judge("flaws").text for r in reviews},
                  pool_inputs=judged[f"flaws|{POOL}"].inputs)


def row(db, table: str, where: str, *params) -> dict:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(f"select * from {table} where study_id = ? and {where}", [STUDY, *params])
        names = [d[0] for d in cur.description]
        [found] = cur.fetchall()
    return dict(zip(names, found, strict=True))


# ---- hosted: every figure is PRISM's ---------------------------------------------------------------------------

def test_constructiveness_figures_are_prisms(replay):
    released = {"MCS": "mcs", "AR": "share_actionable", "SD": "share_solution", "CD": "share_clc_06"}
    for key in REVIEWS:
        got = row(replay.db, "quality_constructiveness", "judge_config = ? and review_key = ?",
                  replay.configs["constructiveness"], key)
        want = prism_constructive(key)
        assert {k: got[k] for k in want} == pytest.approx(want, abs=1e-9), key
        metrics = CONSTRUCTIVE[key]["metrics"]
        assert {name: round(got[col], 4) for name, col in released.items()} == {
            name: metrics[name] for name in released}, key
        assert got["n_comments"] == metrics["n_arcs"]
    # by hand: SEA 42/90, Human_1 56/90, Human_2 16/40 (its paraphrased anchor is not found, the comment counts)
    assert [prism_constructive(k)["mcs"] for k in (SEA, H1, H2)] == pytest.approx([42 / 90, 56 / 90, 0.4])
    assert row(replay.db, "quality_constructiveness", "judge_config = ? and review_key = ?",
               replay.configs["constructiveness"], H2)["share_anchor_found"] == pytest.approx(0.75)


def test_depth_figures_and_aspect_shares_are_prisms(replay):
    config = replay.configs["depth"]
    for key in REVIEWS:
        got = row(replay.db, "quality_depth", "judge_config = ? and review_key = ?", config, key)
        want = prism_depth(key)
        assert {k: got[k] for k in ("n_units", "premise_ratio", "grounding_norm", "doa")} == pytest.approx(
            {k: want[k] for k in ("n_units", "premise_ratio", "grounding_norm", "doa")}, abs=1e-9), key
        # a hosted judge has no cap: nothing cut, none reached
        assert (got["units_cap"], got["n_units_cut_by_cap"], got["is_cap_reached"], got["depth_taxonomy"]) == (
            None, 0, None, "prism-reference"), key
        for aspect in ASPECTS:
            a = row(replay.db, "quality_depth_aspects", "judge_config = ? and review_key = ? and aspect = ?",
                    config, key, aspect)
            assert (a["share_units"], a["share_premises"]) == pytest.approx(
                (want[f"share_units_{aspect}"], want[f"share_premises_{aspect}"]), abs=1e-9), (key, aspect)
    # by hand (prism_layout): SEA 910/1482; Human_1 2·(4/7)·.875 / (4/7 + .875); Human_2 2·.6·.75 / 1.35 with its
    # ungrounded premise in R only
    assert [prism_depth(k)["doa"] for k in (SEA, H1, H2)] == pytest.approx(
        [910 / 1482, 2 * (4 / 7) * 0.875 / (4 / 7 + 0.875), 2 * 0.6 * 0.75 / 1.35])
    assert prism_depth(H1)["n_units"] == 14 and prism_depth(SEA)["n_units"] == 13


def test_flaw_recall_and_ncps_are_prisms(replay):
    # the labels the extractor answered with are the pool's own: R1 R2 human by review id, R3 the system's review
    assert [(m["label"], m["review_key"]) for m in replay.pool_inputs["members"]] == [
        ("R1", H1), ("R2", H2), ("R3", SEA)]
    pool = prism_pool()
    released = {"Recall_Critical": "recall_critical", "Recall_Minor": "recall_minor",
                "Weighted_Recall_Critical": "recall_critical_weighted",
                "Weighted_Recall_Minor": "recall_minor_weighted"}
    for who, key in (("Human_1", H1), ("Human_2", H2), ("LLM_Reviewer", SEA)):
        got = row(replay.db, "quality_flaws", "judge_config = ? and pool_key = ? and review_key = ?",
                  replay.configs["flaws"], POOL, key)
        want = flaw_figures(pool, 3, key, prism_mentions(key, replay.flaws_view[key]))
        assert {k: got[k] for k in want} == pytest.approx(want, abs=1e-9), key
        cfi, cps = FLAWS["metrics_report"]["cfi"][who], FLAWS["metrics_report"]["cps"][who]["metrics"]
        assert {name: round(got[col], 4) for name, col in released.items()} == {n: cfi[n] for n in released}, key
        assert round(got["ncps"], 4) == cps["nCPS"], key
        assert (got["n_pool_members"], got["n_critical_flaws"], got["n_minor_flaws"], got["n_flaws_over_cap"]) == (
            3, 5, 3, 0)
    sea = row(replay.db, "quality_flaws", "judge_config = ? and pool_key = ? and review_key = ?",
              replay.configs["flaws"], POOL, SEA)
    # per section as PRISM (Weaknesses 2 1 2 1 2, Questions 2), not the review as one list (2 1 2 1 2 2)
    assert sea["ncps_whole_review"] == pytest.approx(
        _dcg([2, 1, 2, 1, 2, 2]) / _dcg([2, 2, 2, 2, 1, 1]), abs=1e-9) and round(sea["ncps_whole_review"], 4) != 0.9655


# ---- the embedded model's caps: the same answers lose items, and the figures move --------------------------------

def test_the_embedded_models_caps_would_cut_and_move_about_half_the_figures(replay):
    assert dict(replay.capped.caps) == resolve_caps("local") == LOCAL_CAPS
    assert set(replay.hosted.resolved_caps().values()) == {None}
    hosted, capped = replay.judged["hosted"], replay.judged["capped"]
    # hosted: every item PRISM's judges gave, nothing counted over a cap
    for key in REVIEWS:
        assert len(hosted[f"depth|{key}"].units) == len(ANALYSES[key])
        assert len(hosted[f"constructiveness|{key}"].units) == len(CONSTRUCTIVE[key]["atomic_comments"])
    assert not any(k.startswith("over_max") for j in hosted.values() for k in j.dropped)
    assert len({r["flaw_id"] for r in hosted[f"flaws|{POOL}"].units if r["kind"] == "raise"}) == 9

    # capped: 12 depth units, 6 comments, 6 flaws; what went is counted
    cut = {key: (capped[f"depth|{key}"].dropped.get("over_max_units", 0),
                 capped[f"constructiveness|{key}"].dropped.get("over_max_comments", 0)) for key in REVIEWS}
    assert cut == {H1: (2, 3), H2: (0, 0), SEA: (1, 3)}
    assert capped[f"flaws|{POOL}"].dropped.get("over_max_flaws") == 3  # F7-F9, SEA's own
    orders = {key: capped[f"flaws|{POOL}|{key}"] for key in REVIEWS}
    assert orders[SEA].dropped == {"unknown_flaw": 3}  # it mentions flaws the capped pool no longer has

    moved: dict[tuple[str, str], list[str]] = {}
    for key in REVIEWS:
        for judge, ours, theirs in (("depth", units_depth, prism_depth),
                                    ("constructiveness", units_constructive, prism_constructive)):
            got, want = ours(capped[f"{judge}|{key}"]), theirs(key)
            # the hosted units give PRISM's numbers (the marts' arithmetic over them is checked above)
            assert ours(hosted[f"{judge}|{key}"]) == pytest.approx(want)
            moved[judge, key] = [m for m in want if got[m] != pytest.approx(want[m])]
        want = flaw_figures(prism_pool(), 3, key, prism_mentions(key, replay.flaws_view[key]))
        hosted_orders = {k: hosted[f"flaws|{POOL}|{k}"] for k in REVIEWS}
        assert units_flaws(hosted[f"flaws|{POOL}"], hosted_orders, key) == pytest.approx(want)
        got = units_flaws(capped[f"flaws|{POOL}"], orders, key)
        moved["flaws", key] = [m for m in want if got[m] != pytest.approx(want[m])]
    counts = {(judge, key): len(names) for (judge, key), names in moved.items()}
    # of 12 depth figures (n_units, R, S, DoA, 8 aspect shares), 5 constructiveness and 6 flaw figures per review:
    # Human_2 is short (nothing cut, only its recall over the 5 → 4 critical flaws moves); Human_1 and SEA lose
    # units, comments and flaws. CD survives the comment cap for both (4/6 = 6/9, 2/6 = 3/9).
    assert counts == {("depth", H1): 11, ("constructiveness", H1): 4, ("flaws", H1): 4,
                      ("depth", H2): 0, ("constructiveness", H2): 0, ("flaws", H2): 2,
                      ("depth", SEA): 7, ("constructiveness", SEA): 4, ("flaws", SEA): 5}, moved
    assert {"doa", "premise_ratio", "grounding_norm"} <= set(moved["depth", H1])
    assert "mcs" in moved["constructiveness", SEA] and "share_clc_06" not in moved["constructiveness", SEA]
    # SEA's minor mentions (F7, F8) are no flaws of the capped pool: its nCPS becomes 1
    assert {"recall_minor", "ncps"} <= set(moved["flaws", SEA])
    assert sum(counts.values()) == 37  # of 3 × 23 figures: about half
