"""The call viewer in a real browser (the distribution's Chromium through Playwright) on the viewer lake:
filters narrow the list, a call's page shows the request as sent and the response, a model answer
holding <script> stays text, a judged review shows its units highlighted, a system run its steps, and a
page set written with --out opens from disk without a server."""

import json
from urllib.parse import quote

from peerlake.report.viewer.site import Site
from peerlake.warehouse import EventLog, Lake
from tests.viewer.viewer_lake import HOSTILE, REVIEW_P1, UNITS

DONE = "() => document.getElementById('main').dataset.done === (location.hash.slice(1) || 'calls')"


def go(page, url: str) -> None:
    """Open a page of the viewer and wait until it has drawn it (viewer.js marks main data-done)."""
    page.goto(url)
    page.wait_for_function(DONE)


def _rows(page) -> list[list[str]]:
    page.wait_for_function(DONE)
    return [[td.inner_text() for td in tr.query_selector_all("td")]
            for tr in page.query_selector_all("#call-table tr")[1:]]


def test_filters_narrow_the_list(viewer_site, viewer_lake, page):
    _, base = viewer_site
    go(page, base)
    every = _rows(page)
    # 6 call events: P1, P2's failed and answered attempts, two system steps, the judge call (the replay
    # by study b wrote no llm_call)
    assert len(every) == 6
    assert [r[0] for r in every][-1] == viewer_lake.calls["hostile"]  # newest first: the first call is last
    page.select_option("select[name=status]", "error")
    page.click("form.filters button")
    page.wait_for_function("location.hash.includes('status=error')")
    page.wait_for_function(DONE)
    (failed,) = _rows(page)
    assert failed[3] == "P2" and failed[6] == "error"
    go(page, base + "#calls?study=b")
    (replayed,) = _rows(page)  # study b paid nothing: it replayed P2's answer
    assert replayed[0] == viewer_lake.calls["P2"] and replayed[-1] == "b"
    go(page, base + "#calls?study=a&origin=replayed")
    assert _rows(page) == []
    go(page, base + "#calls?purpose=draft")  # a system step matches the purpose filter
    assert [r[0] for r in _rows(page)] == [viewer_lake.calls["draft"]]
    assert page.errors == []


def test_call_page_shows_messages_response_parse_and_attempts(viewer_site, viewer_lake, page):
    _, base = viewer_site
    go(page, base + "#call/" + viewer_lake.calls["P2"])
    page.wait_for_selector("pre.response")
    messages = [m.inner_text() for m in page.query_selector_all("pre.message")]
    assert messages == ["You review papers. <b>not bold</b>", "Review the manuscript P2."]
    assert page.query_selector("pre.message b") is None  # markup in a prompt is text, not a tag
    assert json.loads(page.inner_text("pre.response"))["overall_score"] == 4
    assert json.loads(page.inner_text("pre.parse"))["overall_score"] == 4
    (failed,) = [e for e in EventLog(Lake(viewer_lake.root)).iter_events("llm_call") if e.status == "error"]
    body = page.inner_text("main")
    # the attempts at this request: the 500 first (linked), then this answer
    assert page.query_selector(f"a[href='#call/{failed.event_id}']") is not None
    assert body.index(failed.event_id) < body.index(viewer_lake.calls["P2"] + " (this)")


def test_an_answer_holding_script_is_shown_as_text(viewer_site, viewer_lake, page):
    _, base = viewer_site
    go(page, base + "#call/" + viewer_lake.calls["hostile"])
    page.wait_for_selector("pre.response")
    assert json.loads(page.inner_text("pre.response"))["concerns"] == REVIEW_P1["concerns"]  # the very characters
    assert page.evaluate("window.__pwned") is None
    assert page.query_selector("main script, main img") is None
    assert page.errors == []


def test_a_judged_review_shows_its_units_highlighted(viewer_site, page):
    _, base = viewer_site
    go(page, base + "#reviews")
    page.click("main a[href^='#review/']")
    page.wait_for_selector("pre.review mark")
    assert [m.inner_text() for m in page.query_selector_all("pre.review mark")] == list(UNITS)
    text = page.inner_text("pre.review")
    assert REVIEW_P1["summary"] in text and HOSTILE in text  # the review, hostile part included, as text
    assert page.evaluate("window.__pwned") is None


def test_a_system_run_is_its_chain_of_steps(viewer_site, viewer_lake, page):
    _, base = viewer_site
    go(page, base + "#systems")
    page.click("main a[href^='#system/']")
    page.wait_for_selector("main h3")
    cells = [[td.inner_text() for td in tr.query_selector_all("td")] for tr in page.query_selector_all("main table")[1]
             .query_selector_all("tr")[1:]]
    assert [(c[0], c[1], c[4]) for c in cells] == [("1", "draft", viewer_lake.calls["draft"]),
                                                    ("2", "refine", viewer_lake.calls["refine"])]
    page.click(f"a[href='#call/{viewer_lake.calls['refine']}']")
    page.wait_for_selector("pre.response")
    assert json.loads(page.inner_text("pre.response")) == {"step": "refine"}


def test_a_page_set_written_whole_opens_from_disk(viewer_lake, tmp_path, page):
    site = Site(tmp_path, Lake(viewer_lake.root), viewer_lake.db)
    site.write_lists()
    assert site.write_all() == 6 + 1 + 1  # every call, the review, the system run
    page.goto((tmp_path / "viewer" / "index.html").as_uri() + "#call/" + quote(viewer_lake.calls["hostile"]))
    page.wait_for_selector("pre.response")
    assert "<script>" in page.inner_text("pre.response") and page.evaluate("window.__pwned") is None
    assert page.errors == []


def test_the_shared_folders_front_door_keeps_a_link_to_one_call(cli_share, viewer_lake, page):
    # `view --out DIR` writes DIR/index.html, the address people share: a link to DIR/index.html#call/ID
    # must open that call, not the list (a meta refresh alone drops the #fragment)
    page.goto(cli_share.as_uri() + "#call/" + quote(viewer_lake.calls["P2"]))
    page.wait_for_selector("pre.response")
    assert viewer_lake.calls["P2"] in page.inner_text("h2") and page.url.endswith(quote(viewer_lake.calls["P2"]))
    assert page.errors == []
