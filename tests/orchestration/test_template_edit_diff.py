"""After a template edit, `peerlake diff --build prev` names exactly the figures downstream of that template
(#45). A study with one hosted reviewer and the plug-in questions judge (tests/judging/plugin_questions,
copied so its template can be edited) over two demo papers' AI review and first human review, answered by a
loopback server: the reviewer asks three questions, the judge lists the review's questions. The judge's
template is then edited (the server sees the edit and lists only the first question) and the study run
again: the reviewer's calls replay, the judge's are new under a new prompt hash.

So the second build moves the questions judge's figures of every review with two or more questions and
nothing of the reviewer's (its scores, reliability and consistency rows stay), and the diff explains each
moved mart by the judge template's new hash, except the count of replays, which the reviewer's replays
explain."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.judging.support import schema_instance
from tests.orchestration.conftest import run_cli

PLUGIN = Path(__file__).resolve().parents[1] / "judging" / "plugin_questions"
TEMPLATE = "judge_questions_items"
PAPERS = "demo-001,demo-002"
STUDY = """name = "edit-diff"
judges = ["questions"]

[papers]
corpus = "demo"

[[reviewers]]
template = "reviewer_scoring"
provider = "openai"
model = "gpt-4.1-mini"
temperature = 0

[judging]
sources = ["human", "peerlake"]
human_per_paper = 1
peerlake_samples = 1
provider = "openai"
model = "gpt-4.1-mini"
"""
SAVE = ("import sys; from pathlib import Path; from peerlake.studies import save_study; "
        "from peerlake.warehouse import EventLog, Lake; "
        "save_study(EventLog(Lake(Path(sys.argv[1])).ensure()), 'edit-diff', sys.argv[2])")
QUESTION = re.compile(r"[^.?!\n]*\?")
EDIT = "Only the first question."
AI_REVIEW = "Why this baseline? Is the ablation complete? What is the variance?"

# What the edit must not reach: the reviewer's figures, and the marts of what the study did not ask for.
UNREACHED = ("fct_ai_review_scores", "reliability_repeatability", "review_consistency", "fct_human_reviews",
             "dim_papers")


class EditServer(FakeLlmServer):
    """The reviewer: a schema instance asking AI_REVIEW's three questions. The judge: the review's questions,
    only the first once its template carries EDIT."""

    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        prompt = body["messages"][-1]["content"]
        if "<review>" in prompt:
            review = prompt.split("<review>", 1)[1].rsplit("</review>", 1)[0]
            questions = [q.strip() for q in QUESTION.findall(review) if q.strip()]
            answer = {"questions": questions[:1] if EDIT in prompt else questions}
        else:
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
            answer = schema_instance(schema, AI_REVIEW)
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = json.dumps(answer)
        return number, Reply(body=payload)


def _questions(db) -> dict[str, float]:
    return dict(db.execute("select review_key, value from int_quality_review_metrics where judge = 'questions' "
                           "and metric = 'n_questions' and value is not null").fetchall())


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    root = tmp_path_factory.mktemp("template_edit")
    plugin, lake_root = root / "plugin_questions", root / "lake"
    shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__"))
    save = subprocess.run([sys.executable, "-c", SAVE, str(lake_root), STUDY],
                          env={**os.environ, "PEERLAKE_PLUGINS": str(plugin)}, capture_output=True, text=True,
                          timeout=300)
    assert save.returncode == 0, save.stderr[-3000:]
    with EditServer() as server:
        env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_DEMO_ONLY": PAPERS, "PEERLAKE_PLUGINS": str(plugin),
               "OPENAI_API_KEY": "sk-test-edit-diff", "OPENAI_BASE_URL": server.openai_base_url}
        first = run_cli(["run", "edit-diff"], env)
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        with duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True) as db:
            before = _questions(db)
        template = plugin / "templates" / f"{TEMPLATE}.j2"
        text = template.read_text()
        template.write_text(text.replace("List every question", f"{EDIT} List every question"))
        second = run_cli(["run", "edit-diff"], env)
        assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
        diff = run_cli(["diff", "--build", "prev", "--format", "json"], env)
        table = run_cli(["diff", "--build", "prev"], {**env, "COLUMNS": "250"})
    assert server.refused == []
    assert diff.returncode == 0, diff.stdout[-3000:] + diff.stderr[-3000:]
    with duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True) as db:
        after = _questions(db)
        hashes = dict(db.execute("""select prompt_template, list(prompt_hash order by first) from (
                                        select prompt_template, prompt_hash, min(occurred_at) as first
                                        from fct_llm_calls group by all) group by 1""").fetchall())
    return {"report": json.loads(diff.stdout), "table": table, "before": before, "after": after, "hashes": hashes}


def test_the_edit_is_the_one_new_prompt_hash_and_the_reviewer_made_no_call(edited):
    since = edited["report"]["since"]
    old_hash, new_hash = edited["hashes"][TEMPLATE]
    called = [g for g in since["groups"] if g["calls"]]
    assert [(g["prompt_template"], g["prompt_hash"], g["new_hash"], g["hashes_before"]) for g in called] == \
        [(TEMPLATE, new_hash, True, [old_hash])]
    assert called[0]["calls"] == len(edited["after"]) and called[0]["studies"] == ["edit-diff"]
    assert len(edited["hashes"]["reviewer_scoring"]) == 1


def test_the_figures_that_moved_are_those_of_the_reviews_with_several_questions(edited):
    before, after = edited["before"], edited["after"]
    assert set(before) == set(after) and any(n >= 2 for n in before.values())
    assert after == {k: min(n, 1.0) for k, n in before.items()}  # the edit keeps the first question only
    marts = {m["mart"]: m for m in edited["report"]["marts"]}
    reviews = marts["quality_reviews"]
    assert reviews["changed"] == sum(n >= 2 for n in before.values()) and reviews["added"] == reviews["removed"] == 0
    assert all({c["column"] for c in ex["changes"]} >= {"n_questions"} for ex in reviews["examples"]["changed"])


def test_every_mart_that_differs_is_downstream_of_the_template_and_nothing_else_is(edited):
    marts = {m["mart"]: m for m in edited["report"]["marts"]}
    differing = {name for name, m in marts.items() if m["status"] != "compared" or m["added"] or m["removed"]
                 or m["changed"] or m["not_compared"]}
    assert {"quality_reviews", "fct_llm_calls", "cost_by_model"} <= differing
    assert not differing & set(UNREACHED), f"the judge's template reached {sorted(differing & set(UNREACHED))}"
    called = {(g["prompt_template"], g["prompt_hash"]) for g in edited["report"]["since"]["groups"] if g["calls"]}
    replayed_only = {(g["prompt_template"], g["prompt_hash"]) for g in edited["report"]["since"]["groups"]
                     if not g["calls"]}
    unexplained = set()
    for name in sorted(differing):
        by = {(e["prompt_template"], e["prompt_hash"]) for e in marts[name]["explained_by"]}
        assert by, f"{name} differs and no event explains it"
        if by & called:
            assert by <= called, f"{name} is explained by the edit and by {sorted(by - called)} too"
        else:
            unexplained.add(name)
            assert by <= replayed_only, name
    # the rerun replayed the reviewer's calls: the replay mart counts them, and nothing else moved for them
    assert unexplained == {"fct_call_replays"}
    # the terminal's table says the same, with the template and the hash marked new
    table = edited["table"]
    assert table.returncode == 0, table.stderr[-2000:]
    assert "events since build" in table.stdout and f"{TEMPLATE}@" in table.stdout and "quality_reviews" in table.stdout
