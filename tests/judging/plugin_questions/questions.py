"""A judge from a plug-in folder (docs/judges/write-a-judge.md, and the test that adds it:
tests/orchestration/test_plugin_judge.py): the questions a review asks the paper's authors. One call per
review, one judgment per review at step `items`, each question a unit; its metrics are SQL over those
units, so no dbt file, gate, report or study code names it. This folder is all of it:
questions.py, templates/judge_questions_items.j2, schemas/judge_questions_items.json."""

from peerlake.judging.base import Judgment, ReviewMetric, answer_list, find_verbatim, judge_request, review_inputs

JUDGE = "questions"
ORDER = 5  # after PRISM's four
SECTIONS = None  # every section of the review
REVIEW_STEP = "items"
TEMPLATES = ("judge_questions_items",)
PARSER_VERSION = "questions-1"
UNITS = {"question": "VARCHAR", "quoted": "BOOLEAN"}  # one unit per question, as dbt reads it
METRICS = (
    ReviewMetric("n_questions", "Questions: count", headline=True, sql="count(unit)"),
    ReviewMetric("share_quoted", "Questions: share found verbatim", null_reason="no_questions",
                 sql="avg(cast(unit.quoted as double))"),
)
CARD_SCORE = "share_quoted"  # a judge card's score is on [0, 1]: its checks and comparisons assume it


def judge(ctx, reviews, **options) -> list[Judgment]:
    """One judgment per review for ctx.repeat (ctx: judging.base.JudgeContext); the calls batched."""
    out, todo, reqs = [], [], []
    for r in reviews:
        j = Judgment(judge=JUDGE, step=REVIEW_STEP, subject_key=r.review_key, paper_id=r.paper_id,
                     repeat=ctx.repeat, inputs=review_inputs(r))
        out.append(j)
        if not r.text.strip():
            j.null_reason = "empty_review"
            continue
        todo.append((j, r.text))
        reqs.append(judge_request(ctx.cfg, JUDGE, REVIEW_STEP, TEMPLATES[0], subject_id=r.review_key,
                                  repeat=ctx.repeat, review_text=r.text))
    for (j, text), res in zip(todo, ctx.call_many(reqs, "questions: items"), strict=True):
        questions = answer_list(j, res, "questions")
        if questions is not None:
            j.units = [{"question": q, "quoted": find_verbatim(q, text) is not None}
                       for q in questions if isinstance(q, str) and q.strip()]
    return out
