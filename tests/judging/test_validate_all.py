"""`peerlake validate-judges` end to end: the four human-labelled datasets written here in their own formats, the
real judges through `peerlake validate-judges` (import, choice of reviews, study, Dagster run, one build)
against a loopback server whose answers are scripted by review, and the cards it prints, every number worked
by hand below. SubstanReview runs alone first; then `all` over a folder whose substanreview/ is broken: that
one fails with its error and the other three go on.

The κ and α below: Cohen's κ = (p_o − p_e) / (1 − p_e) (quadratic weights on a 0–2 rating:
1 − Σ w·o / Σ w·e, w = (i − j)²); Krippendorff's α = 1 − (n − 1) Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k (nominal, two
raters, n pairable values; o_ck the coincidences, n_c the value counts)."""

import csv
import hashlib
import json
import re

import pytest

from peerlake.ingest.revutil import ASPECTS
from tests.judging.support import ScriptedJudgeServer
from tests.orchestration.conftest import run_cli

# ---- SubstanReview: one review, three spans (as tests/judging/test_validation.py)
SR_CLAIM_A, SR_CLAIM_B, SR_PREMISE = "The paper is clear.", "The proofs are missing", "Lemma 2 has no proof."
SR_REVIEW = f"  {SR_CLAIM_A} {SR_CLAIM_B}, e.g. {SR_PREMISE}  \n"

# ---- DISAPERE: rev1 (labelled by anno1 and, in extra_annotations, anno2) and rev2 (anno1 only). SHA-256 order
# alone would take rev2 first (asserted below); the rule takes the review two people labelled first.
# (text, review_action, aspect, polarity) per sentence; anno2 differs on s1 (polarity none) and s2 (evaluative).
D1 = [("This paper proposes a new optimizer.", "arg_structuring", "none", "none"),
      ("The idea of adaptive damping is novel.", "arg_evaluative", "asp_originality", "pol_positive"),
      ("The experiments use only MNIST.", "arg_fact", "asp_substance", "pol_negative"),
      ("Please add results on CIFAR-10.", "arg_request", "asp_substance", "none"),
      ("A similar damping scheme appeared in earlier work.", "arg_evaluative", "asp_originality", "pol_negative")]
D1_ANNO2 = [D1[0], (D1[1][0], "arg_evaluative", "asp_originality", "none"),
            (D1[2][0], "arg_evaluative", "asp_substance", "pol_negative"), D1[3], D1[4]]
D2 = [("The approach is original.", "arg_evaluative", "asp_originality", "pol_positive"),
      ("Writing is clear.", "arg_evaluative", "asp_clarity", "pol_positive")]

# ---- RevUtil: review A (two comments, raters a1 and a2) and review B (one comment, rater a3); B sorts first.
RU_A = "The method is interesting. Add a baseline comparison with Adam. Figure 2 is unreadable. Overall fine."
RU_B = "Nice work. Please release the code."
RU_C1, RU_C2 = "Add a baseline comparison with Adam.", "Figure 2 is unreadable."

# ---- ReviewCritique: one paper, two LLM reviews; by SHA-256 the claude_opus one comes first and is judged.
RC_TITLE = "Damped Optimizers"
RC_BODY = "We study damped optimizers. We evaluate on MNIST only. Section 6 discusses limitations at length."
RC_CLAUDE = [("The paper uses only one dataset.", "Yes", None),
             ("The authors do not discuss limitations.", "No", "Neglect"),
             ("The method lacks novelty.", "No", "Misinterpret Novelty"), ("The writing is clear.", "Yes", None)]
RC_GPT4 = [("Strong results throughout the evaluation.", "Yes", None)]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def key_revutil(paper: str, review: str) -> str:
    return f"external:revutil:revutil-{paper}-{sha(review)[:12]}"


def key_reviewcritique(model: str) -> str:
    return f"external:reviewcritique:reviewcritique-{sha(RC_TITLE)[:12]}.{model}"


def _disapere_file(path, review_id, forum, annotator, sentences):
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"metadata": {"review_id": review_id, "forum_id": forum, "annotator": annotator, "rating": 5},
           "review_sentences": [{"sentence_index": k, "text": text, "suffix": " " if k < len(sentences) - 1 else "",
                                 "review_action": action, "fine_review_action": "none", "aspect": aspect,
                                 "polarity": polarity} for k, (text, action, aspect, polarity) in enumerate(sentences)]}
    path.write_text(json.dumps(doc), encoding="utf-8")


def _revutil_row(point, paper, review, raters, labels):
    """labels: aspect -> (each rater's label, the majority label); the other aspects rated '1' by all."""
    row = {"review_point": point, "paper_id": paper, "venue": "V", "focused_review": review, "batch": "1"}
    for a in ASPECTS:
        each, majority = labels.get(a, (["1"] * len(raters), "1"))
        row[a] = repr({"annotators": raters, "labels": each})
        row[f"{a}_label"], row[f"{a}_label_type"] = majority, "gold"
    return row


def write_datasets(root):
    sr = root / "good-substanreview" / "annotation_final"
    sr.mkdir(parents=True)
    spans = [[SR_REVIEW.index(w), SR_REVIEW.index(w) + len(w), label]
             for w, label in ((SR_CLAIM_A, "Eval_pos_1"), (SR_CLAIM_B, "Eval_neg_2"), (SR_PREMISE, "Jus_neg_2"))]
    (sr / "test.jsonl").write_text(json.dumps({"id": 11, "review": SR_REVIEW, "label": spans}) + "\n", encoding="utf-8")
    (root / "substanreview").mkdir()  # `all`'s: no annotation_final/ in it

    dis = root / "disapere"
    _disapere_file(dis / "final_dataset/test/rev1.json", "rev1", "forumA", "anno1", D1)
    _disapere_file(dis / "extra_annotations/test/rev1.anno2.json", "rev1", "forumA", "anno2", D1_ANNO2)
    _disapere_file(dis / "final_dataset/test/rev2.json", "rev2", "forumB", "anno1", D2)

    (root / "revutil").mkdir()
    header = ["review_point", "paper_id", "venue", "focused_review", "batch"] + [
        c for a in ASPECTS for c in (a, f"{a}_label", f"{a}_label_type")]
    rows = [
        # c1: actionability 5 → 2, specificity 1 and 2 → 0 and 1 (majority 1 → 0), verifiability 2 → 1, tone 1 → 1
        _revutil_row(RU_C1, "pa", RU_A, ["a1", "a2"], {"actionability": (["5", "5"], "5"),
                                                       "grounding_specificity": (["1", "2"], "1"),
                                                       "verifiability": (["2", "2"], "2")}),
        # c2: actionability 2 → 1, specificity 5 → 2, verifiability 4 → 2, tone 1 → 1
        _revutil_row(RU_C2, "pa", RU_A, ["a1", "a2"], {"actionability": (["2", "2"], "2"),
                                                       "grounding_specificity": (["5", "5"], "5"),
                                                       "verifiability": (["4", "4"], "4")}),
        _revutil_row("Please release the code.", "pb", RU_B, ["a3"], {}),
    ]
    with (root / "revutil" / "all_human_annotations_processed.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)

    def review(segments):
        return {"review": [{"segment_text": t, "topic_class_1": "x", "topic_class_2": "y", "reliability": r,
                            "explanation": None, "error_type": e} for t, r, e in segments], "score": 5}

    (root / "reviewcritique").mkdir()
    line = {"title": RC_TITLE, "body_text": RC_BODY, "decision": "Reject", "claude_opus": review(RC_CLAUDE),
            "gpt4": review(RC_GPT4)}
    (root / "reviewcritique" / "ReviewCritique_LLM.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")


def script(server: ScriptedJudgeServer) -> None:
    # SubstanReview: unit 0 is exactly CLAIM_A; unit 1 holds CLAIM_B and PREMISE, IoU 0.44 and 0.42 (< 0.5)
    server.answer("judge_depth_units", SR_CLAIM_A, reply={"units": [SR_CLAIM_A, f"{SR_CLAIM_B}, e.g. {SR_PREMISE}"]})
    server.answer("judge_depth_labels", SR_CLAIM_A, reply={"labels": [
        {"unit": 1, "role": "claim", "aspect": "clarity"}, {"unit": 2, "role": "premise", "aspect": "soundness"}]})
    server.answer("judge_depth_grounding", SR_PREMISE, reply={"grounding": [{"premise": 1, "score": 2}]})
    # DISAPERE rev1: a unit per sentence s1..s4, s3 (a request: claim) called a premise
    needle = "adaptive damping"
    server.answer("judge_depth_units", needle, reply={"units": [s[0] for s in D1[1:]]})
    server.answer("judge_depth_labels", needle, reply={"labels": [
        {"unit": 1, "role": "claim", "aspect": "contribution"}, {"unit": 2, "role": "premise", "aspect": "soundness"},
        {"unit": 3, "role": "premise", "aspect": "soundness"}, {"unit": 4, "role": "claim", "aspect": "contribution"}]})
    server.answer("judge_depth_grounding", needle, reply={"grounding": [{"premise": 1, "score": 2},
                                                                        {"premise": 2, "score": 1}]})
    server.answer("judge_novelty_claims", needle, reply={"claims": [
        {"text": D1[1][0], "stance": "novel", "prior_work": []},
        {"text": D1[4][0], "stance": "somewhat_novel", "prior_work": []}]})
    # RevUtil A: c1 rated (2, 1, 1, ·, 2), c2 (0, 2, 0, ·, 1)
    server.answer("judge_constructiveness_comments", "baseline comparison with Adam", reply={"comments": [
        {"section": "Text", "text": "Compare with Adam.", "anchor_quote": "Add a baseline comparison",
         "actionability": 2, "specificity": 1, "justification": 1, "solution": 1, "tone": 2},
        {"section": "Text", "text": "Fix Figure 2.", "anchor_quote": "Figure 2 is unreadable",
         "actionability": 0, "specificity": 2, "justification": 0, "solution": 0, "tone": 1}]})
    # ReviewCritique claude_opus: three flaws raised, F1 and F2 called valid, F3 not
    server.answer("judge_flaws_extract", "only one dataset", reply={"flaws": [
        {"topic": "experiments", "summary": "One dataset", "raised_by": [{"reviewer": "R1",
                                                                         "quote": "uses only one dataset"}]},
        {"topic": "presentation", "summary": "No limitations", "raised_by": [{"reviewer": "R1",
                                                                             "quote": "do not discuss limitations"}]},
        {"topic": "novelty", "summary": "Not novel", "raised_by": [{"reviewer": "R1", "quote": "lacks novelty"}]}]})
    server.answer("judge_flaws_validate", "We study damped optimizers", reply={"evaluations": [
        {"flaw_id": "F1", "is_valid": True, "severity": "critical"},
        {"flaw_id": "F2", "is_valid": True, "severity": "minor"},
        {"flaw_id": "F3", "is_valid": False, "severity": "minor"}]})
    server.answer("judge_flaws_order", "only one dataset", reply={"mentions": [
        {"flaw_id": "F1", "anchor": "uses only one dataset"}, {"flaw_id": "F2", "anchor": "do not discuss"}]})


def cells(output: str) -> list[list[str]]:
    """The body rows of every table printed (rich's │-separated cells)."""
    return [[c.strip() for c in line.strip().strip("│").split("│")] for line in output.splitlines()
            if line.lstrip().startswith("│")]


def card(output: str, judge: str, dataset: str, dimension: str, statistic: str) -> dict:
    cols = ("judge", "dataset", "dimension", "statistic", "estimate", "n", "reviews", "ceiling", "status")
    [row] = [dict(zip(cols, r, strict=True)) for r in cells(output)
             if len(r) == len(cols) and r[:4] == [judge, dataset, dimension, statistic]]
    return row


def number(text: str) -> float:
    """The estimate of 'e [lo, hi]'."""
    return float(re.match(r"-?\d+\.\d+", text).group())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("validate-all")
    write_datasets(work / "data")
    env = {"PEERLAKE_HOME": str(work / "lake"), "OPENAI_API_KEY": "sk-test-validate-judges"}
    args = ["--limit", "1", "--provider", "openai", "--model", "gpt-4.1-mini"]
    with ScriptedJudgeServer() as server:
        script(server)
        env["OPENAI_BASE_URL"] = server.openai_base_url
        one = run_cli(["validate-judges", "substanreview", "--data", str(work / "data/good-substanreview"), *args], env)
        both = run_cli(["validate-judges", "all", "--data", str(work / "data"), *args], env)
    yield one, both, server


def test_the_substanreview_card(runs):
    one, _, server = runs
    assert one.returncode == 0, one.stdout[-3000:] + one.stderr[-3000:]
    assert server.unmatched == []
    # human spans claim, claim, premise; the judge's: claim (unit 0, IoU 1), none, none (IoU < 0.5)
    # p_o = 1/3, p_e = (1/3)(2/3) = 2/9: κ = (1/9)/(7/9) = 1/7. α: o_cc 2, o_nc 2, o_np 2 of n 6,
    # n_c 3, n_n 2, n_p 1: 1 − 5·4/(36 − 14) = 1/11. One review: resampling reviews makes no interval.
    kappa = card(one.stdout, "depth", "substanreview", "role", "human_kappa")
    assert number(kappa["estimate"]) == pytest.approx(1 / 7, abs=0.005)
    assert kappa["estimate"] == "0.14 (no interval)" and (kappa["n"], kappa["reviews"]) == ("3", "1")
    assert kappa["ceiling"].startswith("—")  # no annotation_IAA/ here: no second person
    assert number(card(one.stdout, "depth", "substanreview", "role", "human_alpha")["estimate"]) == pytest.approx(
        1 / 11, abs=0.005)
    assert "span_f1_iou" in one.stdout  # quality_judge_validation beside the card


def test_all_goes_on_past_a_broken_folder(runs):
    _, both, _ = runs
    assert both.returncode == 1, both.stdout[-3000:] + both.stderr[-3000:]
    assert re.search(r"error: substanreview: no review of \S+/substanreview \(test\) is in the lake; nothing to "
                     r"judge \(give the folder holding annotation_final/\)", both.stderr.replace("\n", " "))
    summary = {(r[0], r[1]): r for r in cells(both.stdout) if len(r) == 7}
    assert summary[("substanreview", "depth")][6] == "failed (its error is above)"
    for dataset, judge in (("disapere", "depth"), ("disapere", "novelty"), ("revutil", "constructiveness"),
                           ("reviewcritique", "flaws")):
        assert summary[(dataset, judge)][2] == "1", summary[(dataset, judge)]  # one review judged


def test_the_disapere_cards_of_the_review_two_people_labelled(runs):
    _, both, server = runs
    assert sha("external:disapere:rev2") < sha("external:disapere:rev1")  # SHA-256 alone would take rev2
    # rev1 only: rev2's text never reached the judge
    assert not any("Writing is clear." in server.prompt(b) for b in server.bodies)
    # role, reference (anno1) none, claim, premise, claim, claim; judge none, claim, premise, premise, claim:
    # p_o 4/5, p_e (1·1 + 2·3 + 2·1)/25 = 9/25, κ = (11/25)/(16/25) = 11/16. α: o off-diagonal 2 of n 10,
    # n_none 2, n_claim 5, n_premise 3: 1 − 9·2/(100 − 38) = 22/31. Ceiling, anno1 vs anno2 (s2 a claim):
    # off-diagonal 2, n 2, 7, 1: 1 − 9·2/(100 − 54) = 14/23.
    role = card(both.stdout, "depth", "disapere", "role", "human_kappa")
    assert number(role["estimate"]) == pytest.approx(11 / 16, abs=0.005) and role["n"] == "5"
    assert number(role["ceiling"]) == pytest.approx(14 / 23, abs=0.005)
    assert number(card(both.stdout, "depth", "disapere", "role", "human_alpha")["estimate"]) == pytest.approx(
        22 / 31, abs=0.005)
    # aspect: none, contribution, soundness, soundness, contribution on both sides
    assert number(card(both.stdout, "depth", "disapere", "aspect", "human_kappa")["estimate"]) == 1
    # stance of s1 and s4: reference novel, not_novel; judge novel, somewhat_novel: p_o 1/2, p_e 1/4, κ 1/3;
    # α: o off-diagonal 2 of n 4, n 2, 1, 1: 1 − 3·2/10 = 0.4. Ceiling: anno2 unclear (polarity none), not_novel:
    # the same shape, 0.4.
    stance = card(both.stdout, "novelty", "disapere", "stance", "human_kappa")
    assert number(stance["estimate"]) == pytest.approx(1 / 3, abs=0.005) and stance["n"] == "2"
    assert number(stance["ceiling"]) == pytest.approx(0.4, abs=0.005)
    assert number(card(both.stdout, "novelty", "disapere", "stance", "human_alpha")["estimate"]) == pytest.approx(
        0.4, abs=0.005)


def test_the_revutil_card_of_the_review_two_people_rated(runs):
    _, both, server = runs
    assert sha(key_revutil("pb", RU_B)) < sha(key_revutil("pa", RU_A))  # SHA-256 alone would take B
    assert not any("Please release the code." in server.prompt(b) for b in server.bodies)
    # quadratic κ, (judge, majority): actionability (2, 2), (0, 1): Σwo = 1/2, Σwe = (1 + 4 + 1)/4: 1 − 1/3 = 2/3;
    # specificity (1, 0), (2, 2): the same 2/3; justification (1, 1), (0, 2): Σwo = 2, Σwe = 3/2: −1/3.
    for dimension, want in (("actionability", 2 / 3), ("specificity", 2 / 3), ("justification", -1 / 3)):
        row = card(both.stdout, "constructiveness", "revutil", dimension, "human_kappa")
        assert number(row["estimate"]) == pytest.approx(want, abs=0.005), (dimension, row)
        assert row["n"] == "2"
    # the raters agree on actionability (2, 2), (1, 1): α 1
    assert number(card(both.stdout, "constructiveness", "revutil", "actionability", "human_kappa")["ceiling"]) == 1
    # tone: every label 1 on both sides (the judge's 2 reads as 1): κ undefined
    assert card(both.stdout, "constructiveness", "revutil", "tone", "human_kappa")["estimate"].startswith("—")


def test_the_reviewcritique_card_with_the_paper_at_hand(runs):
    _, both, server = runs
    assert sha(key_reviewcritique("claude_opus")) < sha(key_reviewcritique("gpt4"))
    assert not any("Strong results throughout" in server.prompt(b) for b in server.bodies)
    assert any(RC_BODY in server.prompt(b) for b in server.bodies_for("judge_flaws_validate"))
    # validity of the segments a raise quotes, (judge, experts): (valid, reliable), (valid, Neglect: invalid),
    # (invalid, Misinterpret Novelty: invalid): p_o 2/3, p_e 2/9 + 2/9, κ = (2/9)/(5/9) = 2/5; α: o off-diagonal
    # 2 of n 6, n 3 and 3: 1 − 5·2/18 = 4/9. The experts are not named: no ceiling.
    row = card(both.stdout, "flaws", "reviewcritique", "validity", "human_kappa")
    assert number(row["estimate"]) == pytest.approx(0.4, abs=0.005) and row["n"] == "3"
    assert row["ceiling"].startswith("—")
    assert number(card(both.stdout, "flaws", "reviewcritique", "validity", "human_alpha")["estimate"]) == \
        pytest.approx(4 / 9, abs=0.005)


def test_a_hosted_judge_gets_no_embedded_note(runs):
    _, both, _ = runs
    assert "tests the machinery" not in both.stdout
