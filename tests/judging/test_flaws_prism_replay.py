"""PRISM's flaw answers for three conferences replayed through peerlake's flaws judge (issue #46): hand-made files
in the released layout (`data_demo/flaw_identification/<conf>/sea/<paper>.json`: micro_flaws.micro_flaws,
evaluations.evaluations, and per reviewer the mapping's mentions, `arguments`, as PRISM's
process_single_review_for_cps returns them), whose quotes are shortened as PRISM's judge shortens them: an
ellipsis, a numbered or lettered list quoted as one sentence, "good" quoted 'good', a semicolon made a comma,
`$\\hat{\\theta}$` and `$\\beta$` mangled by an unescaped backslash in the judge's JSON (a tab, a backspace), a
LaTeX symbol quoted in Unicode, and one quote the review does not hold. A hosted judge on a loopback server
answers each step with them; one dbt build computes quality_flaws. Every figure is PRISM's formula (spec §3,
written out again below without peerlake's code): under PRISM's rule every raise counts; under the verbatim
variant only the raises whose quote is verbatim (up to typography) do, and the figures move."""

import json
import math
import re
from pathlib import Path

import duckdb
import pytest

from peerlake.ingest.judgment_scope import add_to_study
from peerlake.judging import flaws
from peerlake.judging.base import JudgeConfig, JudgeContext, Recorder
from peerlake.judging.reviews import external_reviews, human_reviews
from peerlake.llm_calls.gateway import Gateway
from peerlake.warehouse import EventLog, Lake
from tests.dbt.test_marts import dbt_build
from tests.ingest.prism_layout import write
from tests.ingest.test_judgment_import import _cli
from tests.judging.support import ScriptedJudgeServer
from tests.llm_calls.support import FAKE_KEYS, providers_for

STUDY, MODEL = "prism-quotes", "gemini-2.5-flash-lite"
VERBATIM = ("strict", "normalized")


def sea(summary: str, weaknesses: str, questions: str) -> str:
    return (f"**Summary:**\n{summary}\n\n**Strengths:**\n- The topic matters.\n\n**Weaknesses:**\n{weaknesses}\n\n"
            f"**Questions:**\n{questions}\n\n**Rating:**\n5: marginally below the acceptance threshold\n")


def human(review_id: str, rating_key: str, rating: str, summary: str, weaknesses: str, questions: str) -> dict:
    return {"Review ID": review_id, rating_key: rating, "Confidence": "3", "Summary": summary,
            "Strengths": "The problem is relevant.", "Weaknesses": weaknesses, "Questions": questions}


# Per paper: its venue folder, the reviews (Human_k = the k-th review of the file, ids in file order), the flaws
# with each raiser's quote and how peerlake places it (worked out by hand from the review texts), PRISM's verdicts,
# and each reviewer's mentions (flaw, PRISM's section name, an anchor copied exactly from the review).
PAPERS = {
    "Fl4wIclr25": {
        "venue": "ICLR2025", "system_folder": "sea_iclr2025", "rating": "Rating", "ratings": ("5", "3"),
        "paper": "Adaptive robust clipping bounds Byzantine gradients in distributed training.\n",
        "humans": [
            ("Aa1Iclr25h", "The paper proposes ARC, an adaptive clipping rule for robust distributed learning.",
             "Figure 2 is too small to read. The method’s “robustness” is claimed — but not shown on any real "
             "attack. Theorem 5.2 gives a point $\\hat{\\theta}$ whose gradient norm can exceed the initial bound, "
             "which makes the guarantee vacuous.",
             "1) Why is k fixed to 3?\n2) What happens with more workers?"),
            ("Bb2Iclr25h", "An adaptive clipping method is studied under Byzantine workers.",
             "The CIFAR-10 evaluation is limited to one Byzantine worker out of 17, which is not a practical "
             "setting. The results are \"good\" only against weak attacks.",
             "Is the sorting step parallelisable?")],
        "sea": sea("The paper introduces Adaptive Robust Clipping for Byzantine-robust training.",
                   "- **Limited baselines**: The paper does not compare with static clipping at several thresholds.\n"
                   "- **Overhead**: ARC adds a sorting step to every round, whose cost is not measured.",
                   "- How does ARC behave with more Byzantine workers?"),
        "flaws": [
            ("Critical", "The robustness claim is not shown on an attack.",
             {"Human_1": ("The method's \"robustness\" is claimed - but not shown", "normalized")}),
            ("Critical", "The guarantee of Theorem 5.2 is vacuous.",
             # "$\hat{\theta}$" written into JSON unescaped: "\t" became a tab
             {"Human_1": ("Theorem 5.2 gives a point $\\hat{\theta}$ whose gradient norm can exceed the initial "
                          "bound", "loose")}),
            ("Minor", "Too few Byzantine workers are evaluated.",
             {"Human_1": ("Why is k fixed to 3? What happens with more workers?", "loose"),
              "Human_2": ("The CIFAR-10 evaluation is limited to one Byzantine worker ... which is not a practical "
                          "setting.", "elided"),
              "LLM_Reviewer": ("How does ARC behave with more Byzantine workers?", "strict")}),
            ("Critical", "Only weak attacks are tested.",
             {"Human_2": ("The results are 'good' only against weak attacks.", "loose")}),
            ("Minor", "The cost of the sorting step is not measured.",
             {"LLM_Reviewer": ("ARC adds a sorting step to every round, whose cost is not measured.", "strict"),
              "Human_2": ("Is the sorting step parallelisable?", "strict")}),
            (None, "Static clipping is not compared.",
             {"LLM_Reviewer": ("The paper does not compare with static clipping at several thresholds.", "strict")}),
            ("Minor", "Figure 2 is unreadable.", {"Human_1": ("Figure 2 is too small to read.", "strict")})],
        "mentions": {
            "Human_1": [(7, "Weaknesses", "Figure 2 is too small to read."),
                        (1, "Weaknesses", "is claimed — but not shown on any real attack"),
                        (2, "Weaknesses", "Theorem 5.2 gives a point"), (3, "Questions", "Why is k fixed to 3?")],
            "Human_2": [(3, "Weaknesses", "The CIFAR-10 evaluation is limited"),
                        (4, "Weaknesses", "The results are \"good\" only against weak attacks."),
                        (5, "Questions", "Is the sorting step parallelisable?")],
            "LLM_Reviewer": [(6, "Weaknesses", "The paper does not compare with static clipping"),
                             (5, "Weaknesses", "ARC adds a sorting step to every round"),
                             (3, "Questions", "How does ARC behave with more Byzantine workers?")]}},
    "Fl4wIcml25": {
        "venue": "ICML2025", "system_folder": "sea_icml2025", "rating": "Overall Recommendation", "ratings": ("3", "2"),
        "paper": "Pose prior learner discovers categorical priors from unlabelled images.\n",
        "humans": [
            ("Cc3Icml25h", "The paper learns categorical pose priors without supervision.",
             "The ablation removes both the prior and the decoder at once, so the effect of the prior alone is "
             "unknown. Table 3 is placed far from the text that discusses it.",
             "Could the authors report the variance over seeds?"),
            ("Dd4Icml25h", "A prior-learning method for unsupervised pose estimation is proposed.",
             "A recent state-of-the-art method, PoseFormer-v2, is neither cited nor discussed. The memory cost of "
             "the prior bank grows with the number of categories.",
             "Does the prior transfer across categories?")],
        "sea": sea("The paper presents Pose Prior Learner for categorical pose estimation.",
                   "- **Ablation**: The contribution of the prior is not isolated from that of the decoder.\n"
                   "- **Scalability**: The prior bank may not scale to many categories.",
                   "- How many seeds were used for Table 2?"),
        "flaws": [
            ("Critical", "The prior's effect is not isolated by the ablation.",
             {"Human_1": ("The ablation removes both the prior and the decoder at once … the effect of the prior "
                          "alone is unknown", "elided"),
              "LLM_Reviewer": ("The contribution of the prior is not isolated from that of the decoder.", "strict")}),
            ("Critical", "A state-of-the-art method is not compared.",
             {"Human_2": ("A recent state-of-the-art method, PoseFormer-v2, is neither cited nor discussed.",
                          "strict")}),
            ("Minor", "The prior bank may not scale with categories.",
             {"Human_2": ("The memory cost of the prior bank grows with the number of categories.", "strict"),
              # the judge's own words: "thousands" and "hierarchical memory" are in no review
              "LLM_Reviewer": ("The prior bank may not scale to thousands of categories and would need a "
                               "hierarchical memory.", "unplaced")}),
            ("Minor", "No variance over seeds is reported.",
             {"Human_1": ("Could the authors report the variance over seeds?", "strict"),
              "LLM_Reviewer": ("How many seeds were used for Table 2?", "strict")}),
            ("Minor", "Table 3 is far from its discussion.",
             {"Human_1": ("Table 3 is placed far from the text that discusses it.", "strict")}),
            (None, "The prior may not transfer across categories.",
             {"Human_2": ("Does the prior transfer across categories?", "strict")})],
        "mentions": {
            "Human_1": [(1, "Weaknesses", "The ablation removes both the prior"),
                        (5, "Weaknesses", "Table 3 is placed far from the text"),
                        (4, "Questions", "Could the authors report the variance over seeds?")],
            "Human_2": [(2, "Weaknesses", "A recent state-of-the-art method"),
                        (3, "Weaknesses", "The memory cost of the prior bank")],
            "LLM_Reviewer": [(3, "Weaknesses", "The prior bank may not scale to many categories."),
                             (1, "Weaknesses", "The contribution of the prior is not isolated"),
                             (4, "Questions", "How many seeds were used for Table 2?")]}},
    "Fl4wNeur25": {
        "venue": "Neurlps2025", "system_folder": "sea_neurlps2025", "rating": "Rating", "ratings": ("4", "3"),
        "paper": "Sketched kernel regression runs online with a regret bound.\n",
        "humans": [
            ("Ee5Neur25h", "The paper proposes a kernel method for streaming regression.",
             "The proof of Lemma 2 assumes $\\beta < 1$ but Eq. (7) uses $\\beta = 2$. The writing of Section 4 is "
             "hard to follow.",
             "Why is the step size fixed?"),
            ("Ff6Neur25h", "A streaming kernel regressor with a regret bound is presented.",
             "Only two datasets are used; both are small.",
             "(a) Is the code available?\n(b) How sensitive is the method to $\\lambda$?")],
        "sea": sea("The paper studies online kernel regression with a sketching step.",
                   "- **Theory**: Lemma 2 relies on an assumption that Eq. (7) violates.\n"
                   "- **Evaluation**: The experiments use only two small datasets.\n"
                   "- **Clarity**: Section 4 is hard to follow.",
                   "- Is the step size tuned per dataset?"),
        "flaws": [
            ("Critical", "Lemma 2's assumption contradicts Eq. (7).",
             # "$\beta" written into JSON unescaped: "\b" became a backspace
             {"Human_1": ("The proof of Lemma 2 assumes $\beta < 1$ but Eq. (7) uses", "loose"),
              "LLM_Reviewer": ("Lemma 2 relies on an assumption that Eq. (7) violates.", "strict")}),
            ("Critical", "Only two small datasets are used.",
             {"Human_2": ("Only two datasets are used, both are small.", "loose"),
              "LLM_Reviewer": ("The experiments use only two small datasets.", "strict")}),
            ("Minor", "Section 4 is hard to follow.",
             {"Human_1": ("The writing of Section 4 is hard to follow.", "strict"),
              "LLM_Reviewer": ("Section 4 is hard to follow.", "strict")}),
            ("Minor", "Sensitivity to the regulariser is not studied.",
             {"Human_2": ("Is the code available? How sensitive is the method to λ?", "loose")}),
            (None, "The step size is fixed without justification.",
             {"Human_1": ("Why is the step size fixed?", "strict"),
              "LLM_Reviewer": ("Is the step size tuned per dataset?", "strict")})],
        "mentions": {
            "Human_1": [(1, "Weaknesses", "The proof of Lemma 2 assumes"),
                        (3, "Weaknesses", "The writing of Section 4 is hard to follow.")],
            "Human_2": [(2, "Weaknesses", "Only two datasets are used"),
                        (4, "Questions", "How sensitive is the method to")],
            "LLM_Reviewer": [(1, "Weaknesses", "Lemma 2 relies on an assumption"),
                             (2, "Weaknesses", "The experiments use only two small datasets."),
                             (3, "Weaknesses", "Section 4 is hard to follow.")]}},
}
WHO = ("Human_1", "Human_2", "LLM_Reviewer")
TOPIC = {"Critical": "methodology", "Minor": "presentation", None: "experiments"}


def pool_key(pid: str) -> str:
    return f"pool:{pid}|sea-e|s0"


def review_keys(pid: str) -> dict[str, str]:
    h1, h2 = (h[0] for h in PAPERS[pid]["humans"])
    return {"Human_1": f"human:{h1}", "Human_2": f"human:{h2}", "LLM_Reviewer": f"external:sea-e:{pid}"}


def released(pid: str) -> dict:
    """The paper's file in PRISM's released layout (flaw ids F01.., severity "None" for an invalid flaw)."""
    p = PAPERS[pid]
    mentions = {who: [{"issue_id": f"F{f:02d}", "section_name": section, "anchor_quote": anchor,
                       "severity": p["flaws"][f - 1][0]} for f, section, anchor in p["mentions"][who]] for who in WHO}
    return {"paper_id": pid,
            "micro_flaws": {"micro_flaws": [
                {"flaw_id": f"F{i:02d}", "macro_topic": f"{TOPIC[sev]}", "core_summary": summary,
                 "raw_arguments": {who: quote for who, (quote, _) in raises.items()}}
                for i, (sev, summary, raises) in enumerate(p["flaws"], 1)]},
            "evaluations": {"evaluations": {f"F{i:02d}": {"is_valid": sev is not None, "severity": sev or "None"}
                                            for i, (sev, _, _) in enumerate(p["flaws"], 1)}},
            "metrics_report": {"cps": {"Reviewer_Rankings": [{"Reviewer_ID": who, "arguments": mentions[who]}
                                                             for who in WHO]}},
            "mode": "all"}


def write_data(root: Path) -> Path:
    for pid, p in PAPERS.items():
        v = root / "data" / p["venue"]
        write(v / "papers" / f"{pid}.txt", p["paper"])
        write(v / "human_reviews" / f"{pid}.json", {"paper_id": pid, "Decision": "Reject", "reviews": [
            human(rid, p["rating"], rating, *texts) for (rid, *texts), rating in zip(p["humans"], p["ratings"],
                                                                                      strict=True)]})
        write(v / p["system_folder"] / f"{pid}.txt", p["sea"])
        conf = p["venue"].lower().replace("neurlps", "neurips")
        write(root / "data_demo" / "flaw_identification" / conf / "sea" / f"{pid}.json", released(pid))
    return root / "data_demo" / "flaw_identification"


# ---- PRISM's answers, read back from the files, as peerlake's steps ask for them ----------------------------------

def script(server: ScriptedJudgeServer, files: dict[str, dict]) -> None:
    label = {"Human_1": "R1", "Human_2": "R2", "LLM_Reviewer": "R3"}
    for pid, f in files.items():
        p = PAPERS[pid]
        server.answer("judge_flaws_extract", p["sea"].split("\n")[1], reply={"flaws": [
            {"topic": m["macro_topic"], "summary": m["core_summary"],
             "raised_by": [{"reviewer": label[who], "quote": q} for who, q in m["raw_arguments"].items()]}
            for m in f["micro_flaws"]["micro_flaws"]]})
        server.answer("judge_flaws_validate", p["paper"].strip(), reply={"evaluations": [
            {"flaw_id": fid, "is_valid": e["is_valid"],
             "severity": e["severity"].lower() if e["severity"] in ("Critical", "Minor") else "undecided"}
            for fid, e in f["evaluations"]["evaluations"].items()]})
        summaries = {"Human_1": p["humans"][0][1], "Human_2": p["humans"][1][1],
                     "LLM_Reviewer": p["sea"].split("\n")[1]}
        for ranking in f["metrics_report"]["cps"]["Reviewer_Rankings"]:
            server.answer("judge_flaws_order", summaries[ranking["Reviewer_ID"]], reply={"mentions": [
                {"flaw_id": m["issue_id"], "anchor": m["anchor_quote"]} for m in ranking["arguments"]]})


# ---- PRISM's formulas (spec §3), over the files -------------------------------------------------------------------

def _dcg(weights: list[int]) -> float:
    return sum(w / math.log2(i + 2) for i, w in enumerate(weights))


def prism_figures(pid: str, who: str, text: str, rule: str) -> dict:
    """Recall = |D_r ∩ G| / |G| (None when G is empty), weighted with W_i = C_i / N (N = 3), hallucination rate =
    invalid raised / raised; nCPS from the mapping's mentions of the valid bank, each at the first
    case-insensitive match of its anchor (PRISM's exact recovery; every anchor here is the review's words),
    grouped by PRISM's section name: Σ_s CPS_s / Σ_s ICPS_s, w = 2 Critical / 1 Minor, 0 when ICPS is 0.
    rule "verbatim" keeps only raises whose quote is verbatim (the hand classification in PAPERS): a flaw left
    with none is no flaw, and a mention of it no mention."""
    pool: dict[int, tuple[str | None, set[str]]] = {}
    for i, (sev, _, raises) in enumerate(PAPERS[pid]["flaws"], 1):
        raisers = {w for w, (_, how) in raises.items() if rule == "prism" or how in VERBATIM}
        if raisers:
            pool[i] = (sev, raisers)
    found = {f for f, (_, raisers) in pool.items() if who in raisers}
    out = {}
    for sev, name in (("Critical", "critical"), ("Minor", "minor")):
        truth = {f for f, (s, _) in pool.items() if s == sev}
        weight = {f: len(pool[f][1]) / 3 for f in truth}
        out[f"recall_{name}"] = len(found & truth) / len(truth) if truth else None
        out[f"recall_{name}_weighted"] = sum(weight[f] for f in found & truth) / sum(weight.values()) if truth else None
    out["hallucination_rate"] = sum(pool[f][0] is None for f in found) / len(found) if found else None
    sections: dict[str, list[tuple[int, int]]] = {}
    for index, (f, section, anchor) in enumerate(PAPERS[pid]["mentions"][who]):
        if f in pool and pool[f][0] is not None:
            position = re.search(re.escape(anchor), text, re.IGNORECASE).start()
            sections.setdefault(section.lower(), []).append((position, index, 2 if pool[f][0] == "Critical" else 1))
    weights = [[w for _, _, w in sorted(ms)] for ms in sections.values()]
    icps = sum(_dcg(sorted(ws, reverse=True)) for ws in weights)
    out["ncps"] = sum(_dcg(ws) for ws in weights) / icps if icps else 0.0
    return out


# ---- one run ------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    root = tmp_path_factory.mktemp("prism_quotes")
    with pytest.MonkeyPatch.context() as mp, ScriptedJudgeServer() as server:
        mp.setenv("PEERLAKE_HOME", str(root / "lake"))
        for name, value in FAKE_KEYS.items():
            mp.setenv(name, value)
        lake = Lake(root / "lake").ensure()
        demo = write_data(root / "prism")
        _cli("prism", str(root / "prism"), "--study", STUDY)
        files = {pid: json.loads(path.read_text(encoding="utf-8"))
                 for path in sorted(demo.rglob("*.json")) for pid in [path.stem]}
        assert set(files) == set(PAPERS)
        script(server, files)
        log = EventLog(lake)
        gateway = Gateway(log, providers=providers_for(server), max_attempts=2, backoff_base_s=0.01,
                          backoff_max_s=0.05)
        reviews = human_reviews(log, list(PAPERS)) + external_reviews(log, list(PAPERS))
        cfg = JudgeConfig(provider="openai", model=MODEL, base_url=server.openai_base_url)
        config = cfg.identity(flaws.JUDGE, flaws.TEMPLATES)
        ctx = JudgeContext(log=log, gateway=gateway, cfg=cfg, judge_config=config, study=STUDY, progress=False)
        recorder = Recorder(log, config, flaws.PARSER_VERSION, study=STUDY)
        judged = {}
        for j in flaws.judge(ctx, reviews):
            assert j.failed_call is None and j.null_reason is None, (j.subject_key, j.failed_call, j.null_reason)
            assert recorder.record(j) is not None
            judged[j.subject_key] = j
        assert server.unmatched == []
        keys = sorted({k for pid in PAPERS for k in review_keys(pid).values()})
        add_to_study(log, STUDY, [{"judge": "flaws", "judge_config": config, "provider": "openai", "model": MODEL,
                                   "repeats": 1, "review_keys": keys, "pools": [pool_key(p) for p in PAPERS]}],
                     set(PAPERS))
        texts = {r.review_key: r.for_judge("flaws").text for r in reviews}
        log.seal()
        log.close()
    db, _ = dbt_build(root / "lake", root, db=root / "marts.duckdb", select="+quality_flaws")
    return {"db": db, "config": config, "judged": judged, "texts": texts}


def mart_row(replay, pid: str, who: str) -> dict:
    with duckdb.connect(str(replay["db"]), read_only=True) as con:
        cur = con.execute("select * from quality_flaws where study_id = ? and judge_config = ? and pool_key = ? "
                          "and review_key = ?", [STUDY, replay["config"], pool_key(pid), review_keys(pid)[who]])
        names = [d[0] for d in cur.description]
        [found] = cur.fetchall()
    return dict(zip(names, found, strict=True))


FIGURES = ("recall_critical", "recall_minor", "recall_critical_weighted", "recall_minor_weighted",
           "hallucination_rate", "ncps")


def test_every_quote_is_kept_and_placed_as_worked_out_by_hand(replay):
    for pid, p in PAPERS.items():
        keys = review_keys(pid)
        units = replay["judged"][pool_key(pid)].units
        got = {(u["flaw_id"], u["review_key"]): u["verbatim"] for u in units if u["kind"] == "raise"}
        want = {(f"F{i}", keys[who]): how for i, (_, _, raises) in enumerate(p["flaws"], 1)
                for who, (_, how) in raises.items()}
        assert got == want, pid
        assert replay["judged"][pool_key(pid)].dropped == {}, pid


def test_the_marts_give_prisms_figures_by_default_and_the_verbatim_variants_beside_them(replay):
    moved = []
    for pid in PAPERS:
        for who in WHO:
            got, key = mart_row(replay, pid, who), review_keys(pid)[who]
            prism = prism_figures(pid, who, replay["texts"][key], "prism")
            verbatim = prism_figures(pid, who, replay["texts"][key], "verbatim")
            assert {k: got[k] for k in FIGURES} == pytest.approx(prism, abs=1e-9), (pid, who)
            assert {k: got[f"{k}_verbatim"] for k in FIGURES} == pytest.approx(verbatim, abs=1e-9), (pid, who)
            moved += [(pid, who, k) for k in FIGURES if prism[k] != pytest.approx(verbatim[k], abs=1e-9)]
    assert len(moved) >= 10, moved  # the two rules are not the same numbers


def test_figures_worked_out_by_hand(replay):
    """A few of the figures above, by hand from PAPERS, so the formulas themselves are checked too."""
    # ICLR: Human_1 mentions Weaknesses [F7 minor, F1 crit, F2 crit] + Questions [F3 minor]:
    #   CPS = 1 + 2/log2 3 + 2/2 + 1, ICPS = 2 + 2/log2 3 + 1/2 + 1 → 4.2619 / 4.7619 = 0.8950.
    #   verbatim: F2's only quote is loose, so F2 is no flaw: Weaknesses [1, 2] + [1] → 3.2619 / 3.6309 = 0.8984.
    h1 = mart_row(replay, "Fl4wIclr25", "Human_1")
    assert (round(h1["ncps"], 4), round(h1["ncps_verbatim"], 4)) == (0.8950, 0.8984)
    # G_c = {F1, F2, F4}: Human_1 raised F1, F2 → 2/3; verbatim G_c = {F1} (F2, F4 only loosely quoted) → 1/1
    assert (h1["recall_critical"], h1["recall_critical_verbatim"]) == pytest.approx((2 / 3, 1.0))
    # ICML: SEA's invented quote of F3 is kept under PRISM's rule: G_m = {F3, F4, F5}, SEA raised F3, F4 → 2/3;
    # verbatim 1/3. Weighted: W = 2/3, 2/3, 1/3 → (2/3 + 2/3) / (5/3) = 0.8 vs F3's W now 1/3: (2/3) / (4/3) = 0.5
    llm = mart_row(replay, "Fl4wIcml25", "LLM_Reviewer")
    assert (llm["recall_minor"], llm["recall_minor_verbatim"]) == pytest.approx((2 / 3, 1 / 3))
    assert (llm["recall_minor_weighted"], llm["recall_minor_weighted_verbatim"]) == pytest.approx((0.8, 0.5))
    assert (llm["n_raises_unplaced"], llm["n_pool_raises_unplaced"], llm["n_flaws_raised"],
            llm["n_flaws_raised_verbatim"]) == (1, 1, 3, 2)
    # NeurIPS: Human_2's list quote (F4) and re-punctuated quote (F2) are loose: PRISM G_m = {F3, F4} → 1/2,
    # verbatim G_m = {F3} → 0; its Questions mention of F4 leaves nCPS: 1.0 both ways (one mention per section)
    h2 = mart_row(replay, "Fl4wNeur25", "Human_2")
    assert (h2["recall_minor"], h2["recall_minor_verbatim"], h2["n_mentions"], h2["n_mentions_verbatim"]) == (
        0.5, 0.0, 2, 1)
    assert h2["n_raises_unplaced"] == 0
