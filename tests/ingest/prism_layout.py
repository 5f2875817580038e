"""A small PRISM data folder in the released layout (`data/<venue>/{papers,human_reviews,<system>_<venue>}/`)
and judge outputs in `data_demo/<aspect>/<venue>/<source>/`, written for the tests. The shapes are those of
the project page's files (prism-benchmark/prism-benchmark.github.io, data/ICLR2025/*/03OkC0LKDD*,
data/ICML2025/*/0OdIwdiFb7*, data_demo/depth_of_analysis, data_demo/constructiveness), the texts cut short."""

import json
from pathlib import Path

ICLR = "03OkC0LKDD"
ICML = "0OdIwdiFb7"

SEA_TXT = """**Summary:**
This paper introduces Adaptive Robust Clipping (ARC), a pre-aggregation clipping scheme.

**Strengths:**
- **Novelty**: ARC offers a practical solution for gradient clipping in distributed learning.

**Weaknesses:**
- **Limited comparison**: The paper could benefit from more comparisons with alternative methods.

**Questions:**
- What are the specific computational overheads introduced by ARC?

**Rating:**
Based on the paper's contributions, I would rate it as **7 - Accept, but needs minor improvements**.
"""

REVIEWER2_TXT = """PAPER: INTRODUCTIONDistributed machine learning has emerged as a dominant paradigm.
================================================================================

REVIEW
--------------------------------------------------------------------------------
# Summary Of The Paper

The paper introduces **Adaptive Robust Clipping (ARC)**, a dynamic gradient clipping technique.

---

# Weaknesses

1. **Limited Breadth of Empirical Evaluation** (High Severity):
   - The empirical evaluation is largely focused on smaller datasets.

---

# Questions For The Authors

1. **Clarify the derivation of Lemma 3.1**: Could you elaborate on the steps?

---

# Limitations Not Addressed By The Authors

- **Scalability and Generalization**: The paper does not discuss high-dimensional spaces.

---

# Soundness

**Score: 3 (Good)** – The paper presents a sound theoretical foundation.
"""

TREE = {"full_review": "**Summary:**  \nThe paper introduces Adaptive Robust Clipping (ARC).\n\n**Strengths:**  \n"
                       "The paper presents a novel approach.\n\n**Weaknesses:**  \nThe methodology is not detailed.\n\n"
                       "**Questions:**  \nHow does ARC compare to CWTM?\n\n**Rating:**  \n7 accept, but needs minor "
                       "improvements  \nThe paper is sound.\n\n**Confidence:**  \n4 You are confident in your "
                       "assessment."}

DEEP_TEXT = ("### Summary\n\nThis paper presents a robust aggregation method.\n\n### Soundness\n\n3\n\n"
             "### Strengths\n\n- The ARC method is simple yet effective.\n\n### Weaknesses\n\n"
             "#### Some Related Works\n\n\n#### comment\n\n - ARC relies on the robustness parameter f.\n\n"
             "### Suggestions\n\nThe paper should discuss setting f.\n\n### Questions\n\n"
             "- How does the choice of f affect ARC?\n\n### Rating\n\n6\n\n### Confidence\n\n3\n\n**********")
DEEP = {"paper_id": ICLR, "ground_truth": {"paper_id": ICLR, "Decision": "Accept (Spotlight)", "reviews": []},
        "generated_review": [{"raw_text": "I will use Standard Mode ...",
                              "reviews": [{"reviewer_id": 2, "text": "### Summary\n\nReviewer two.\n\n### Rating\n\n8",
                                           "rating": 8.0},
                                          {"reviewer_id": 1, "text": DEEP_TEXT, "summary": "This paper presents …",
                                           "rating": 6.0, "weaknesses": "#"}],
                              "meta_review": {}, "decision": ""}],
        "comparison": {"generated_ratings": [6.0, 8.0]}}

CYCLE_CONTENT = ("## Reviewer\n\n### Summary\n\nThe paper studies Byzantine robust distributed learning.\n\n"
                 "### Weaknesses\n\nThe theoretical analysis is not very strong.\n\n### Questions\n\n- Can you provide "
                 "more details?\n\n### Rating\n\n6: marginally above the acceptance threshold\n\n### Confidence\n\n"
                 "4: You are confident in your assessment.\n\n**********\n\n## Reviewer\n\n### Summary\n\nSecond.\n\n"
                 "**********\n\n## Paper Decision\n\nAccept (poster) (poster) (poster)")
CYCLE = {"paper_id": ICLR, "model": "CycleReviewer-ML-Llama-3.1-8B",
         "ground_truth": {"decision": "Accept (Spotlight)", "avg_rating": 7.5},
         "generated_review": {"content": CYCLE_CONTENT}}

ICLR_HUMANS = {
    "paper_id": ICLR, "Decision": "Accept (Spotlight)",
    "Meta review": {"Metareview": "All reviewers were very positive.", "Justification For Why Not Higher Score": "TBD"},
    "reviews": [
        {"Review ID": "TKnO6M1glb", "Rating": "8", "Confidence": "4",
         "Summary": "This paper proposes Adaptive Robust Clipping (ARC).", "Soundness": "3", "Presentation": "3",
         "Contribution": "4", "Strengths": "1. This paper is generally well-written.",
         "Weaknesses": "The convergence guarantee obtained from Theorem 3.2 is worse.",
         "Questions": "Please focus on the weakness of Theorem 5.2 in the rebuttal.", "Limitations": "",
         "Ethical Concerns": "", "Flag For Ethics Review": "['No ethics review needed.']", "Code Of Conduct": "Yes"},
        {"Review ID": "NHOJ5LqlA3", "Rating": "6", "Confidence": "3",
         "Summary": "The paper introduces an adaptive gradient clipping method.",
         "Strengths": "The paper proposes an adaptive method.", "Weaknesses": "The CIFAR-10 evaluation is limited.",
         "Questions": "How does NNM contribute to Theorem 5.2?"},
    ],
    "statistics": {"num_reviews": 2, "has_meta_review": True, "has_decision": True},
}

ICML_HUMANS = {
    "paper_id": ICML, "Decision": "Reject",
    "reviews": [
        {"Review ID": "mnJLsoDFgs", "Overall Recommendation": "3",
         "Summary": "This paper focuses on unsupervised pose estimation.",
         "Claims And Evidence": "Yes, categorical pose priors are crucial.",
         "Experimental Designs Or Analyses": "A recent state-of-the-art method is neither cited nor discussed.",
         "Other Strengths And Weaknesses": "None",
         "Other Comments Or Suggestions": "- It's suggested to adjust the position of Table 3.",
         "Questions For Authors": "1. Lack of comparisons with the recent state-of-the-art method.",
         "Code Of Conduct": "Affirmed."},
    ],
    "keywords": "['Prior', 'pose estimation']", "primary_area": "applications->computer_vision",
    "title": "Pose Prior Learner: Unsupervised Categorical Prior Learning for Pose Estimation",
    "abstract": "A prior represents a set of beliefs or assumptions about a system.",
}

PAPER_TXT = ("IntroductionDistributed machine learning, a.k.a. federated learning, has emerged as a paradigm.\n"
             "Related WorkRobust aggregation has been studied widely.\n")


def write(path: Path, content) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return path


def prism_data(root: Path) -> Path:
    """`root/data/{ICLR2025,ICML2025}/…` with two papers, three human reviews and the five systems."""
    data = root / "data"
    v = data / "ICLR2025"
    write(v / "paper_ids_200_iclr2025.txt", f"{ICLR}\n")
    write(v / "papers" / f"{ICLR}.txt", PAPER_TXT)
    write(v / "human_reviews" / f"{ICLR}.json", ICLR_HUMANS)
    write(v / "sea_iclr2025" / f"{ICLR}.txt", SEA_TXT)
    write(v / "reviewer2_iclr2025" / f"{ICLR}.txt", REVIEWER2_TXT)
    write(v / "tree_iclr2025" / f"{ICLR}_review.json", TREE)
    write(v / "deepreview_iclr2025" / f"{ICLR}.json", DEEP)
    write(v / "cyclereview_iclr2025" / f"{ICLR}.json", CYCLE)
    m = data / "ICML2025"
    write(m / "papers" / f"{ICML}.txt", "IntroductionPriors represent beliefs or assumptions about a system.\n")
    write(m / "human_reviews" / f"{ICML}.json", ICML_HUMANS)
    write(m / "sea_icml2025" / f"{ICML}.txt", SEA_TXT)
    return data


DEPTH_SEA = {"paper_id": ICLR, "source": "sea_iclr2025", "source_format": "txt", "reviews_analysis": {"SEA_ICLR2025": [
    {"arg_id": "A_01", "argument": "This paper introduces Adaptive Robust Clipping (ARC).", "role": "Claim",
     "aspect": "Methodology", "grounding_score": None},
    {"arg_id": "A_02", "argument": "ARC offers a practical solution for gradient clipping.", "role": "Premise",
     "aspect": "Novelty", "grounding_score": 2},
    {"arg_id": "A_03", "argument": "The paper could benefit from more comparisons.", "role": "Premise",
     "aspect": "Experiments", "grounding_score": 1},
    {"arg_id": "A_04", "argument": "What are the computational overheads?", "role": "Rebuttal",
     "aspect": "Methodology", "grounding_score": None}]},
    "usage_stats": {"prompt_tokens": 2881}}

DEPTH_HUMAN = {"paper_id": ICLR, "source": "human", "evaluator_model": "mimo-v2.5-pro", "reviews_analysis": {
    "Human_2": [{"arg_id": "A_01", "argument": "The CIFAR-10 evaluation is limited.", "role": "Premise",
                 "aspect": "Experiments", "grounding_score": 2},
                {"arg_id": "A_02", "argument": "The paper proposes an adaptive method.", "role": "Claim",
                 "aspect": "Methodology", "grounding_score": None},
                # a premise whose grounding PRISM could not join back by text: null, in R but not in S
                {"arg_id": "A_03", "argument": "How does NNM contribute to Theorem 5.2?", "role": "Premise",
                 "aspect": "Other", "grounding_score": None}],
    "Human_1": [{"arg_id": "A_01", "argument": "This paper proposes ARC.", "role": "Claim", "aspect": "Methodology",
                 "grounding_score": None}]}}

CONSTRUCTIVE_SEA = {"paper_id": ICLR, "metadata": {"decision": "Accept (Spotlight)"}, "reviewer_id": "SEA",
                    "status": "success", "atomic_comments": [
    {"arc_id": "ARC_01", "section": "Weaknesses", "comment_type": "weakness",
     "content": "The paper lacks comparisons with alternative methods.",
     "anchor_quote": "The paper could benefit from more comparisons with alternative methods.",
     "D1_actionability": 1, "D2_specificity": 1, "D3_justification": 0, "D4_solution": 1, "D5_tone": 1},
    {"arc_id": "ARC_02", "section": "Questions", "comment_type": "question",
     "content": "The reviewer asks about computational overheads.",
     "anchor_quote": "What are the specific computational overheads introduced by ARC?",
     "D1_actionability": 2, "D2_specificity": 1, "D3_justification": 0, "D4_solution": 0, "D5_tone": 2},
    {"arc_id": "ARC_03", "section": "Weaknesses", "comment_type": "suggestion",
     "content": "The reviewer suggests comparing with alternative clipping methods.",
     "anchor_quote": "Limited comparison",
     "D1_actionability": 2, "D2_specificity": 2, "D3_justification": 1, "D4_solution": 2, "D5_tone": 1}],
    # as PRISM's metrics.py computes them from the three comments (CLC 0.4, 0.5, 0.8), rounded to 4 places
    "metrics": {"MCS": 0.5667, "AR": 1.0, "SD": 0.3333, "CD": 0.3333, "n_arcs": 3}}

CONSTRUCTIVE_HUMAN = {"paper_id": ICLR, "metadata": {"num_reviewers": 2}, "reviewers": [
    {"reviewer_id": "Human_1", "status": "success", "atomic_comments": [
        {"arc_id": "ARC_01", "section": "Strengths", "comment_type": "strength",
         "content": "The paper is well-written.", "anchor_quote": "This paper is generally well-written.",
         "D1_actionability": 0, "D2_specificity": 1, "D3_justification": 1, "D4_solution": 0, "D5_tone": 2}],
     "metrics": {"MCS": 0.4, "AR": 0.0, "SD": 0.0, "CD": 0.0, "n_arcs": 1}},
    {"reviewer_id": "Human_2", "status": "success", "atomic_comments": [
        {"arc_id": "ARC_01", "section": "Weaknesses", "comment_type": "weakness",
         "content": "The CIFAR-10 evaluation is too limited.", "anchor_quote": "The CIFAR-10 evaluation is limited.",
         "D1_actionability": 1, "D2_specificity": 2, "D3_justification": 2, "D4_solution": 1, "D5_tone": 1},
        {"arc_id": "ARC_02", "section": "Questions", "comment_type": "question",
         "content": "The reviewer asks about NNM.", "anchor_quote": "a quote the review does not hold",
         "D1_actionability": 0, "D2_specificity": 0, "D3_justification": 1, "D4_solution": 0, "D5_tone": 1}],
     "metrics": {"MCS": 0.45, "AR": 0.5, "SD": 0.0, "CD": 0.5, "n_arcs": 2}}]}


def _ranking(who: str, cr: float, mr: float, cw: float, mw: float) -> dict:
    return {"Reviewer_ID": who, "Critical_Recall": cr, "Minor_Recall": mr, "Critical_Recall_ConsensusWeighted": cw,
            "Minor_Recall_ConsensusWeighted": mw}


# Flaw identification as released (data_demo/flaw_identification/<conf>/<llm source>/<paper>.json): one pool, the
# paper's two humans + SEA-E's review (N = 3); step outputs nested as PRISM saves them; metrics_report's cps block
# keeps each reviewer's figures but not the mapping's mentions. Human_1's F02 quote is elided (not verbatim).
#   G_c = {F01} (Human_1, SEA: W 2/3), G_m = {F02 (Human_2, Human_1: 2/3), F04 (Human_2: 1/3)}; F03 invalid.
FLAWS_SEA = {"paper_id": ICLR, "micro_flaws": {"micro_flaws": [
    {"flaw_id": "F01", "macro_topic": "6. Methodology & Theoretical Soundness - Weak Theoretical Justification/Proofs",
     "core_summary": "The guarantee of Theorem 3.2 is weaker than without ARC.",
     "raw_arguments": {"Human_1": "The convergence guarantee obtained from Theorem 3.2 is worse.",
                       "LLM_Reviewer": "The paper could benefit from more comparisons with alternative methods."}},
    {"flaw_id": "F02", "macro_topic": "4. Experimental Design & Evaluation - Limited/Biased Datasets",
     "core_summary": "The CIFAR-10 evaluation is limited.",
     "raw_arguments": {"Human_2": "The CIFAR-10 evaluation is limited.",
                       "Human_1": "Please focus on ... Theorem 5.2 in the rebuttal."}},
    {"flaw_id": "F03", "macro_topic": "3. Applicability, Scalability & Limitations - Scalability & Complexity Concerns",
     "core_summary": "The overhead of ARC is not reported.",
     "raw_arguments": {"LLM_Reviewer": "What are the specific computational overheads introduced by ARC?"}},
    {"flaw_id": "F04", "macro_topic": "6. Methodology & Theoretical Soundness - Lack of Intuition/Justification",
     "core_summary": "The role of NNM in Theorem 5.2 is unclear.",
     "raw_arguments": {"Human_2": "How does NNM contribute to Theorem 5.2?"}}]},
    "evaluations": {"evaluations": {"F01": {"is_valid": True, "severity": "Critical"},
                                    "F02": {"is_valid": True, "severity": "Minor"},
                                    "F03": {"is_valid": False, "severity": "None"},
                                    "F04": {"is_valid": True, "severity": "Minor"}}},
    # PRISM's figures for this pool, worked out by hand from the formulas (spec §3), 4 places
    "metrics_report": {"cfi": {"Reviewer_Rankings": [_ranking("Human_1", 1.0, 0.5, 1.0, 0.6667),
                                                     _ranking("Human_2", 0.0, 1.0, 0.0, 1.0),
                                                     _ranking("LLM_Reviewer", 1.0, 0.0, 1.0, 0.0)]},
                       "cps": {"Reviewer_Rankings": [{"Reviewer_ID": "LLM_Reviewer", "nCPS": 1.0}]}},
    "mode": "all"}

# The same paper pooled with TreeReview's review, with the mapping's mentions kept beside each reviewer's figures
# (`arguments`, as PRISM's process_single_review_for_cps returns them): TreeReview names both its mentions
# Weaknesses, the minor one's anchor (case changed) sits in its Strengths, before the critical one →
# [1, 2]: CPS = 1 + 2/log2 3, ICPS = 2 + 1/log2 3 → 0.8597; a third mention's anchor is nowhere (the end).
FLAWS_TREE = {"paper_id": ICLR, "micro_flaws": {"micro_flaws": [
    {"flaw_id": "F01", "macro_topic": "6. Methodology", "core_summary": "The method is not detailed.",
     "raw_arguments": {"Human_1": "The convergence guarantee obtained from Theorem 3.2 is worse.",
                       "LLM_Reviewer": "The methodology is not detailed."}},
    {"flaw_id": "F02", "macro_topic": "5. Related work", "core_summary": "No comparison with CWTM.",
     "raw_arguments": {"LLM_Reviewer": "How does ARC compare to CWTM?"}}]},
    "evaluations": {"evaluations": {"F01": {"is_valid": True, "severity": "Critical"},
                                    "F02": {"is_valid": True, "severity": "Minor"}}},
    "metrics_report": {"cps": {"Reviewer_Rankings": [
        {"Reviewer_ID": "LLM_Reviewer", "nCPS": 0.8597, "arguments": [
            {"issue_id": "F01", "section_name": "Weaknesses", "anchor_quote": "The methodology is not detailed."},
            {"issue_id": "F02", "section_name": "Weaknesses", "anchor_quote": "the paper presents a novel approach"},
            {"issue_id": "F09", "section_name": "Weaknesses", "anchor_quote": "no such flaw"}]},
        {"Reviewer_ID": "Human_1", "nCPS": 1.0, "arguments": [
            {"issue_id": "F01", "section_name": "Weaknesses",
             "anchor_quote": "The convergence guarantee obtained from Theorem 3.2 is worse"}]},
        {"Reviewer_ID": "Human_2", "nCPS": 0.0, "arguments": []}]}}}


def _evidence(cid: str, label: str, score: int) -> dict:
    return {"related_paper_id": cid, "score": score, "label": label, "explanation": "…", "relevance_score": None}


# Novelty verification as released (data_demo/novelty_verification/<conf>/<source>/<paper>/task{1,2,3}_result.json).
# SEA-E: two claims. C1: verdicts 2, 0, 0, -2 with best_evidence the first three → s = 2/3 (PRISM's final_score);
# C2: no best_evidence, verdicts 1, -1, 2 (one label missing, its score used) → the 3 largest |s| → s = 2/3.
# NS = ((2/3 + 2/3)/2 + 2)/4 = 2/3, SR = 0 (no s >= 1), SSR = 0.
NOVELTY_SEA_TASK1 = {"paper": {"core_task": "Robust distributed learning"}, "review": {"novelty_claims": [
    {"claim_id": "C1", "text": "ARC offers a practical solution for gradient clipping in distributed learning.",
     "stance": "novel", "prior_work_strings": []},
    {"claim_id": "C2", "stance": "somewhat_novel", "prior_work_strings": ["static clipping"],
     "text": "This paper introduces Adaptive Robust Clipping (ARC), a pre-aggregation clipping scheme."}]}}
NOVELTY_SEA_TASK3 = {
    "review_sentences": [{"review_sentence_id": "C1", "text": "x"}],
    "related_works": [{"related_paper_id": "p1", "text": "Title: Fair Gradient Clipping\n\nAbstract: …"},
                      {"related_paper_id": "p2", "text": "Title: DeSGD"}],
    "aggregated": [
        {"review_sentence_id": "C1",
         "text": "ARC offers a practical solution for gradient clipping in distributed learning.",
         "evidence_results": [_evidence("p1", "SUPPORTED", 2), _evidence("p2", "AMBIGUOUS", 0),
                              _evidence("p3", "AMBIGUOUS", 0), _evidence("p4", "UNSUPPORTED", -2)],
         "final_score": 0.6666666666666666, "best_evidence": ["p1", "p2", "p3"],
         "best_evidence_policy": "top3_relevance"},
        {"review_sentence_id": "C2",
         "text": "This paper introduces Adaptive Robust Clipping (ARC), a pre-aggregation clipping scheme.",
         "evidence_results": [_evidence("p1", "OVERSTATED", 1), _evidence("p5", "AMBIGUOUS", 0),
                              _evidence("p2", "UNDERSTATED", -1),
                              {"related_paper_id": "p6", "score": 2, "relevance_score": None}]}]}
# Humans: PRISM read both reviews as one text; each claim is one reviewer's words. C1 (Human_1's): 2, 2, 1 → 5/3;
# C2 (Human_2's): 2, 2, 2 → 2. Human_1 NS = (5/3 + 2)/4 = 11/12, SR 1, SSR 0; Human_2 NS 1, SR 1, SSR 1.
NOVELTY_HUMAN_TASK3 = {"aggregated": [
    {"review_sentence_id": "C1", "text": "This paper is generally well-written.",
     "evidence_results": [_evidence("p1", "SUPPORTED", 2), _evidence("p2", "SUPPORTED", 2),
                          _evidence("p3", "OVERSTATED", 1)], "best_evidence": ["p1", "p2", "p3"]},
    {"review_sentence_id": "C2", "text": "The paper proposes an adaptive method.",
     "evidence_results": [_evidence("p1", "SUPPORTED", 2), _evidence("p2", "SUPPORTED", 2),
                          _evidence("p4", "SUPPORTED", 2)], "best_evidence": ["p1", "p2", "p4"]}]}


def data_demo(root: Path) -> Path:
    demo = root / "data_demo"
    write(demo / "depth_of_analysis" / "iclr2025" / "sea" / f"{ICLR}.json", DEPTH_SEA)
    write(demo / "depth_of_analysis" / "iclr2025" / "human" / f"{ICLR}.json", DEPTH_HUMAN)
    write(demo / "constructiveness" / "iclr2025" / "sea" / f"{ICLR}.json", CONSTRUCTIVE_SEA)
    write(demo / "constructiveness" / "iclr2025" / "human" / f"{ICLR}.json", CONSTRUCTIVE_HUMAN)
    write(demo / "flaw_identification" / "iclr2025" / "sea" / f"{ICLR}.json", FLAWS_SEA)
    write(demo / "flaw_identification" / "iclr2025" / "tree" / f"{ICLR}.json", FLAWS_TREE)
    novelty = demo / "novelty_verification" / "iclr2025"
    write(novelty / "sea" / ICLR / "task1_result.json", NOVELTY_SEA_TASK1)
    write(novelty / "sea" / ICLR / "task2_result.json", {"related_works": []})
    write(novelty / "sea" / ICLR / "task3_result.json", NOVELTY_SEA_TASK3)
    write(novelty / "human" / ICLR / "task3_result.json", NOVELTY_HUMAN_TASK3)
    return demo


# ---- a replay case: one ICLR 2025 paper whose three reviews are long enough that the embedded model's caps
# cut them (more than 12 depth units, more than 6 comments, more than 6 flaws in the pool), with PRISM's answers
# in the reference code's taxonomy (roles Claim/Premise, aspects Soundness/Clarity/Contribution/Other, grounding
# 0-2; data_demo's released depth answers use another one, see ingest/judgments.py) and the figures PRISM's
# formulas give (/work/shared/specs/prism-metric-definitions.md), worked out by hand below to PRISM's 4 places.
# tests/dbt/test_prism_replay.py replays these answers through peerlake's judges.

REPLAY = "Rp7vQm2XkE"
REPLAY_H1, REPLAY_H2 = "Ab3kLm9PqR", "Zx8uVw2TyN"  # Human_1, Human_2: file order = review-id order

REPLAY_PAPER_TXT = (
    "IntroductionSparse mixture-of-experts layers route each token to a few experts. Routers are trained with an "
    "auxiliary load-balancing loss whose weight needs tuning.\n"
    "MethodOT-Route assigns tokens to experts by solving an entropic optimal transport problem whose marginals are "
    "the expert capacities, with 20 Sinkhorn iterations per layer (Section 3.2). Section 3.3 analyses the assignment "
    "under a full-rank cost matrix.\n"
    "ExperimentsWe train models with 8 and 64 experts and up to 1.3B parameters. Table 2 reports the mean and "
    "standard deviation of perplexity over three seeds. Figure 3 compares training FLOPs with Switch and BASE "
    "layers.\n")

REPLAY_H1_REVIEW = {
    "Review ID": REPLAY_H1, "Rating": "5", "Confidence": "4", "Soundness": "2", "Presentation": "2",
    "Contribution": "3",
    "Summary": "The paper proposes OT-Route, a router for sparse mixture-of-experts layers that assigns tokens to "
               "experts by solving an entropic optimal transport problem with a capacity constraint. The authors "
               "claim that this removes the need for an auxiliary load-balancing loss. Experiments on language "
               "modelling with 8 and 64 experts report lower perplexity than Switch and BASE layers at equal compute.",
    "Strengths": "The formulation is clean, and the connection between capacity constraints and transport marginals "
                 "is well motivated. Section 3.2 derives the Sinkhorn updates in a form that can be fused into the "
                 "routing kernel. The ablation in Table 4 isolates the effect of the entropy weight.",
    "Weaknesses": "The main comparison is incomplete. Expert Choice routing (Zhou et al., 2022) also enforces balanced "
                  "loads without an auxiliary loss, yet it is neither cited nor compared against.\n\n"
                  "The efficiency claim is not supported. Figure 3 reports FLOPs but no wall-clock time, and 20 "
                  "Sinkhorn iterations per layer are unlikely to be free on current accelerators.\n\n"
                  "The writing of Section 4 is hard to follow, and the notation for capacity changes between Equation "
                  "5 and Equation 9. The theory in Section 3.3 assumes that the cost matrix has full rank, which does "
                  "not hold when several experts share parameters.\n\n"
                  "The paper also omits the variance across random seeds in Table 2. Without it, the 0.3 perplexity "
                  "gain over BASE layers cannot be judged.",
    "Questions": "1. How many Sinkhorn iterations are used at inference time?\n2. Could you report wall-clock "
                 "throughput against Switch with the same number of experts?\n3. Does the full-rank assumption hold "
                 "for the 64-expert model?",
    "Limitations": "", "Ethical Concerns": "", "Flag For Ethics Review": "['No ethics review needed.']",
    "Code Of Conduct": "Yes"}

REPLAY_H2_REVIEW = {
    "Review ID": REPLAY_H2, "Rating": "3", "Confidence": "3", "Soundness": "2", "Presentation": "3",
    "Contribution": "2",
    "Summary": "This work replaces the auxiliary balancing loss of mixture-of-experts routers with an optimal "
               "transport assignment.",
    "Strengths": "The idea is simple and the paper is easy to read.",
    "Weaknesses": "The experiments stop at 1.3B parameters, so it is unclear whether the method scales. No wall-clock "
                  "numbers are given for the Sinkhorn step. The related work section misses Expert Choice routing.",
    "Questions": "What happens to token dropping when the capacity factor is 1.0?", "Code Of Conduct": "Yes"}

REPLAY_HUMANS = {"paper_id": REPLAY, "Decision": "Reject", "reviews": [REPLAY_H1_REVIEW, REPLAY_H2_REVIEW],
                 "statistics": {"num_reviews": 2, "has_meta_review": False, "has_decision": True}}

REPLAY_SEA_TXT = """**Summary:**
The paper introduces OT-Route, an optimal-transport router for sparse mixture-of-experts models. Tokens are assigned \
to experts by a few Sinkhorn iterations under a per-expert capacity constraint. The method is evaluated on language \
modelling benchmarks with up to 64 experts.

**Strengths:**
- **Principled formulation**: Casting routing as a transport problem gives balanced expert loads by construction.
- **No auxiliary loss**: The method removes the load-balancing loss and its tuning.
- **Consistent gains**: Table 2 shows lower perplexity than Switch Transformer on all three datasets.

**Weaknesses:**
- **Missing baselines**: The paper does not compare with Expert Choice routing, which also balances loads without an \
auxiliary loss. This omission makes it hard to attribute the gains to the transport formulation.
- **Hyperparameter sensitivity**: The entropy weight is fixed to 0.05 in all experiments without justification.
- **Computational overhead**: The cost of the Sinkhorn iterations is not reported, so the efficiency claims are hard \
to assess.
- **Clarity**: Some notation in Section 3 is introduced without definition.
- **Limited scale**: The largest model has 1.3B parameters. It is unclear whether the gains persist at larger scales.

**Questions:**
- How does OT-Route behave when the capacity factor is below 1.0?
- What is the wall-clock overhead of the Sinkhorn iterations during training?
- Would the method extend to expert parallelism across devices?

**Rating:**
5: marginally below the acceptance threshold
"""


def _arg(i: int, argument: str, role: str, aspect: str, grounding: int | None = None) -> dict:
    return {"arg_id": f"A_{i:02d}", "argument": argument, "role": role, "aspect": aspect, "grounding_score": grounding}


# Depth (PRISM §1) over Summary / Strengths / Weaknesses, the units verbatim, in review order.
# SEA: 13 units, premises 4 6 7 9 10 11 12 (R = 7/13), grounding 1 2 1 2 1 1 2 (mean 10/7, S_norm = 5/7);
#   DoA = 2·(7/13)·(5/7) / (7/13 + 5/7) = 910/1482 = 0.6140. Under a cap of 12 unit 13 (a claim) goes: R = 7/12.
REPLAY_DEPTH_SEA = {"paper_id": REPLAY, "source": "sea_iclr2025", "source_format": "txt", "reviews_analysis": {
    "SEA_ICLR2025": [
        _arg(1, "The paper introduces OT-Route, an optimal-transport router for sparse mixture-of-experts models.",
             "Claim", "Other"),
        _arg(2, "Tokens are assigned to experts by a few Sinkhorn iterations under a per-expert capacity constraint.",
             "Claim", "Other"),
        _arg(3, "The method is evaluated on language modelling benchmarks with up to 64 experts.", "Claim", "Other"),
        _arg(4, "Casting routing as a transport problem gives balanced expert loads by construction.", "Premise",
             "Contribution", 1),
        _arg(5, "The method removes the load-balancing loss and its tuning.", "Claim", "Contribution"),
        _arg(6, "Table 2 shows lower perplexity than Switch Transformer on all three datasets.", "Premise",
             "Soundness", 2),
        _arg(7, "The paper does not compare with Expert Choice routing, which also balances loads without an "
                "auxiliary loss.", "Premise", "Contribution", 1),
        _arg(8, "This omission makes it hard to attribute the gains to the transport formulation.", "Claim",
             "Contribution"),
        _arg(9, "The entropy weight is fixed to 0.05 in all experiments without justification.", "Premise",
             "Soundness", 2),
        _arg(10, "The cost of the Sinkhorn iterations is not reported, so the efficiency claims are hard to assess.",
             "Premise", "Soundness", 1),
        _arg(11, "Some notation in Section 3 is introduced without definition.", "Premise", "Clarity", 1),
        _arg(12, "The largest model has 1.3B parameters.", "Premise", "Soundness", 2),
        _arg(13, "It is unclear whether the gains persist at larger scales.", "Claim", "Soundness")]}}

# Human_1: 14 units, premises 3 5 6 8 10 11 12 13 (R = 8/14), grounding 1 2 2 2 2 2 2 1 (mean 1.75, S_norm .875);
#   DoA = 2·(4/7)·.875 / (4/7 + .875) = 1 / 1.4464 = 0.6914. A cap of 12 cuts unit 13 (a premise) and 14.
# Human_2: 5 units, premises 3 4 5 (R = .6); premise 4's grounding is null (PRISM joins scores by exact text and
#   lost it): in R, not in S, S_norm = mean(2, 1) / 2 = .75; DoA = 2·.6·.75 / 1.35 = 0.6667. No cap cuts it.
REPLAY_DEPTH_HUMAN = {"paper_id": REPLAY, "source": "human", "reviews_analysis": {
    "Human_1": [
        _arg(1, "The paper proposes OT-Route, a router for sparse mixture-of-experts layers that assigns tokens to "
                "experts by solving an entropic optimal transport problem with a capacity constraint.", "Claim",
             "Other"),
        _arg(2, "The authors claim that this removes the need for an auxiliary load-balancing loss.", "Claim",
             "Contribution"),
        _arg(3, "Experiments on language modelling with 8 and 64 experts report lower perplexity than Switch and "
                "BASE layers at equal compute.", "Premise", "Soundness", 1),
        _arg(4, "The formulation is clean, and the connection between capacity constraints and transport marginals "
                "is well motivated.", "Claim", "Clarity"),
        _arg(5, "Section 3.2 derives the Sinkhorn updates in a form that can be fused into the routing kernel.",
             "Premise", "Clarity", 2),
        _arg(6, "The ablation in Table 4 isolates the effect of the entropy weight.", "Premise", "Soundness", 2),
        _arg(7, "The main comparison is incomplete.", "Claim", "Contribution"),
        _arg(8, "Expert Choice routing (Zhou et al., 2022) also enforces balanced loads without an auxiliary loss, "
                "yet it is neither cited nor compared against.", "Premise", "Contribution", 2),
        _arg(9, "The efficiency claim is not supported.", "Claim", "Soundness"),
        _arg(10, "Figure 3 reports FLOPs but no wall-clock time, and 20 Sinkhorn iterations per layer are unlikely "
                 "to be free on current accelerators.", "Premise", "Soundness", 2),
        _arg(11, "The writing of Section 4 is hard to follow, and the notation for capacity changes between Equation "
                 "5 and Equation 9.", "Premise", "Clarity", 2),
        _arg(12, "The theory in Section 3.3 assumes that the cost matrix has full rank, which does not hold when "
                 "several experts share parameters.", "Premise", "Soundness", 2),
        _arg(13, "The paper also omits the variance across random seeds in Table 2.", "Premise", "Soundness", 1),
        _arg(14, "Without it, the 0.3 perplexity gain over BASE layers cannot be judged.", "Claim", "Soundness")],
    "Human_2": [
        _arg(1, "This work replaces the auxiliary balancing loss of mixture-of-experts routers with an optimal "
                "transport assignment.", "Claim", "Other"),
        _arg(2, "The idea is simple and the paper is easy to read.", "Claim", "Clarity"),
        _arg(3, "The experiments stop at 1.3B parameters, so it is unclear whether the method scales.", "Premise",
             "Soundness", 2),
        _arg(4, "No wall-clock numbers are given for the Sinkhorn step.", "Premise", "Soundness", None),
        _arg(5, "The related work section misses Expert Choice routing.", "Premise", "Contribution", 1)]}}


def _arc(i: int, section: str, kind: str, content: str, anchor: str, *d: int) -> dict:
    return {"arc_id": f"ARC_{i:02d}", "section": section, "comment_type": kind, "content": content,
            "anchor_quote": anchor, "D1_actionability": d[0], "D2_specificity": d[1], "D3_justification": d[2],
            "D4_solution": d[3], "D5_tone": d[4]}


# Constructiveness (PRISM §4), every section read. SEA: points 4 6 6 4 3 3 5 7 4 (sum 42) → MCS 42/90 = 0.4667;
# D1 >= 1 for 7 of 9 (AR .7778), D4 = 2 for 1 (SD .1111), CLC >= .6 for 3 (CD .3333). A cap of 6 keeps
# 4 6 6 4 3 3: MCS .4333.
REPLAY_CONSTRUCTIVE_SEA = {"paper_id": REPLAY, "metadata": {"decision": "Reject"}, "reviewer_id": "SEA",
                           "status": "success", "atomic_comments": [
    _arc(1, "Strengths", "strength", "Balanced loads come by construction from the transport formulation.",
         "gives balanced expert loads by construction", 0, 1, 1, 0, 2),
    _arc(2, "Weaknesses", "weakness", "Expert Choice routing is missing as a baseline.",
         "does not compare with Expert Choice routing", 1, 2, 1, 1, 1),
    _arc(3, "Weaknesses", "weakness", "The entropy weight is fixed without justification.",
         "The entropy weight is fixed to 0.05", 1, 2, 1, 1, 1),
    _arc(4, "Weaknesses", "weakness", "The cost of the Sinkhorn iterations is not reported.",
         "The cost of the Sinkhorn iterations is not reported", 1, 1, 1, 0, 1),
    _arc(5, "Weaknesses", "weakness", "Some notation in Section 3 is undefined.",
         "Some notation in Section 3 is introduced without definition", 1, 1, 0, 0, 1),
    _arc(6, "Weaknesses", "weakness", "The gains may not persist beyond 1.3B parameters.",
         "The largest model has 1.3B parameters", 0, 1, 1, 0, 1),
    _arc(7, "Questions", "question", "The reviewer asks about capacity factors below 1.0.",
         "when the capacity factor is below 1.0", 1, 2, 0, 0, 2),
    _arc(8, "Questions", "question", "The reviewer asks for the wall-clock overhead of the Sinkhorn iterations.",
         "wall-clock overhead of the Sinkhorn iterations", 2, 1, 0, 2, 2),
    _arc(9, "Questions", "question", "The reviewer asks whether the method extends to expert parallelism.",
         "extend to expert parallelism across devices", 1, 1, 0, 0, 2)],
    "metrics": {"MCS": 0.4667, "AR": 0.7778, "SD": 0.1111, "CD": 0.3333, "n_arcs": 9}}

# Human_1: points 4 5 8 7 6 6 9 7 4 (sum 56) → MCS 0.6222; AR 7/9 .7778, SD 2/9 .2222, CD 6/9 .6667 (a cap of 6
# keeps 4 5 8 7 6 6: MCS .6, SD 0). Human_2: 2 5 5 4 → MCS .4, AR .75, SD 0, CD 0; its last anchor is PRISM's
# paraphrase, not the review's words (the comment still counts).
REPLAY_CONSTRUCTIVE_HUMAN = {"paper_id": REPLAY, "metadata": {"num_reviewers": 2}, "reviewers": [
    {"reviewer_id": "Human_1", "status": "success", "atomic_comments": [
        _arc(1, "Strengths", "strength", "The capacity-constrained transport formulation is well motivated.",
             "transport marginals is well motivated", 0, 1, 1, 0, 2),
        _arc(2, "Strengths", "strength", "The ablation isolates the entropy weight.",
             "The ablation in Table 4 isolates the effect of the entropy weight", 0, 2, 1, 0, 2),
        _arc(3, "Weaknesses", "weakness", "Expert Choice routing is neither cited nor compared against.",
             "Expert Choice routing (Zhou et al., 2022)", 2, 2, 2, 1, 1),
        _arc(4, "Weaknesses", "weakness", "The efficiency claim lacks wall-clock evidence.",
             "Figure 3 reports FLOPs but no wall-clock time", 1, 2, 2, 1, 1),
        _arc(5, "Weaknesses", "weakness", "Section 4 is hard to follow and its capacity notation is inconsistent.",
             "the notation for capacity changes between Equation 5 and Equation 9", 1, 2, 1, 1, 1),
        _arc(6, "Weaknesses", "weakness", "The full-rank assumption fails when experts share parameters.",
             "assumes that the cost matrix has full rank", 1, 2, 2, 0, 1),
        _arc(7, "Weaknesses", "weakness", "Table 2 lacks the variance across seeds.",
             "omits the variance across random seeds in Table 2", 2, 2, 2, 2, 1),
        _arc(8, "Questions", "question", "The reviewer asks for wall-clock throughput against Switch.",
             "Could you report wall-clock throughput against Switch", 2, 1, 0, 2, 2),
        _arc(9, "Questions", "question", "The reviewer asks whether full rank holds for 64 experts.",
             "Does the full-rank assumption hold for the 64-expert model?", 1, 2, 0, 0, 1)],
     "metrics": {"MCS": 0.6222, "AR": 0.7778, "SD": 0.2222, "CD": 0.6667, "n_arcs": 9}},
    {"reviewer_id": "Human_2", "status": "success", "atomic_comments": [
        _arc(1, "Strengths", "strength", "The paper is easy to read.", "the paper is easy to read", 0, 0, 0, 0, 2),
        _arc(2, "Weaknesses", "weakness", "Scaling beyond 1.3B parameters is untested.",
             "The experiments stop at 1.3B parameters", 1, 2, 1, 0, 1),
        _arc(3, "Weaknesses", "weakness", "Wall-clock numbers for the Sinkhorn step are missing.",
             "No wall-clock numbers are given for the Sinkhorn step", 1, 2, 0, 1, 1),
        _arc(4, "Questions", "question", "The reviewer asks about token dropping at capacity factor 1.0.",
             "What happens to dropped tokens at a capacity factor of 1.0?", 1, 2, 0, 0, 1)],
     "metrics": {"MCS": 0.4, "AR": 0.75, "SD": 0.0, "CD": 0.0, "n_arcs": 4}}]}


def _flaw(i: int, topic: str, summary: str, **quotes: str) -> dict:
    return {"flaw_id": f"F{i:02d}", "macro_topic": topic, "core_summary": summary, "raw_arguments": quotes}


def _mention(issue: str, section: str, anchor: str, severity: str) -> dict:
    return {"issue_id": issue, "section_name": section, "anchor_quote": anchor, "severity": severity}


# Flaw identification (PRISM §3), one pool: Human_1, Human_2 and SEA (LLM_Reviewer), N = 3. Nine flaws in review
# order (Human_1's, then those Human_2 adds, then SEA's); F05 invalid (Table 2 does report seed variance).
#   G_c = F01 F02 F04 F06 F09 (raisers 3 3 1 2 1, ΣW = 10/3), G_m = F03 F07 F08 (raisers 1 1 1, ΣW = 1).
#   Human_1 raised F01-F05: recall_c 3/5, recall_m 1/3, weighted_c 7/10, weighted_m 1/3.
#   Human_2 raised F01 F02 F06: recall_c 3/5, recall_m 0, weighted_c 8/10, weighted_m 0.
#   SEA raised F01 F02 F06 F07 F08 F09: recall_c 4/5, recall_m 2/3, weighted_c 9/10, weighted_m 2/3.
# nCPS (per section, w = 2 critical / 1 minor, i from 0 within the section; a repeated issue keeps its first place):
#   Human_1 Weaknesses 2 2 1 2: CPS = 2 + 2/log2 3 + 1/2 + 2/log2 5 = 4.6232, ICPS = 2 + 2/log2 3 + 1 + 1/log2 5
#     = 4.6925 → 0.9852.  Human_2 Weaknesses 2 2 2 → 1.0.
#   SEA Weaknesses 2 1 2 1 2 (CPS 4.8353, ICPS 5.0794) + Questions 2 (2, 2) → 6.8353 / 7.0794 = 0.9655 (ranked as
#     one list, 2 1 2 1 2 2, it would be 0.9457).
# A cap of 6 flaws keeps F01-F06: G_m = {F03}, and SEA's F07-F09 are no flaws of the pool.
REPLAY_FLAWS = {"paper_id": REPLAY, "micro_flaws": [
    _flaw(1, "5. Related work & Citations - Missing Comparisons with Prior Work",
          "Expert Choice routing, which also balances loads without an auxiliary loss, is not compared.",
          Human_1="Expert Choice routing (Zhou et al., 2022) also enforces balanced loads",
          Human_2="The related work section misses Expert Choice routing",
          LLM_Reviewer="The paper does not compare with Expert Choice routing"),
    _flaw(2, "4. Experimental Design & Evaluation - Insufficient Experimental Validation",
          "The wall-clock cost of the Sinkhorn iterations is not reported.",
          Human_1="Figure 3 reports FLOPs but no wall-clock time",
          Human_2="No wall-clock numbers are given for the Sinkhorn step",
          LLM_Reviewer="The cost of the Sinkhorn iterations is not reported"),
    _flaw(3, "2. Clarity & Presentation - Unclear Math/ Notations",
          "The capacity notation changes between Equations 5 and 9.",
          Human_1="the notation for capacity changes between Equation 5 and Equation 9"),
    _flaw(4, "6. Methodology & Theoretical Soundness - Strong/Unrealistic Assumptions",
          "The analysis assumes a full-rank cost matrix, which fails when experts share parameters.",
          Human_1="assumes that the cost matrix has full rank"),
    _flaw(5, "4. Experimental Design & Evaluation - Insufficient Experimental Validation",
          "Table 2 reports no variance across random seeds.",
          Human_1="omits the variance across random seeds in Table 2"),
    _flaw(6, "4. Experimental Design & Evaluation - Insufficient Experimental Validation",
          "The models stop at 1.3B parameters, so scaling is untested.",
          Human_2="The experiments stop at 1.3B parameters", LLM_Reviewer="The largest model has 1.3B parameters"),
    _flaw(7, "6. Methodology & Theoretical Soundness - Lack of Intuition/Justification",
          "The entropy weight is fixed to 0.05 without justification.",
          LLM_Reviewer="The entropy weight is fixed to 0.05 in all experiments without justification"),
    _flaw(8, "2. Clarity & Presentation - Unclear Math/ Notations", "Some notation in Section 3 is undefined.",
          LLM_Reviewer="Some notation in Section 3 is introduced without definition"),
    _flaw(9, "3. Applicability, Scalability & Limitations - Scalability & Complexity Concerns",
          "It is unclear whether the routing works with expert parallelism across devices.",
          LLM_Reviewer="Would the method extend to expert parallelism across devices?")],
    "evaluations": {"F01": {"is_valid": True, "severity": "Critical"},
                    "F02": {"is_valid": True, "severity": "Critical"}, "F03": {"is_valid": True, "severity": "Minor"},
                    "F04": {"is_valid": True, "severity": "Critical"}, "F05": {"is_valid": False, "severity": "None"},
                    "F06": {"is_valid": True, "severity": "Critical"}, "F07": {"is_valid": True, "severity": "Minor"},
                    "F08": {"is_valid": True, "severity": "Minor"}, "F09": {"is_valid": True, "severity": "Critical"}},
    # the key names of the recall figures are ours (PRISM's cfi_metrics); the cps block is PRISM's
    # process_single_review_for_cps output: the mapping's mentions, in the review's order, then nCPS
    "metrics_report": {
        "cfi": {"Human_1": {"Recall_Critical": 0.6, "Recall_Minor": 0.3333, "Weighted_Recall_Critical": 0.7,
                            "Weighted_Recall_Minor": 0.3333},
                "Human_2": {"Recall_Critical": 0.6, "Recall_Minor": 0.0, "Weighted_Recall_Critical": 0.8,
                            "Weighted_Recall_Minor": 0.0},
                "LLM_Reviewer": {"Recall_Critical": 0.8, "Recall_Minor": 0.6667, "Weighted_Recall_Critical": 0.9,
                                 "Weighted_Recall_Minor": 0.6667}},
        "cps": {"Human_1": {"arguments": [
                    _mention("F01", "Weaknesses", "Expert Choice routing (Zhou et al., 2022) also enforces balanced "
                             "loads", "Critical"),
                    _mention("F02", "Weaknesses", "Figure 3 reports FLOPs but no wall-clock time", "Critical"),
                    _mention("F03", "Weaknesses", "the notation for capacity changes between Equation 5 and Equation 9",
                             "Minor"),
                    _mention("F04", "Weaknesses", "assumes that the cost matrix has full rank", "Critical"),
                    # the mapping named F02 again in the Questions: PRISM keeps an issue's first mention only
                    _mention("F02", "Questions", "Could you report wall-clock throughput against Switch", "Critical")],
                    "metrics": {"nCPS": 0.9852}},
                "Human_2": {"arguments": [
                    _mention("F06", "Weaknesses", "The experiments stop at 1.3B parameters", "Critical"),
                    _mention("F02", "Weaknesses", "No wall-clock numbers are given for the Sinkhorn step", "Critical"),
                    _mention("F01", "Weaknesses", "The related work section misses Expert Choice routing", "Critical")],
                    "metrics": {"nCPS": 1.0}},
                "LLM_Reviewer": {"arguments": [
                    _mention("F01", "Weaknesses", "The paper does not compare with Expert Choice routing", "Critical"),
                    _mention("F07", "Weaknesses", "The entropy weight is fixed to 0.05", "Minor"),
                    _mention("F02", "Weaknesses", "The cost of the Sinkhorn iterations is not reported", "Critical"),
                    _mention("F08", "Weaknesses", "Some notation in Section 3 is introduced without definition",
                             "Minor"),
                    _mention("F06", "Weaknesses", "The largest model has 1.3B parameters", "Critical"),
                    _mention("F09", "Questions", "Would the method extend to expert parallelism across devices?",
                             "Critical")],
                    "metrics": {"nCPS": 0.9655}}}}}


def replay_data(root: Path) -> Path:
    """`root/data/ICLR2025/…` with the replay paper, its two human reviews and SEA-E's review."""
    v = root / "data" / "ICLR2025"
    write(v / "paper_ids_200_iclr2025.txt", f"{REPLAY}\n")
    write(v / "papers" / f"{REPLAY}.txt", REPLAY_PAPER_TXT)
    write(v / "human_reviews" / f"{REPLAY}.json", REPLAY_HUMANS)
    write(v / "sea_iclr2025" / f"{REPLAY}.txt", REPLAY_SEA_TXT)
    return root / "data"
