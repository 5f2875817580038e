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


def data_demo(root: Path) -> Path:
    demo = root / "data_demo"
    write(demo / "depth_of_analysis" / "iclr2025" / "sea" / f"{ICLR}.json", DEPTH_SEA)
    write(demo / "depth_of_analysis" / "iclr2025" / "human" / f"{ICLR}.json", DEPTH_HUMAN)
    write(demo / "constructiveness" / "iclr2025" / "sea" / f"{ICLR}.json", CONSTRUCTIVE_SEA)
    write(demo / "constructiveness" / "iclr2025" / "human" / f"{ICLR}.json", CONSTRUCTIVE_HUMAN)
    return demo
