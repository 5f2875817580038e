"""Labelling in the browser (`peerlake label`, report/viewer/label.py) in Chromium on a copy of the scripted
judge panel's lake (tests/orchestration/test_judge_panel_marts.py: the constructiveness judge on 12 reviews of 4
demo papers, 4 human and 8 by two reviewer configurations): three items labelled (one by the keyboard, one on a
span dragged with the mouse, one by a click), a reload resumes at the fourth, and the log holds exactly those
three events, the span's offsets checked against the text the judge read, computed here from that text (and
counted in code points, as Python counts, past a character JavaScript counts twice). A POST that names no item,
no label of the choices, a span outside the text or not its text, or comes from another origin, is refused and
writes nothing."""

import hashlib
import json
import shutil
import urllib.error
import urllib.request
from dataclasses import replace

import pytest

from peerlake.report.viewer.label import LabelSession, stratified
from peerlake.report.viewer.serve import start, url
from peerlake.report.viewer.site import Site
from peerlake.warehouse import EventLog, Lake
from tests import shared_lakes
from tests.orchestration.test_judge_panel_marts import STUDY
from tests.viewer.diff_lake import build_panel
from tests.viewer.test_browser import go

N = 6  # of the 12 judged reviews: 3 human, 3 by the two reviewer configurations
ITEM = "() => document.querySelector('#label-item')?.dataset.item || document.querySelector('#label-finished')?.id"


@pytest.fixture(scope="module")
def label_lake(tmp_path_factory) -> Lake:
    """A copy of the shared panel lake (read only): this test appends labels to it."""
    shared = shared_lakes.built_once(tmp_path_factory, "panel-verdict", build_panel)
    root = tmp_path_factory.mktemp("label-lake") / "lake"
    shutil.copytree(shared, root)
    return Lake(root)


def serve(lake: Lake, folder, annotator: str):
    site = Site(folder, lake, lake.duckdb_path, STUDY)
    site.label = LabelSession(site.reviews, site.log, STUDY, "constructiveness", annotator, N, "actionability")
    site.write_lists()
    return site, start(site)


@pytest.fixture(scope="module")
def label_site(label_lake, tmp_path_factory):
    site, server = serve(label_lake, tmp_path_factory.mktemp("label-site"), "ann-a")
    yield site, url(server) + "#label"
    server.shutdown()
    server.server_close()


def entered(lake: Lake) -> list:
    return sorted(EventLog(lake).iter_events("human_label_entered"), key=lambda e: e.event_id)


def shown_item(page) -> str:
    page.wait_for_function(ITEM)
    return page.evaluate(ITEM)


def next_item(page, before: str) -> str:
    page.wait_for_function(f"() => ({ITEM})() !== {json.dumps(before)}")
    return shown_item(page)


def drag_select(page, start: int, end: int) -> None:
    """Press the mouse before character `start` of the shown text and release it after character end - 1."""
    box = page.evaluate("""([s, e]) => {
        const node = document.getElementById('label-text').firstChild, r = document.createRange();
        r.setStart(node, s); r.setEnd(node, s + 1); const a = r.getBoundingClientRect();
        r.setStart(node, e - 1); r.setEnd(node, e); const b = r.getBoundingClientRect();
        return [a.left + 1, (a.top + a.bottom) / 2, b.right - 1, (b.top + b.bottom) / 2]; }""", [start, end])
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, steps=4)
    page.mouse.move(box[2], box[3], steps=4)
    page.mouse.up()


def test_three_labels_a_reload_resumes_and_the_log_holds_exactly_them(label_site, label_lake, page):
    site, base = label_site
    session = site.label
    order = list(session.items)  # the sample, in the order the page walks it
    assert len(order) == N and sum(k.startswith("human:") for k in order) == N // 2
    assert entered(label_lake) == []

    go(page, base)
    first = shown_item(page)
    assert first == order[0]
    assert page.inner_text("#label-text") == session.items[first].text
    assert page.query_selector("#label-text mark") is None  # blind: no unit of the judge's shown
    page.keyboard.press("1")  # the first choice, rating 0

    second = next_item(page, first)
    assert second == order[1]
    text = session.items[second].text
    # the span: the second line's first three words, found here in the text the judge read
    line = text.index("\n") + 1 if "\n" in text.strip() else 0
    while text[line].isspace():
        line += 1
    words = text[line:].split()[:3]
    start, end = line, line + len(" ".join(words))
    assert text[start:end] == " ".join(words)
    drag_select(page, start, end)
    assert page.inner_text("#label-span").startswith(f"span {start}–{end}")
    page.click("#label-choices button[data-label='2']")

    third = next_item(page, second)
    page.click("#label-choices button[data-label='1']")  # the whole item, by a click
    fourth = next_item(page, third)
    assert fourth == order[3]
    assert page.inner_text("main h2 + p").find("3 of 6 done") > 0

    page.reload()  # quitting and coming back: the log says what is done
    page.wait_for_function("location.hash === '#label'")
    assert shown_item(page) == fourth
    assert page.errors == []

    events = entered(label_lake)
    got = [(e.item_key, e.label, json.loads(e.mapped_json), e.judged_start, e.judged_end, e.item_text)
           for e in events]
    assert got == [(first, "0", {"actionability": 0}, None, None, None),
                   (second, "2", {"actionability": 2}, start, end, text[start:end]),
                   (third, "1", {"actionability": 1}, None, None, None)]
    for e in events:
        assert (e.study, e.judge, e.dimension, e.annotator, e.judge_shown) == (
            STUDY, "constructiveness", "actionability", "ann-a", False)
        assert e.review_key == e.item_key and e.text_sha256 == hashlib.sha256(
            session.items[e.item_key].text.encode()).hexdigest()
    EventLog(label_lake).seal()  # into the event type's Parquet segment, which dbt reads: the same three
    assert entered(label_lake) == events


def test_offsets_count_code_points_as_python_does(label_site, page):
    # a character outside the BMP is two UTF-16 units in JavaScript, one in Python: the span after it
    _, base = label_site
    go(page, base)
    shown_item(page)
    got = page.evaluate(r"""() => {
        const box = document.getElementById('label-text'); box.textContent = 'a\u{1F600}b cd';
        const r = document.createRange(); r.setStart(box.firstChild, 3); r.setEnd(box.firstChild, 4);
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r);
        box.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
        return document.getElementById('label-span').textContent; }""")
    text = "a\U0001F600b cd"
    assert got.startswith("span 2–3") and text[2:3] == "b"


def test_with_the_judge_shown_the_page_has_its_units_and_each_label_says_so(label_site, label_lake):
    site, _ = label_site
    shown = LabelSession(site.reviews, site.log, STUDY, "constructiveness", "ann-c", N, "actionability", blind=False)
    data = shown.page()
    assert all(it["units"] and it["units"][0]["label"].startswith("actionability: ") for it in data["items"])
    assert all(it["units"] == [] for it in site.label.page()["items"])  # blind: none
    event = shown.enter(json.dumps({"item": data["items"][0]["key"], "label": "2"}).encode())
    assert event.judge_shown is True and entered(label_lake)[-1] == event


def _post(base: str, body, headers=None) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(base.split("#")[0].replace("index.html", "label"), data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def test_hostile_or_wrong_labels_are_refused_and_write_nothing(label_site, label_lake):
    site, base = label_site
    assert site.label is not None and base.startswith("http://127.0.0.1:")
    item = next(iter(site.label.items.values()))
    before = len(entered(label_lake))
    cases = [({"item": "human:nobody", "label": "1"}, 400, "no item"),
             ({"item": item.key, "label": "7"}, 400, "not a constructiveness actionability label"),
             ({"item": item.key, "label": "1", "start": 0, "end": len(item.text) + 1,
               "span": item.text}, 400, "not inside the text"),
             ({"item": item.key, "label": "1", "start": 0, "end": 3, "span": "xyz"}, 400, "not the span sent"),
             ({"item": item.key, "label": "1", "start": "0", "end": 3, "span": item.text[:3]}, 400, "integers"),
             ({"item": item.key, "label": "1", "__proto__": {}}, 400, "a label is a JSON object"),
             (b"__import__('os').system('true')", 400, "not JSON")]
    for body, status, message in cases:
        code, doc = _post(base, body)
        assert (code, message in doc.get("error", "")) == (status, True), (body, code, doc)
    code, doc = _post(base, {"item": item.key, "label": "1"}, {"Origin": "http://evil.example"})
    assert code == 403
    code, doc = _post(base, {"item": item.key, "label": "1"}, {"Content-Type": "text/plain"})
    assert code == 403
    assert len(entered(label_lake)) == before


def test_a_second_annotator_sees_every_item_again(label_site, label_lake, tmp_path):
    site, _ = label_site
    first = {e.item_key for e in entered(label_lake) if e.annotator == "ann-a"}
    other = LabelSession(site.reviews, site.log, STUDY, "constructiveness", "ann-b", N, "actionability")
    assert list(other.items) == list(site.label.items)  # the same n draws the same sample
    assert other.done() == set() and site.label.done() == first


def test_the_sample_is_half_human_and_the_systems_share_the_rest():
    from peerlake.report.viewer.label import Item

    def item(key, system):
        return Item(key, None, system, "c", "j", "t", "s", ("0",), ())

    items = [item(f"human:{i}", "human") for i in range(5)] + [item(f"peerlake:a{i}", "A") for i in range(5)]
    items += [item("peerlake:b0", "B")]
    picked = stratified(items, 6)
    assert sum(i.key.startswith("human:") for i in picked) == 3
    assert sorted(i.system for i in picked if i.system != "human") == ["A", "A", "B"]  # B short: A takes the rest
    assert [i.key for i in stratified(list(reversed(items)), 6)] == [i.key for i in picked]  # no input order
    assert len(stratified([replace(i, system="A") for i in items[5:]], 10)) == 6


def test_the_command_refuses_a_judge_it_cannot_label_before_serving(label_lake, monkeypatch):
    from typer.testing import CliRunner

    from peerlake.cli import app

    monkeypatch.setenv("PEERLAKE_HOME", str(label_lake.root))
    result = CliRunner().invoke(app, ["label", STUDY, "--judge", "flaws", "--no-open"])
    assert result.exit_code == 2 and "ReviewCritique" in result.output, result.output
    result = CliRunner().invoke(app, ["label", STUDY, "--judge", "constructiveness", "--dimension", "aspect"])
    assert result.exit_code == 2 and "actionability, specificity" in result.output, result.output


def test_the_choices_are_the_judges_own():
    from peerlake.report.viewer.label import choices

    # depth: the aspects the judgment recorded (its taxonomy, in file order), else the taxonomy it names
    assert choices("depth", "aspect", {"aspects": ["novelty", "methodology"]}) == ("novelty", "methodology")
    assert choices("depth", "aspect", {"depth_taxonomy": "prism-reference"}) == (
        "soundness", "clarity", "contribution", "other")  # prompts/taxonomies/prism-reference.toml
    assert choices("depth", "role", {}) == ("claim", "premise")
    assert choices("novelty", "stance", {}) == ("not_novel", "somewhat_novel", "novel", "unclear")
    assert choices("constructiveness", "tone", {}) == ("0", "1", "2")
