"""Does the verdict survive the judge? A two-member judge panel through `peerlake run` and the build (#45):
two reviewer configurations and the human reviews of the four demo papers, judged for constructiveness by
the same hosted model at temperature 0 ("t0", primary) and 0.7 ("t07"), against a loopback server whose
answers are scripted, so every figure below is worked by hand.

The reviewers answer with a marker in their summary (temperature 0: COLD, 0.5: WARM). The judge rates each
review's one comment r on all five dimensions, so MCS = 5r/10 = r/2:

               human   COLD   WARM
    t0   r  =    2      1      0     MCS 1.0  0.5  0.0   ranking human > COLD > WARM
    t07  r  =    1      2      0     MCS 0.5  1.0  0.0   ranking COLD > human > WARM

Kendall's τ-b of the rankings (1,2,3) vs (2,1,3): pairs (h,W), (C,W) concordant, (h,C) discordant →
(2 − 1)/3 = 1/3, the same on every bootstrap resample of the 4 papers. Exactly one system pair flips:
(COLD, human), −0.5 under t0 and +0.5 under t07. On the same 12 reviews (x = t0, y = t07): per system
mean_diff y − x = −0.5 (human), +0.5 (COLD), 0 (WARM); Pearson r = cov/var = (0.25/3)/(0.5/3) = 0.5;
Krippendorff's α (interval, 2 raters, 24 values: 1.0, 0.5, 0.0 eight times each): D_o = 2·Σ(x−y)²/24 =
2·2/24 = 1/6, D_e = Σ_{i≠j}(v_i−v_j)²/(24·23) = 192/552, α = 1 − (1/6)/(192/552) = 25/48.
The headline tables read the primary (t0) only: quality_reviews' MCS of a human review is 1.0."""

import json
import re
from pathlib import Path

import duckdb
import pytest

from peerlake.studies import save_study
from peerlake.warehouse import EventLog, Lake
from tests import shared_lakes
from tests.doubles.fake_server import FakeLlmServer, Reply
from tests.judging.support import schema_instance
from tests.orchestration.conftest import run_cli

STUDY = "panel-verdict"
TEXT = f"""name = "{STUDY}"
judges = ["constructiveness"]

[papers]
corpus = "demo"

[[reviewers]]
template = "reviewer_scoring"
provider = "openai"
model = "gpt-4.1-mini"
temperature = 0

[[reviewers]]
template = "reviewer_scoring"
provider = "openai"
model = "gpt-4.1-mini"
temperature = 0.5

[judging]
sources = ["human", "peerlake"]
human_per_paper = 1
peerlake_samples = 1
provider = "openai"
model = "gpt-4.1-mini"
primary = "t0"

[[judging.panel]]
name = "t0"
temperature = 0

[[judging.panel]]
name = "t07"
temperature = 0.7
"""
RATING = {0: {"human": 2, "COLD": 1, "WARM": 0}, 0.7: {"human": 1, "COLD": 2, "WARM": 0}}
RATINGS = ("actionability", "specificity", "justification", "solution", "tone")


class ScriptedServer(FakeLlmServer):
    """Reviewers: a schema instance whose text carries COLD or WARM. The constructiveness judge: one comment
    rated RATING[its temperature][whose review] on every dimension."""

    def _enter(self, body: dict) -> tuple[int, Reply]:
        number, _reply = super()._enter(body)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
        if schema.get("title") == "judge_constructiveness_comments":
            review = body["messages"][-1]["content"].split("<review>", 1)[1]
            who = next((m for m in ("COLD", "WARM") if m in review), "human")
            r = RATING[body["temperature"]][who]
            answer = {"comments": [{"section": "Weaknesses", "text": "A point.", "anchor_quote": "the paper",
                                    **dict.fromkeys(RATINGS, r)}]}
        else:
            marker = "COLD" if body.get("temperature") == 0 else "WARM"
            answer = schema_instance(schema, f"{marker} reviewer: the paper is clear.")
        payload = self.openai_answer(body, number)
        payload["choices"][0]["message"]["content"] = json.dumps(answer)
        return number, Reply(body=payload)


def build_panel(work: Path) -> Path:
    """The panel study run under work/lake through `peerlake run` against ScriptedServer; its root (the run's
    publish keeps build 1: the viewer's diff page builds on it)."""
    root = work / "lake"
    save_study(EventLog(Lake(root).ensure()), STUDY, TEXT)
    with ScriptedServer() as server:
        run = run_cli(["run", STUDY], {"PEERLAKE_HOME": str(root), "OPENAI_API_KEY": "sk-test-panel-verdict",
                                       "OPENAI_BASE_URL": server.openai_base_url})
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert server.refused == []
    return root


@pytest.fixture(scope="module")
def marts(tmp_path_factory):
    # built once per session and shared read-only with the viewer's diff page (tests/viewer/diff_lake.py)
    lake_root = shared_lakes.built_once(tmp_path_factory, "panel-verdict", build_panel)
    db = duckdb.connect(str(lake_root / "peerlake.duckdb"), read_only=True)
    # which reviewer configuration is COLD: the one reviewing at temperature 0
    configs = dict(db.execute("""select distinct reviewer_config, json_extract_string(params_json, '$.temperature')
                                 from fct_llm_calls where purpose not like 'judge%'""").fetchall())
    names = {c: ("COLD" if float(t) == 0 else "WARM") for c, t in configs.items()} | {"human": "human"}
    yield db, names, lake_root
    db.close()


def q(db, sql: str) -> list[tuple]:
    return db.execute(sql).fetchall()


def test_each_judge_ranks_the_systems_as_scripted(marts):
    db, names, _ = marts
    rows = q(db, f"""select judge_label, system, mean, rank, n_papers, n_systems from judge_rankings
                     where study_id = '{STUDY}' and metric = 'mcs' order by judge_label, rank""")
    got = [(label, names[system], mean, rank, n, k) for label, system, mean, rank, n, k in rows]
    assert got == [("t0", "human", 1.0, 1, 4, 3), ("t0", "COLD", 0.5, 2, 4, 3), ("t0", "WARM", 0.0, 3, 4, 3),
                   ("t07", "COLD", 1.0, 1, 4, 3), ("t07", "human", 0.5, 2, 4, 3), ("t07", "WARM", 0.0, 3, 4, 3)]


def test_kendall_tau_between_the_judges_and_its_interval(marts):
    db, _, _ = marts
    (row,) = q(db, f"""select label_x, label_y, n_systems, n_papers, kendall_tau_b, ci_low, ci_high, null_reason
                       from judge_ranking_agreement where study_id = '{STUDY}' and metric = 'mcs'""")
    assert row[:4] == ("t0", "t07", 3, 4) and row[7] is None
    assert row[4:7] == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_exactly_the_scripted_pair_flips(marts):
    db, names, _ = marts
    rows = q(db, f"""select system_a, system_b, diff_x, diff_y, is_flipped from judge_ranking_flips
                     where study_id = '{STUDY}' and metric = 'mcs'""")
    assert len(rows) == 3
    flipped = [(names[a], names[b], dx, dy) for a, b, dx, dy, f in rows if f]
    assert len(flipped) == 1
    a, b, dx, dy = flipped[0]
    assert {a, b} == {"COLD", "human"} and (dx, dy) == pytest.approx((-0.5, 0.5) if a == "COLD" else (0.5, -0.5))


def test_the_same_reviews_under_both_judges(marts):
    db, names, _ = marts
    diffs = {names[s]: (n, d) for s, n, d in q(db, f"""select system, n_pairs, mean_diff from judge_pair_differences
                                                      where study_id = '{STUDY}' and metric = 'mcs'""")}
    assert diffs == {"human": (4, pytest.approx(-0.5)), "COLD": (4, pytest.approx(0.5)), "WARM": (4, 0.0)}
    (row,) = q(db, f"""select n_reviews, mean_x, mean_y, mean_diff, pearson, alpha from judge_panel_agreement
                       where study_id = '{STUDY}' and metric = 'mcs'""")
    assert row == pytest.approx((12, 0.5, 0.5, 0.0, 0.5, 25 / 48))


def test_the_headline_tables_read_the_primary_judge(marts):
    db, _, _ = marts
    headline = q(db, f"select judge_label, is_primary, is_headline from dim_judge_configs where study_id = '{STUDY}'")
    assert sorted(headline) == [("t0", True, True), ("t07", False, False)]
    human = {v for (v,) in q(db, f"select mcs from quality_reviews where study_id = '{STUDY}' and source = 'human'")}
    assert human == {1.0}
    # quality_comparison pairs each system with the humans under the primary only (it refused two judges before)
    assert q(db, f"select count(distinct judge_config) from quality_comparison where study_id = '{STUDY}'") == [(1,)]
    assert re.fullmatch(r"[0-9a-f]{16}", q(db, f"select judge_config from quality_comparison "
                                               f"where study_id = '{STUDY}' limit 1")[0][0])


def test_diff_of_two_judges_in_the_users_order_and_refusals(marts):
    _, names, lake_root = marts
    env = {"PEERLAKE_HOME": str(lake_root)}
    out = run_cli(["diff", STUDY, "--judges", "t07", "t0", "--metric", "mcs", "--format", "json"], env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    doc = json.loads(out.stdout)
    diffs = {names[d["system"]]: (d["mean_a"], d["mean_b"], d["diff_b_minus_a"], d["n_papers"])
             for d in doc["differences"]}
    # b − a = t0 − t07: the mart's t07 − t0 turned round
    assert diffs == {"human": (0.5, 1.0, 0.5, 4), "COLD": (1.0, 0.5, -0.5, 4), "WARM": (0.0, 0.0, 0.0, 4)}
    moved = doc["reviews_moved_most"]
    assert len(moved) == 10 and {abs(m["diff_b_minus_a"]) for m in moved[:8]} == {0.5}
    assert {names[m["system"]] for m in moved[:8]} == {"human", "COLD"}
    table = run_cli(["diff", STUDY, "--judges", "t0", "t07"], env)
    assert table.returncode == 0 and "paired differences" in table.stdout and "moved most" in table.stdout
    wrong = run_cli(["diff", STUDY, "--judges", "t0", "t7"], env)
    assert wrong.returncode == 2 and "no judge configuration 't7'" in wrong.stderr and "known: t0, t07" in wrong.stderr
    typo = run_cli(["diff", "panel-verdikt", "--judges", "t0", "t07"], env)
    assert typo.returncode == 2 and "no study 'panel-verdikt'" in typo.stderr
