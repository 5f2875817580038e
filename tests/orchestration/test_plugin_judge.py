"""A judge is one plug-in: the questions judge of tests/judging/plugin_questions/ (a module, a template, a
schema: nothing else) reaches the marts, a gate, the judge card and the report through `peerlake run`,
with no file of the package edited. The folder is named in PEERLAKE_PLUGINS; its metrics are SQL over its
units (count(unit), the share quoted verbatim), computed by dbt.

The judge runs on a hosted model's request shape against a loopback server that answers as a judge
would: the sentences of the review that end in a question mark, copied, except that at a review's
second repeat the last one is paraphrased ("In short: …"), so it is not the review's own words. A review
with q questions then has n_questions q and share_quoted (1 + (q-1)/q) / 2 in the marts (none without
questions), and the judge card retests share_quoted across the two repeats."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from peerlake.warehouse import EventLog, Lake
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.orchestration.conftest import run_cli

PLUGIN = Path(__file__).resolve().parents[1] / "judging" / "plugin_questions"
PAPER = "demo-001"
STUDY = f"""name = "plugin-judge"
judges = ["questions"]
reviewers = []

[papers]
corpus = "demo"

[judging]
papers = ["{PAPER}"]
sources = ["human"]
human_per_paper = 4
repeats = 2
temperature = 0.7
provider = "openai"
model = "gpt-4.1-mini"
"""
SAVE = ("import sys; from pathlib import Path; from peerlake.studies import save_study; "
        "from peerlake.warehouse import EventLog, Lake; "
        "save_study(EventLog(Lake(Path(sys.argv[1])).ensure()), 'plugin-judge', sys.argv[2])")
QUESTION = re.compile(r"[^.?!\n]*\?")


class QuestionsServer(FakeLlmServer):
    """Answers the questions judge with the review's own questions; records what it answered per review."""

    def __init__(self):
        super().__init__()
        self.answered: dict[str, list[int]] = {}

    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        prompt = body["messages"][-1]["content"]
        review = prompt.split("<review>", 1)[1].rsplit("</review>", 1)[0].strip()
        questions = [q.strip() for q in QUESTION.findall(review) if q.strip()]
        with self._lock:
            counts = self.answered.setdefault(review, [])
            if counts and questions:
                questions[-1] = f"In short: {questions[-1].lower()}"  # the second repeat paraphrases one
            counts.append(len(questions))
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = json.dumps({"questions": questions})
        return number, Reply(body=payload)


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("plugin_judge")
    lake_root = root / "lake"
    # the study is saved by a process that knows the plug-in, as `peerlake run` is (this one has scanned
    # the judges already, without it)
    save = subprocess.run([sys.executable, "-c", SAVE, str(lake_root), STUDY], env={**os.environ, "PEERLAKE_PLUGINS":
                          str(PLUGIN)}, capture_output=True, text=True, timeout=300)
    assert save.returncode == 0, save.stderr[-3000:]
    with QuestionsServer() as server:
        env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_DEMO_ONLY": PAPER, "PEERLAKE_PLUGINS": str(PLUGIN),
               "OPENAI_API_KEY": "sk-test-plugin-judge", "OPENAI_BASE_URL": server.openai_base_url}
        result = run_cli(["run", "plugin-judge"], env)
        report = run_cli(["report", "--study", "plugin-judge", "--out", str(root / "report.html")], env)
    return {"run": result, "report": report, "server": server, "lake": lake_root, "html": root / "report.html"}


def _marts(lake_root: Path):
    return duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True)  # the published, gated file


def test_the_plugin_judge_runs_and_its_metrics_reach_the_gated_mart(plugin_run):
    run = plugin_run["run"]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    server = plugin_run["server"]
    assert server.refused == [] and server.answered, "the judge made no call"
    calls = list(EventLog(Lake(plugin_run["lake"])).iter_events("llm_call"))
    assert {c.purpose for c in calls} == {"judge_questions_items"} and all(c.status == "ok" for c in calls)
    assert {c.prompt_template for c in calls} == {"judge_questions_items"}
    counts = list(server.answered.values())
    assert len(counts) >= 2 and all(len(c) == 2 and c[0] == c[1] for c in counts)  # two repeats of every review
    asked = sorted(c[0] for c in counts)
    assert asked[-1] >= 2, "the demo reviews ask too few questions to test anything"
    with _marts(plugin_run["lake"]) as db:
        # quality_reviews is published only after its gate passed; n_questions is a column of it
        got = db.execute("select n_questions, null_reasons from quality_reviews where study_id = 'plugin-judge'"
                         ).fetchall()
        assert sorted(n for n, _ in got) == pytest.approx(asked)
        assert not [r for _, r in got if "questions:" in (r or "")]  # only the judges the study does not name
        shares = db.execute("""select value, null_reason from int_quality_review_metrics
                               where judge = 'questions' and metric = 'share_quoted'""").fetchall()
        assert sorted(v for v, _ in shares if v is not None) == pytest.approx(
            sorted((1 + (q - 1) / q) / 2 for q in asked if q))
        assert [r for v, r in shares if v is None] == ["no_questions"] * asked.count(0)
        (repeated,) = db.execute("""select n_reviews_repeated from quality_judge_repeatability
                                    where judge = 'questions' and metric = 'share_quoted'""").fetchone()
        assert repeated == sum(1 for q in asked if q)
        card = db.execute("""select statistic, n from judge_cards
                             where judge = 'questions' and statistic like 'retest_%'""").fetchall()
        card = dict(card) if len(card) == len(dict(card)) else card
        assert card == {"retest_icc": repeated, "retest_alpha": repeated}  # the card retests share_quoted


def test_the_report_shows_the_plugin_judge(plugin_run):
    report = plugin_run["report"]
    assert report.returncode == 0, report.stdout[-2000:] + report.stderr[-2000:]
    assert "Questions: count" in plugin_run["html"].read_text(encoding="utf-8")
