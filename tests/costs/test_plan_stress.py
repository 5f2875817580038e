"""The dry run of a study with a [stress] suite: the paraphrase's rewrite calls (one per body section, the
sections counted by hand from the demo sources), its validation calls (stand-ins while no rewrite is in the
log), and the mention judge on every review of a soundness variant (repeats each), counted by hand."""

from pathlib import Path

import pytest

from peerlake.costs.plan import study_estimate
from peerlake.ingest.papers import ingest_pdf
from peerlake.studies import parse_study
from peerlake.warehouse.log import EventLog
from tests.costs.test_estimate import gateway_of

DEMO = Path(__file__).resolve().parents[2] / "ingest" / "demo_corpus" / "papers"
# body sections, by hand from ingest/demo_corpus/sources/: demo-001 1-7, demo-003 1-6
SECTIONS = {"demo-001": 7, "demo-003": 6}
STUDY = """name = "s"
judges = []
[papers]
ids = ["demo-001", "demo-003"]
[[reviewers]]
template = "reviewer_scoring"
samples = 2
provider = "openai"
model = "gpt-test"
[stress]
edits = ["remove_main_table", "overclaim_abstract", "typos", "paraphrase"]
{extra}
[stress.builder]
provider = "openai"
model = "gpt-test"
[stress.judge]
provider = "openai"
model = "gpt-test"
repeats = 3
"""


@pytest.fixture
def log(lake):
    log = EventLog(lake)
    for stem in SECTIONS:
        ingest_pdf(log, DEMO / f"{stem}.pdf", paper_id=stem, is_synthetic=True)
    log.seal()
    return log


def _calls(est, template: str) -> tuple[float, float]:
    """(new, in the log) calls of a template."""
    rows = [r for r in est.rows if r["prompt_template"] == template]
    return sum(r["calls"] for r in rows if r["new"]), sum(r["calls"] for r in rows if not r["new"])


def test_the_dry_run_counts_the_paraphrase_and_the_mention_judge(log):
    est = study_estimate(log, parse_study("s", STUDY.format(extra="")), gateway_of(log))
    every = sum(SECTIONS.values())  # the default: every body section
    assert _calls(est, "stress_paraphrase") == (every, 0)
    assert _calls(est, "stress_paraphrase_validate") == (every, 0)  # stand-ins: no rewrite in the log yet
    # 2 papers x 2 soundness edits (typos is presentation) x 2 samples x 3 repeats
    assert _calls(est, "stress_mention_judge") == (2 * 2 * 2 * 3, 0)
    assert {r["asset"] for r in est.rows if r["prompt_template"].startswith("stress_paraphrase")} == {"paper_variants"}
    assert all(r["est_cost_usd"] > 0 for r in est.rows if r["prompt_template"].startswith("stress_"))
    assert any("stress: 13 paraphrase validation calls" in n for n in est.notes)
    assert any("stress: 4 soundness variants not made yet are counted as built" in n for n in est.notes)


def test_a_study_that_limits_the_sections_and_drops_the_paraphrase(log):
    one = study_estimate(log, parse_study("s", STUDY.format(extra="paraphrase_max_sections = 1")), gateway_of(log))
    assert _calls(one, "stress_paraphrase") == (2, 0) and _calls(one, "stress_paraphrase_validate") == (2, 0)
    none = STUDY.format(extra="").replace(', "paraphrase"]', "]")
    est = study_estimate(log, parse_study("s", none), gateway_of(log))
    assert _calls(est, "stress_paraphrase") == (0, 0) and _calls(est, "stress_mention_judge") == (24, 0)
