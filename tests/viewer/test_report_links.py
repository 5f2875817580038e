"""From a report figure to its calls, in a real browser, on the session's audit lake (tests/audit): the
report page written from its published marts links each audit key to the viewer, and the viewer's page
of that key lists the calls whose answers the row used (the call that answered sample 0 of P1 under R,
not the failed attempt before it), each opening to its request and response."""

import json
from urllib.parse import quote

import pytest

from peerlake.audit.keys import figure_id
from peerlake.report.build import write_report
from peerlake.report.viewer.serve import start, url
from peerlake.report.viewer.site import Site
from peerlake.warehouse import Lake
from tests.audit.audit_lake import review


@pytest.fixture(scope="module")
def served(audit_built, tmp_path_factory):
    lake, db, manifest, _ = audit_built
    root = tmp_path_factory.mktemp("viewer-report")
    write_report(db, root / "reports" / "test.html", study="test")
    site = Site(root, Lake(lake.root), db, manifest=lambda: manifest)
    site.write_lists()
    server = start(site)
    yield lake, url(server).replace("/viewer/index.html", "/reports/test.html"), site
    server.shutdown()
    server.server_close()


def test_a_report_figure_links_to_the_calls_behind_its_row(served, page):
    lake, report, site = served
    r = lake.configs["R"]
    fid = figure_id("fct_ai_review_scores", f"test|peerlake|P1|{r}|0")
    assert fid in site.keys.values()  # the report page links this key
    page.goto(report)
    link = f"a.calls[href$='#key/{quote(fid, safe='')}']"
    page.click(f"details.audit:has({link}) summary")  # the audit block opens, as a reader opens it
    page.click(link)
    page.wait_for_selector("#key-calls li")
    listed = [a.inner_text() for a in page.query_selector_all("#key-calls a")]
    assert listed == [lake.calls[("R", "P1", 0)].event_id]
    page.click("#key-calls a")
    page.wait_for_selector("pre.response")
    assert json.loads(page.inner_text("pre.response")) == json.loads(review(4))
    assert page.errors == []
