"""The viewer's diff page (#diff) in Chromium, on the scripted two-judge panel lake with two kept builds
(tests/viewer/diff_lake.py): the changed mart and its counts as SECOND_BUILD made them, the panel's paired
differences as test_judge_panel_marts.py works them by hand, and a moved review's links open the calls of
both judgments. On the viewer lake (no kept build, no panel) and with a build's snapshot damaged, the page
says why instead of failing."""

import json
import shutil

import duckdb
import pytest

from peerlake.report.viewer.diff import builds as builds_part
from peerlake.report.viewer.serve import start, url
from peerlake.report.viewer.site import Site
from peerlake.warehouse import Lake
from peerlake.warehouse import builds as kept
from tests import shared_lakes
from tests.orchestration.test_judge_panel_marts import STUDY
from tests.viewer.diff_lake import (
    CHANGED_REVIEW,
    NEW_CALL,
    NEW_HASH,
    REMOVED_REVIEW,
    build_panel,
    copy_with_second_build,
    system_names,
)
from tests.viewer.test_browser import go


@pytest.fixture(scope="module")
def diff_lake(tmp_path_factory) -> Lake:
    shared = shared_lakes.built_once(tmp_path_factory, "panel-verdict", build_panel)
    return copy_with_second_build(shared, tmp_path_factory.mktemp("diff-lake") / "lake")


@pytest.fixture(scope="module")
def diff_site(diff_lake, tmp_path_factory):
    site = Site(tmp_path_factory.mktemp("diff-site"), diff_lake, diff_lake.duckdb_path)
    site.write_lists()
    server = start(site)
    yield site, url(server)
    server.shutdown()
    server.server_close()


def _table(handle) -> list[list[str]]:
    return [[td.inner_text() for td in tr.query_selector_all("td")] for tr in handle.query_selector_all("tr")[1:]]


def _judge_hash(lake: Lake) -> str:
    """The judge template's one prompt hash in build 1 (the panel's two judges differ in temperature only)."""
    with duckdb.connect(str(lake.duckdb_path), read_only=True) as con:
        ((h,),) = con.execute("""select distinct prompt_hash from fct_llm_calls
                                 where purpose = 'judge_constructiveness_comments' and llm_call_id != ?""",
                              [NEW_CALL]).fetchall()
    return h


def test_the_diff_page_lists_the_changed_mart_and_the_judge_panel(diff_site, diff_lake, page):
    _, base = diff_site
    go(page, base)
    page.click("header a[href='#diff']")  # the navigation's link
    page.wait_for_function("() => document.getElementById('main').dataset.done === 'diff'")
    assert "against build 1" in page.inner_text("#diff-builds") and "build 2" in page.inner_text("#diff-builds")
    # the one call since build 1, under a hash of its template that no call of build 1 had
    hash_before = _judge_hash(diff_lake)
    assert _table(page.query_selector("#diff-since")) == [
        ["judge_constructiveness_comments", NEW_HASH[:12], "new", hash_before[:12], "1", "0", STUDY]]
    # fct_llm_calls gained that call; quality_reviews (12 reviews) lost one and one changed, no interval to
    # leave; both are of the study the new call is of, so it explains them
    calls, reviews = _table(page.query_selector("#diff-marts"))
    explained = f"judge_constructiveness_comments@{NEW_HASH[:12]} (new hash)"
    assert calls[:6] == ["fct_llm_calls", "48 → 49", "1", "0", "0", "0"] and calls[7:] == [explained, STUDY]
    assert reviews[:6] == ["quality_reviews", "12 → 11", "0", "1", "1", "0"] and reviews[7:] == [explained, STUDY]
    n = len(kept.records(diff_lake)[-1]["marts"])
    assert page.inner_text("#diff-unchanged") == f"{n - 2} of {n} marts unchanged"
    examples = page.inner_text("#diff-builds")
    assert NEW_CALL in examples
    assert f"{STUDY}|{REMOVED_REVIEW}" in examples and f"{STUDY}|{CHANGED_REVIEW}" in examples
    assert "mcs 1.0 → 0.25" in examples
    # the panel: t0 (primary) against t07; MCS per system as the panel test works it by hand
    names = system_names(diff_lake.duckdb_path)
    (panel,) = page.query_selector_all("#diff-judges section.judge-panel")
    assert panel.get_attribute("data-study") == STUDY and "judge t07 − judge t0" in panel.inner_text()
    mcs = {names[r[2]]: r[4:7] for r in _table(panel.query_selector("table.judge-differences")) if r[1] == "mcs"}
    assert mcs == {"human": ["1", "0.5", "-0.5"], "COLD": ["0.5", "1", "0.5"], "WARM": ["0", "0", "0"]}
    assert page.errors == []


def test_a_moved_review_links_to_both_judgments_calls(diff_site, page):
    _, base = diff_site
    go(page, base + "#diff")
    first = page.query_selector("table.judge-moved tr:nth-child(2)")
    cell = first.query_selector_all("td")[2]
    cut = cell.query_selector("span[title]")  # a long key is cut, whole in its title
    review = cut.get_attribute("title") if cut else cell.inner_text()
    for side, temperature in (("a", 0.0), ("b", 0.7)):  # t0 judges at temperature 0, t07 at 0.7
        go(page, base + "#diff")
        link = page.query_selector(f"table.judge-moved tr:nth-child(2) a.call-{side}")
        call_id = link.inner_text()
        link.click()
        page.wait_for_selector("pre.response")
        assert page.inner_text("h2") == "Call " + call_id
        fields = {tr.query_selector("th").inner_text(): tr.query_selector("td").inner_text()
                  for tr in page.query_selector_all("main table")[0].query_selector_all("tr")}
        assert fields["purpose"] == "judge_constructiveness_comments" and fields["paper"] == review
        assert json.loads(fields["params"])["temperature"] == temperature
    assert page.errors == []


def test_every_moved_review_names_its_two_judgments_calls(diff_site, diff_lake):
    site, _ = diff_site
    (panel,) = json.loads(
        (site.viewer / "data" / "diff" / "diff.js").read_text().split(",", 1)[1].rsplit(");", 1)[0]
    )["judges"]["studies"]
    moved = panel["pairs"][0]["reviews_moved_most"]
    assert len(moved) == 10
    with duckdb.connect(str(diff_lake.duckdb_path), read_only=True) as con:
        calls = {i: (p, s, json.loads(t)["temperature"]) for i, p, s, t in con.execute(
            "select llm_call_id, purpose, subject_id, params_json from fct_llm_calls").fetchall()}
    for m in moved:  # one comments call per judgment (one repeat), made at its judge's temperature
        assert [calls[i] for i in m["llm_call_ids_a"]] == [("judge_constructiveness_comments", m["review_key"], 0.0)]
        assert [calls[i] for i in m["llm_call_ids_b"]] == [("judge_constructiveness_comments", m["review_key"], 0.7)]


def test_without_a_kept_build_or_a_panel_the_page_says_so(viewer_site, page):
    _, base = viewer_site
    go(page, base + "#diff")
    assert "No build is kept" in page.inner_text("#diff-builds-error")
    builds = page.inner_text("#diff-builds")
    assert "PEERLAKE_KEEP_BUILDS" in builds and "next publish" in builds
    assert "no dim_judge_configs" in page.inner_text("#diff-judges-error")
    assert page.errors == []


def test_a_damaged_snapshot_is_a_message_not_a_crash(diff_lake, tmp_path):
    lake = Lake(shutil.copytree(diff_lake.root, tmp_path / "lake"))
    (chunk,) = kept.records(lake)[0]["marts"]["quality_reviews"]["chunks"]
    kept.chunk_path(lake, chunk).unlink()  # build 1's quality_reviews, the one mart compared
    part = builds_part(lake)
    assert "report" not in part and "could not be computed" in part["error"]
    Site(tmp_path / "site", lake, lake.duckdb_path).write_lists()  # and `peerlake view` still writes its page set
