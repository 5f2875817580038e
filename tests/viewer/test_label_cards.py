"""Labels entered in Chromium reach the depth and novelty judges' cards at the next build, on a copy of a lake
where both judged three reviews with scripted answers (tests/viewer/depth_novelty_lake.py: depth's units are
each review's first two long lines, the first with the taxonomy's first aspect, the second with its second;
novelty's one claim is the first long line, stance "novel"). A span is dragged with the mouse and given an
aspect, a whole review clicked; the same for novelty's stance. The offsets are found here in the text the
judge read, and every κ and α is worked by hand from the labels chosen."""

import shutil

import duckdb
import pytest

from peerlake.report.viewer.label import LabelSession
from peerlake.report.viewer.serve import start, url
from peerlake.report.viewer.site import Site
from peerlake.warehouse import EventLog, Lake
from tests import shared_lakes
from tests.viewer.depth_novelty_lake import STUDY, build, build_marts, unit_lines
from tests.viewer.test_browser import go
from tests.viewer.test_label import drag_select, next_item, shown_item


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Lake:
    shared = shared_lakes.built_once(tmp_path_factory, "depth-novelty", build)
    root = tmp_path_factory.mktemp("label-cards") / "lake"
    shutil.copytree(shared, root)
    return Lake(root)


def cards(db) -> dict:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from judge_cards where study_id = ?", [STUDY])
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    return {(r["judge"], r["dataset"], r["dimension"], r["statistic"]): r for r in rows}


def label_in_browser(lake: Lake, folder, page, judge: str, dimension: str, plan) -> LabelSession:
    """Serve `peerlake label`'s page for (judge, dimension) and label the three items in sample order:
    plan[i](text) -> (span or None, the choice's index)."""
    site = Site(folder, lake, lake.root / "marts.duckdb", STUDY)
    site.label = session = LabelSession(site.reviews, site.log, STUDY, judge, "ann-a", 3, dimension)
    site.write_lists()
    server = start(site)
    try:
        go(page, url(server) + "#label")
        before = None
        for step in plan:
            key = shown_item(page) if before is None else next_item(page, before)
            item = session.items[key]
            span, choice = step(item.text)
            if span is not None:
                start_, end = item.text.index(span), item.text.index(span) + len(span)
                drag_select(page, start_, end)
                assert page.inner_text("#label-span").startswith(f"span {start_}–{end}")
            page.click(f"#label-choices button[data-label='{item.choices[choice]}']")
            before = key
        page.wait_for_function("() => !!document.querySelector('#label-finished')")
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()
    return session


def test_span_and_whole_labels_in_the_browser_change_the_cards_at_the_next_build(lake, page, tmp_path):
    db = lake.root / "marts.duckdb"
    before = cards(db)
    assert before[("depth", None, "*", "human_kappa")]["null_reason"] == "no_human_labels"
    assert before[("novelty", None, "*", "human_kappa")]["null_reason"] == "no_human_labels"

    # depth, aspect (choices: the taxonomy's, in its order): the first review's first unit dragged and given
    # the judge's own aspect (0); the second's second unit given the third aspect (the judge's is the second);
    # the third whole review given the first (the judge's units carry the first and the second once each:
    # the tie goes to its first unit's)
    depth = label_in_browser(lake, tmp_path / "depth", page, "depth", "aspect", [
        lambda text: (unit_lines(text, 2)[0], 0),
        lambda text: (unit_lines(text, 2)[1], 2),
        lambda text: (None, 0)])
    # novelty, stance (not_novel, somewhat_novel, novel, unclear): whole "novel"; the claim's line dragged
    # and called "not_novel"; whole "novel". The judge says "novel" of each (its one claim)
    label_in_browser(lake, tmp_path / "novelty", page, "novelty", "stance", [
        lambda text: (None, 2),
        lambda text: (unit_lines(text, 1)[0], 0),
        lambda text: (None, 2)])
    log = EventLog(lake)
    got = [(e.judge, e.dimension, e.label, e.judged_start is None, e.judge_shown)
           for e in sorted(log.iter_events("human_label_entered"), key=lambda e: e.event_id)]
    aspects = next(iter(depth.items.values())).choices
    assert got == [("depth", "aspect", aspects[0], False, False), ("depth", "aspect", aspects[2], False, False),
                   ("depth", "aspect", aspects[0], True, False), ("novelty", "stance", "novel", True, False),
                   ("novelty", "stance", "not_novel", False, False), ("novelty", "stance", "novel", True, False)]
    log.seal()
    log.close()

    after = cards(build_marts(lake.root, db))
    # depth (judge, person): (a0, a0) (a1, a2) (a0, a0): p_o = 2/3; margins judge a0 2/3 a1 1/3, person a0 2/3
    # a2 1/3: p_e = 4/9; κ = (2/3 − 4/9)/(5/9) = 2/5
    kappa = after[("depth", "entered_blind", "aspect", "human_kappa")]
    assert kappa["estimate"] == pytest.approx(2 / 5) and (kappa["n"], kappa["n_reviews"]) == (3, 3)
    # α: values a0 4, a1 1, a2 1 (n 6); one unit disagrees: D_o = 2/6; D_e = 2(4 + 4 + 1)/30 = 18/30
    alpha = after[("depth", "entered_blind", "aspect", "human_alpha")]
    assert alpha["estimate"] == pytest.approx(1 - (2 / 6) / (18 / 30))
    assert after[("depth", "entered_blind", "aspect", "human_human_alpha")]["null_reason"] == "fewer_than_2_annotators"
    # novelty: the judge says "novel" of all three, the person novel, not_novel, novel: a constant judge's
    # κ is 0 (p_o = p_e = 2/3), and α too (D_o = 2/6 = D_e = 2·5·1/30)
    stance = after[("novelty", "entered_blind", "stance", "human_kappa")]
    assert stance["estimate"] == pytest.approx(0.0) and stance["n"] == 3
    assert after[("novelty", "entered_blind", "stance", "human_alpha")]["estimate"] == pytest.approx(0.0)
    assert ("depth", None, "*", "human_kappa") not in after and ("novelty", None, "*", "human_kappa") not in after
