"""The revision crossover end to end on the two embedded models, through the CLI: one demo paper, the
0.5B model as "L" (Writer, Selector, Scorer) and the 1.5B model as Selector "H"; cells LLL and LHL (both
Selectors see the one Writer call's diffs, the L Scorer scores the original and each final twice, the
original's scores serving both cells). Then the marts, the gates and the semantic-consistency mart, and
a second run that makes no call. It asserts the machinery only: what the small models answer decides
whether anything is edited, accepted or blocked. (The bulk of the calls go to the 0.5B model, which
reads and writes 2-3x as fast here: tests/embedded.py.)"""

import json
import statistics

import pytest

from peerlake.studies import save_study
from peerlake.warehouse import EventLog, Lake, settings
from tests.embedded import require_model
from tests.orchestration.conftest import run_cli
from tests.orchestration.test_pipeline import _calls, _sql

STUDY = f"""\
name = "revision-mini"
judges = []
reviewers = []

[papers]
corpus = "demo"

[revision]
papers = ["demo-001"]
cells = ["LLL", "LHL"]
repeats = 2
manuscript_chars = 900
max_edits = 1
writer_max_output_tokens = 400
selector_max_output_tokens = 200

[revision.models.L]
provider = "local"
model = "{settings.LOCAL_SMALL_MODEL_NAME}"
max_output_tokens = 300

[revision.models.H]
provider = "local"
model = "{settings.LOCAL_MODEL_NAME}"
max_output_tokens = 300
"""


@pytest.mark.model
def test_a_revision_crossover_on_one_paper_with_two_local_models(tmp_path, capsys):
    require_model(*settings.LOCAL_MODELS)
    lake_root = tmp_path / "lake"
    # the Scorers read the first 1,200 characters: the test times the machinery, not a whole paper
    env = {"PEERLAKE_HOME": str(lake_root), "PEERLAKE_REVIEW_MAX_CHARS": "1200"}
    save_study(EventLog(Lake(lake_root).ensure()), "revision-mini", STUDY)
    first = run_cli(["run", "revision-mini"], env, timeout=2400)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-4000:]
    assert "[revision] 1 papers, 2 paper conditions" in first.stdout

    log = EventLog(Lake(lake_root))
    outcomes = {o.writer + o.selector: o for o in log.iter_events("revision_outcome")}
    assert set(outcomes) == {"LL", "LH"}
    # one Writer call serves both Selectors: the same candidate diffs, and the same feedback review
    assert outcomes["LL"].writer_request_key == outcomes["LH"].writer_request_key
    assert [d["revised"] for d in json.loads(outcomes["LL"].diffs_json)] == \
        [d["revised"] for d in json.loads(outcomes["LH"].diffs_json)]
    for o in outcomes.values():
        assert (o.status == "ok") == (o.blocked_reason is None), o
        assert 0 <= o.n_accepted <= o.n_candidates <= 1
        assert (o.final_paper_id is None) == (o.status == "blocked")
        if o.status == "ok" and o.n_accepted == 0:
            assert o.final_paper_id == "demo-001"  # nothing accepted: the final manuscript is the original
        if o.n_accepted:
            assert o.final_paper_id.startswith("demo-001~revision-")

    calls = _calls(lake_root)
    assert all(c.provider == "local" and c.status == "ok" for c in calls), [(c.purpose, c.status) for c in calls]
    by_model = {(c.purpose, c.model) for c in calls}
    assert ("revision_writer", settings.LOCAL_SMALL_MODEL_NAME) in by_model
    # the feedback review is the L Scorer's first review of the original: one call, not two
    reviews = [c for c in calls if c.purpose == "review"]
    assert len({c.request_key for c in reviews}) == len(reviews)
    assert outcomes["LL"].feedback_request_key in {c.request_key for c in reviews}

    # the gains, recomputed here from the published scores: mean(final) − mean(original) per cell
    rows = _sql(lake_root, "select cell, side, score from int_revision_scores where study_id = 'revision-mini'")
    cells = _sql(lake_root, "select cell, n_papers, mean_gain from revision_cells "
                            "where study_id = 'revision-mini' and venue_year = 'all'")
    ok_cells = {c for c in ("LLL", "LHL") if outcomes[c[:2]].status == "ok"}
    assert {c for c, *_ in cells} == {"LLL", "LHL"}
    for cell, n_papers, mean_gain in cells:
        scores = {side: [s for c, sd, s in rows if c == cell and sd == side] for side in ("original", "final")}
        if cell in ok_cells and all(len(v) == 2 and None not in v for v in scores.values()):
            assert n_papers == 1
            assert mean_gain == pytest.approx(statistics.mean(scores["final"]) - statistics.mean(scores["original"]))
        else:
            assert n_papers == 0 and mean_gain is None
    [validation] = _sql(lake_root, "select n_papers, n_ok + n_blocked from revision_validation "
                                   "where study_id = 'revision-mini' and condition = 'LL'")
    assert validation == (1, 1)
    consistency = _sql(lake_root, "select kind, s_mean from review_consistency where study_id = 'revision-mini' "
                                  "and config_a = '*'")
    assert all(-1 <= s <= 1 for _, s in consistency)

    second = run_cli(["run", "revision-mini", "--no-build"], env, timeout=900)
    assert second.returncode == 0, second.stdout[-4000:] + second.stderr[-4000:]
    assert len(_calls(lake_root)) == len(calls)  # every call replayed: nothing paid twice
    assert len(list(EventLog(Lake(lake_root)).iter_events("revision_outcome"))) == 2  # nothing recorded twice
    with capsys.disabled():
        print(f"\nrevision crossover: {len(calls)} calls; "
              + "; ".join(f"{k}: {o.status}{' ' + o.blocked_reason if o.blocked_reason else ''}, "
                          f"{o.n_candidates} diffs, {o.n_accepted} accepted" for k, o in sorted(outcomes.items()))
              + f"; cells {sorted(cells)}")
