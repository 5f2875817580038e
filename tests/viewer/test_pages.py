"""The viewer's page writer without a browser: the call index of 100,000 calls cut into chunks (each
chunk's facets true of its rows), data made inert inside <script>, file names from events refused
unless plain, the server refusing everything but the viewer and the report pages, the report's audit
keys linked to the viewer and read back, and what the viewer lake's pages hold."""

import json
import re
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest

from peerlake.report.audit_links import audit_block
from peerlake.report.viewer import payload
from peerlake.report.viewer.catalog import NotPublished, load_catalog
from peerlake.report.viewer.details import call_detail
from peerlake.report.viewer.index import CHUNK, chunk_facets, chunks, meta
from peerlake.report.viewer.keys import linked_keys
from peerlake.report.viewer.serve import start
from peerlake.report.viewer.site import Site
from peerlake.warehouse import EventLog, Lake
from peerlake.warehouse.blobs import blob_store
from tests.viewer.viewer_lake import HOSTILE, REVIEW_P1, UNITS

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def synthetic_rows(n: int) -> list[dict]:
    """n index rows, newest first, over 7 studies, 3 models and two statuses."""
    return [{"id": f"C{n - i:06d}", "at": (T0 + timedelta(seconds=n - i)).isoformat(), "purpose": "review",
             "step": None, "paper": f"P{i % 977}", "sample": i % 3, "cfgs": [f"cfg{i % 5}"],
             "model": f"openai/m{i % 3}", "status": "error" if i % 101 == 0 else "ok", "paid": f"s{i % 7}",
             "replayed": [] if i % 2 else ["later"]} for i in range(n)]


def test_100000_calls_are_cut_into_chunks_of_500_in_order():
    rows = synthetic_rows(100_000)
    parts = chunks(rows)
    assert CHUNK == 500 and len(parts) == 200 and {len(p) for p in parts} == {500}
    assert [r["id"] for p in parts for r in p] == [r["id"] for r in rows]  # nothing lost, reordered or repeated
    assert chunks(rows[:1001]) and [len(p) for p in chunks(rows[:1001])] == [500, 500, 1]


def test_each_chunks_facets_hold_exactly_the_values_of_its_rows():
    rows = synthetic_rows(2_000)
    for part, facets in zip(chunks(rows), [chunk_facets(p) for p in chunks(rows)], strict=True):
        assert facets["status"] == sorted({r["status"] for r in part})
        assert facets["paid"] == sorted({r["paid"] for r in part} | {"later"})  # a replaying study counts too
        assert facets["model"] == ["openai/m0", "openai/m1", "openai/m2"]


def test_the_written_index_is_200_files_and_a_small_meta(tmp_path):
    rows = synthetic_rows(100_000)
    for k, part in enumerate(chunks(rows)):
        payload.write(tmp_path, "index", str(k), part)
    files = sorted((tmp_path / "data" / "index").glob("*.js"))
    assert len(files) == 200
    assert max(f.stat().st_size for f in files) < 200_000  # one chunk is one small fetch

    class Cat:  # the two attributes meta() reads
        study, calls, judgments, systems = None, {}, [], []
    m = meta(Cat(), rows)
    assert m["n_calls"] == 100_000 and len(m["chunks"]) == 200 and len(m["facets"]["paper"]) == 977


@pytest.mark.parametrize("text", ["</script><script>alert(1)</script>", "<!-- <script>", "a\u2028b\u2029c", "&amp;",
                                  "'\"`${x}`"])
def test_data_is_inert_inside_a_script_element_and_reads_back(text):
    out = payload.script("call/X", {"response": text, text: [text]})
    assert not re.search(r"[<>&\u2028\u2029]", out)
    body = out[len('PL.put("call/X",'):-len(");\n")]
    assert json.loads(body) == {"response": text, text: [text]}


@pytest.mark.parametrize("name", ["../x", "a/b", "", "a b", "x" * 81, "..", "C:x"])
def test_a_name_from_an_event_names_no_file_unless_plain(tmp_path, name):
    with pytest.raises(ValueError):
        payload.write(tmp_path, "call", name, {})
    assert not any(tmp_path.rglob("*.js"))


def test_the_report_links_each_audit_key_to_the_viewer_and_the_viewer_reads_it_back(tmp_path):
    import pandas as pd

    rows = pd.DataFrame([{"validity_id": "s|c'1|all"}, {"validity_id": "s|c 2|<b>"}])
    block = audit_block("reliability_validity", rows)
    (tmp_path / "r.html").write_text(block)
    assert linked_keys([tmp_path / "r.html"]) == ["reliability_validity:s|c 2|<b>", "reliability_validity:s|c'1|all"]
    assert "<b>" not in block  # the key is escaped in the command and quoted in the link


@pytest.fixture(scope="module")
def site(viewer_lake, tmp_path_factory):
    s = Site(tmp_path_factory.mktemp("pages"), Lake(viewer_lake.root), viewer_lake.db)
    s.write_lists()
    return s


def _data(site, kind, name):
    text = (site.viewer / "data" / kind / f"{name}.js").read_text()
    return json.loads(text[text.index(",") + 1:-3])


def test_the_viewer_lakes_index_review_and_system(site, viewer_lake):
    rows = _data(site, "index", "0")
    assert [r["id"] for r in rows][-1] == viewer_lake.calls["hostile"] and len(rows) == 6
    p2 = [r for r in rows if r["id"] == viewer_lake.calls["P2"]]
    assert p2[0]["paid"] == "a" and p2[0]["replayed"] == ["b"]
    site.ensure("review", "0")
    review = _data(site, "review", "0")
    (view,) = review["views"]
    assert [view["text"][u["start"]:u["end"]] for u in view["units"]] == list(UNITS)
    assert HOSTILE in view["text"]
    site.ensure("system", "0")
    steps = _data(site, "system", "0")["steps"]
    assert [(s["step"], s["call"]) for s in steps] == [("draft", viewer_lake.calls["draft"]),
                                                       ("refine", viewer_lake.calls["refine"])]


def test_the_server_serves_the_viewer_and_reports_only(site, viewer_lake):
    (site.root / "reports").mkdir(exist_ok=True)
    (site.root / "reports" / "x.html").write_text("report")
    (site.root / "secret.txt").write_text("not served")
    server = start(site)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        def get(path):
            with urllib.request.urlopen(base + path) as r:
                return r.status, r.read().decode()
        assert get("/reports/x.html") == (200, "report")
        status, body = get(f"/viewer/data/call/{viewer_lake.calls['judge']}.js")  # written on request
        assert status == 200 and viewer_lake.calls["judge"] in body
        for path in ("/secret.txt", "/viewer/../secret.txt", "/viewer/%2e%2e/secret.txt", "/events/",
                     "/viewer/data/call/NOSUCHCALL.js"):
            with pytest.raises(urllib.error.HTTPError) as err:
                get(path)
            assert err.value.code == 404, path
    finally:
        server.shutdown()
        server.server_close()


def test_each_answer_read_from_its_response_blob_is_the_text_the_gateway_recorded(viewer_lake):
    # the marts hold the response body's blob key, not the answer text: the viewer reads the text from the
    # body again with the provider's parser, which must give what the llm_call event recorded
    cat = load_catalog(viewer_lake.db)
    blobs = blob_store(Lake(viewer_lake.root))
    events = {e.event_id: e for e in EventLog(Lake(viewer_lake.root)).iter_events("llm_call")}
    assert set(cat.calls) == set(events)
    for call_id, event in events.items():
        detail = call_detail(cat, blobs, call_id)
        assert detail["response"] == event.response_text and detail["response_problem"] is None, call_id
    assert json.loads(call_detail(cat, blobs, viewer_lake.calls["hostile"])["response"]) == REVIEW_P1


def test_the_first_answer_of_each_request_is_found_once(viewer_lake):
    cat = load_catalog(viewer_lake.db)
    p2 = cat.calls[viewer_lake.calls["P2"]]
    assert [c.status for c in cat.by_request[p2.request_key]] == ["error", "ok"]  # the 500, then the answer
    assert cat.answer(p2.request_key) is p2 and cat.answers[p2.request_key] is p2


@pytest.mark.parametrize("setup", ["no file", "an older build"])
def test_without_published_marts_the_viewer_says_what_to_run(tmp_path, setup):
    import duckdb

    db = tmp_path / "peerlake.duckdb"
    if setup == "an older build":
        with duckdb.connect(str(db)) as con:
            con.execute("create table fct_llm_calls as select 1 as llm_call_id")
    with pytest.raises(NotPublished, match="peerlake build"):
        load_catalog(db)
