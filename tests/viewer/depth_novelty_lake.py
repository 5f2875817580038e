"""A lake where the depth and novelty judges judged three reviews of demo-001 (its first two human reviews and
one by a reviewer configuration), through `peerlake run --no-build` against a loopback server whose judge
answers are scripted, then the marts the label page and the cards read, built by dbt (no Dagster build and
no publish: the page reads this database). Shared read-only (tests/shared_lakes.py, "depth-novelty"); a
test that labels copies it.

Scripted answers, per review (the text between <review> tags in the prompt):
- depth: units = the first two lines of at least 40 characters, cut to at most 90 characters at a space
  (verbatim, so found at their offsets); unit 1 a claim with the taxonomy's first aspect, unit 2 a premise
  with its second; grounding 1.
- novelty: the paper's extraction is any small valid answer (the offline index is empty: no candidate, no
  verify call); one claim, the review's first such line, stance "novel"."""

import json
import os
import subprocess
import sys
from pathlib import Path

from peerlake.studies import save_study
from peerlake.warehouse import EventLog, Lake
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.judging.support import schema_instance
from tests.orchestration.conftest import run_cli

PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
STUDY = "label-depth-novelty"
TEXT = f"""name = "{STUDY}"
judges = ["depth", "novelty"]

[papers]
corpus = "demo"

[[reviewers]]
template = "reviewer_scoring"
provider = "openai"
model = "gpt-4.1-mini"
samples = 1
papers = ["demo-001"]

[judging]
papers = ["demo-001"]
sources = ["human", "peerlake"]
human_per_paper = 2
peerlake_samples = 1
provider = "openai"
model = "gpt-4.1-mini"
verify_top = 1
"""
# what the label page (report/viewer/catalog.py) and the cards read
SELECT = ["+fct_llm_calls", "+fct_call_judgments", "+fct_call_replays", "+fct_call_system_runs", "+judge_card_checks"]


def review_text(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    return prompt.split("<review>\n", 1)[1].split("\n</review>", 1)[0]


def unit_lines(text: str, n: int) -> list[str]:
    """The first n lines of at least 40 characters, each cut to at most 90 at a space: verbatim in `text`."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if len(line) >= 40:
            out.append(line if len(line) <= 90 else line[:90].rsplit(" ", 1)[0])
        if len(out) == n:
            break
    return out


class ScriptedServer(FakeLlmServer):
    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
        title = schema.get("title")
        if title == "judge_depth_units":
            answer = {"units": unit_lines(review_text(body), 2)}
        elif title == "judge_depth_labels":
            aspects = schema["properties"]["labels"]["items"]["properties"]["aspect"]["enum"]
            answer = {"labels": [{"unit": 1, "role": "claim", "aspect": aspects[0]},
                                 {"unit": 2, "role": "premise", "aspect": aspects[1]}]}
        elif title == "judge_depth_grounding":
            answer = {"grounding": [{"premise": 1, "score": 1}]}
        elif title == "judge_novelty_claims":
            answer = {"claims": [{"text": unit_lines(review_text(body), 1)[0], "stance": "novel", "prior_work": []}]}
        else:  # the reviewer and the novelty judge's paper extraction
            answer = schema_instance(schema, "The paper is clear and its gated adapter is evaluated on three tasks.")
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = json.dumps(answer)
        return number, Reply(body=payload)


def build_marts(lake_root: Path, db: Path) -> Path:
    """dbt build of SELECT into `db` (the label page's catalog and the cards), from the lake's events."""
    env = {k: v for k, v in os.environ.items() if k != "PEERLAKE_DUCKDB_PATH"}
    env.update(PEERLAKE_HOME=str(lake_root), PEERLAKE_DUCKDB_PATH=str(db))
    work = lake_root.parent  # dbt's target/ and logs/ beside the lake, not in it (a copy of the lake skips them)
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "build", "--select", *SELECT,
         "--exclude-resource-type", "unit_test", "--indirect-selection", "cautious",
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR),
         "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"dbt build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    return db


def build(work: Path) -> Path:
    """The study run under work/lake against ScriptedServer (no build), then its marts in work/lake/marts.duckdb."""
    root = work / "lake"
    save_study(EventLog(Lake(root).ensure()), STUDY, TEXT)
    with ScriptedServer() as server:
        run = run_cli(["run", STUDY, "--no-build"], {"PEERLAKE_HOME": str(root), "OPENAI_API_KEY": "sk-test-label",
                                                     "OPENAI_BASE_URL": server.openai_base_url})
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert server.refused == []
    build_marts(root, root / "marts.duckdb")
    return root
