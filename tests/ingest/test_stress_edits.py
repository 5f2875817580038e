"""Each stress edit does what it says on the demo corpus's real packages (extracted from the PDFs in the
repository), and nothing else: a removed table is gone with its caption and citing sentence and every
other record is as it was; the over-claim is in the abstract only; the significance claim names two
values of one table row whose intervals overlap; typos never touch a digit; the prestige block is on
page 1 and nowhere else. A paper whose structure an edit needs gets "not built: why", and the same
seed makes the same variant."""

import dataclasses
import random
import re
from pathlib import Path

import pytest

from peerlake.ingest.extraction import extract_package
from peerlake.ingest.package import ManuscriptPackage, TextRecord
from peerlake.ingest.stress import EDITS, MODEL_EDITS, apply_edit, edit_seed
from peerlake.ingest.stress.cues import AUTHOR_BLOCKS, NOTE
from peerlake.ingest.stress.soundness import OVERCLAIMS

DEMO = Path(__file__).resolve().parents[2] / "ingest" / "demo_corpus" / "papers"
DETERMINISTIC = [e for e in EDITS if e not in MODEL_EDITS]


@pytest.fixture(scope="module")
def demo() -> dict[str, ManuscriptPackage]:
    return {p.stem: extract_package(p.read_bytes())[0] for p in sorted(DEMO.glob("*.pdf"))}


def _texts(package: ManuscriptPackage) -> dict[str, str]:
    return {r.id: r.text for r in package.records}


def test_remove_main_table_takes_the_table_its_caption_and_citing_sentence_and_nothing_else(demo):
    base = demo["demo-001"]
    before = _texts(base)
    # what the PDF shows (ingest/demo_corpus/sources/demo-001.md): the table, "Table 1: Test accuracy …"
    # below it, and a paragraph that is only "Table 1 shows the accuracy of GRA on each dataset."
    table = next(i for i, t in before.items() if "Product reviews" in t and "93.4" in t)
    caption = next(i for i, t in before.items() if t.startswith("Table 1: Test accuracy"))
    citing = next(i for i, t in before.items() if t == "Table 1 shows the accuracy of GRA on each dataset.")
    out = apply_edit("remove_main_table", base, 1)
    assert out.reason is None and out.params["label"] == "Table 1"
    after = _texts(out.package)
    assert set(before) - set(after) == {table, caption, citing}
    assert {i: t for i, t in before.items() if i not in {table, caption, citing}} == after
    assert not any("93.4" in t or "Table 1" in t for t in after.values())
    assert "These numbers are high" in out.package.review_text(100_000)  # the claims stay; their evidence is gone
    assert out.package.n_chars == sum(len(t) for t in after.values())
    assert "removed" in out.problem and "Table 1" in out.problem


def test_the_main_table_is_the_one_with_the_most_numbers(demo):
    base = demo["demo-003"]
    out = apply_edit("remove_main_table", base, 1)
    # 5 rows × 4 methods, each "mean ± sd" (2 numbers), and the rows' own rates: 45 numbers
    assert out.params["n_numbers"] == 45 and out.params["sentences_removed"] == 0
    assert not any("±" in r.text for r in out.package.records if r.kind == "preformatted")


def test_overclaim_is_in_the_abstract_only(demo):
    for name, base in demo.items():
        out = apply_edit("overclaim_abstract", base, 7)
        sentence = out.params["sentence"]
        assert sentence in [s for s, _ in OVERCLAIMS]
        holders = [r for r in out.package.records if sentence in r.text]
        assert len(holders) == 1 and holders[0].section == "Abstract" and holders[0].part == "front", name
        original = _texts(base)[holders[0].id]
        assert holders[0].text == f"{original} {sentence}"
        assert {i: t for i, t in _texts(out.package).items() if i != holders[0].id} == \
            {i: t for i, t in _texts(base).items() if i != holders[0].id}


def test_significance_claim_on_two_overlapping_intervals_of_one_row(demo):
    base = demo["demo-003"]
    out = apply_edit("significance_overlap", base, 3)
    p = out.params
    # the two values, read back from the claimed sentence, are on one row of Table 1 and overlap
    (hm, hs), (lm, ls) = (map(float, re.match(r"([\d.]+) ± ([\d.]+)", p[k]).groups())
                          for k in ("higher_value", "lower_value"))
    row = next(line for line in _texts(base)[p["table_record_id"]].splitlines() if line.startswith(p["row"]))
    assert p["higher_value"] in row and p["lower_value"] in row
    assert hm > lm and hm - hs <= lm + ls
    claimed = [r for r in out.package.records if "statistically significant" in r.text]
    assert len(claimed) == 1 and claimed[0].section == "3 Results" and claimed[0].text.endswith(p["sentence"])
    # no demo paper but demo-003 reports ± intervals
    assert apply_edit("significance_overlap", demo["demo-001"], 3).reason == "no_overlapping_intervals"


def test_typos_never_touch_a_number(demo):
    for name, base in demo.items():
        for seed in range(5):
            out = apply_edit("typos", base, seed)
            assert out.params["words_changed"] >= 1
            before = _texts(base)
            changed = 0
            for r in out.package.records:
                old = before[r.id]
                assert len(old) == len(r.text)
                for a, b in zip(old, r.text, strict=True):
                    if a != b:
                        changed += 1
                        assert a.isalpha() and b.isalpha(), (name, r.id)
                # digits stay in place: every number, and every word with a digit in it, unchanged
                assert re.findall(r"\S*\d\S*", old) == re.findall(r"\S*\d\S*", r.text)
            assert changed == 2 * out.params["words_changed"]  # each typo swaps two letters


def test_prestige_block_is_on_page_one_and_nowhere_else(demo):
    for name, base in demo.items():
        out = apply_edit("prestige_authors", base, 11)
        names = AUTHOR_BLOCKS[out.params["block"]][0]
        holders = [r for r in out.package.records if any(n in r.text for n in names)]
        assert [(r.page, r.part) for r in holders] == [(1, "front")], name
        text = out.package.review_text(100_000)  # what a reviewer reads: once, before page 2 starts
        assert all(text.count(n) == 1 and text.index(n) < text.index("[page 2]") for n in names)
        assert not any(n in base.review_text(100_000) for n in names)  # the anonymous original is the control


def test_note_to_reviewers_is_visible_once_at_the_end_of_the_body(demo):
    base = demo["demo-004"]
    out = apply_edit("note_to_reviewers", base, 0)
    text = out.package.review_text(100_000)
    assert text.count(NOTE) == 1 and text.index(NOTE) < text.index("References")
    assert text.index("SSE reduces the cost") < text.index(NOTE)  # after the conclusion


def test_presentation_edits_keep_every_number_and_citation(demo):
    marker = re.compile(r"\d+(?:\.\d+)?|\[\d+\]")
    for name, base in demo.items():
        for edit in ("padding", "hype", "typos", "reorder_related_work"):
            out = apply_edit(edit, base, 5)
            if out.package is None:
                assert out.reason in ("no_hype_target", "no_related_work_section"), (name, edit, out.reason)
                continue
            assert sorted(marker.findall(base.review_text(100_000))) == \
                sorted(marker.findall(out.package.review_text(100_000))), (name, edit)


def test_hype_only_adds_adjectives_and_reorder_only_moves(demo):
    base = demo["demo-001"]
    out = apply_edit("hype", base, 2)
    for a in out.params["adjectives"]:
        assert f"{a['adjective']} {a['before']}" in _texts(out.package)[a["record_id"]]
    stripped = {i: re.sub(r" (?:" + "|".join(a["adjective"] for a in out.params["adjectives"]) + r")\b", "", t)
                for i, t in _texts(out.package).items()}
    assert stripped == _texts(base)
    moved = apply_edit("reorder_related_work", base, 2)
    (rid,) = [i for i, t in _texts(moved.package).items() if t != _texts(base)[i]]
    assert sorted(moved.package.records[[r.id for r in moved.package.records].index(rid)].text.split()) == \
        sorted(_texts(base)[rid].split())


def test_the_same_seed_makes_the_same_variant_and_papers_get_their_own(demo):
    base = demo["demo-001"]
    for edit in DETERMINISTIC:
        a, b = apply_edit(edit, base, 99), apply_edit(edit, base, 99)
        assert (a.reason, a.params) == (b.reason, b.params)
        assert (a.package.to_json() if a.package else None) == (b.package.to_json() if b.package else None)
    seeds = {edit_seed(p.pdf_sha256, "cfg", "typos") for p in demo.values()}
    assert len(seeds) == len(demo) and edit_seed("x", "cfg", "typos") != edit_seed("x", "cfg", "hype")


def _package(*records: TextRecord) -> ManuscriptPackage:
    return ManuscriptPackage(pdf_sha256="0" * 64, title="T", n_pages=2, n_chars=sum(len(r.text) for r in records),
                             records=list(records), extractor="test")


def test_ablation_section_and_its_subsections_go_and_nothing_else():
    recs = [TextRecord("p1-r0", 1, "title", "A paper"),
            TextRecord("p1-r1", 1, "heading", "4 Results", section="4 Results"),
            TextRecord("p1-r2", 1, "paragraph", "We win by 2.0 points.", section="4 Results"),
            TextRecord("p1-r3", 1, "heading", "5 Ablation Study", section="5 Ablation Study"),
            TextRecord("p1-r4", 1, "paragraph", "Without the gate we lose 1.1 points.", section="5 Ablation Study"),
            TextRecord("p2-r0", 2, "page_marker", "[page 2]", section="5 Ablation Study"),
            TextRecord("p2-r1", 2, "heading", "5.1 Gate bias", section="5.1 Gate bias"),
            TextRecord("p2-r2", 2, "paragraph", "A bias of -2 is best.", section="5.1 Gate bias"),
            TextRecord("p2-r3", 2, "heading", "6 Conclusion", section="6 Conclusion"),
            TextRecord("p2-r4", 2, "paragraph", "Gates help.", section="6 Conclusion")]
    out = apply_edit("remove_ablation", _package(*recs), 0)
    assert [r.id for r in out.package.records] == ["p1-r0", "p1-r1", "p1-r2", "p2-r0", "p2-r3", "p2-r4"]
    assert out.params["heading"] == "5 Ablation Study" and "ablation" in out.problem


@pytest.mark.parametrize("edit, reason", [
    ("remove_main_table", "no_table"), ("remove_ablation", "no_ablation_section"),
    ("overclaim_abstract", "no_abstract"), ("significance_overlap", "no_overlapping_intervals"),
    ("padding", "no_body_text"), ("hype", "no_hype_target"), ("typos", "no_words"),
    ("reorder_related_work", "no_related_work_section"), ("prestige_authors", "no_first_page"),
    ("note_to_reviewers", "no_body_text")])
def test_an_empty_package_is_not_built_with_the_reason(edit, reason):
    out = apply_edit(edit, _package(), 0)
    assert out.package is None and out.reason == reason


def test_hostile_shapes_are_not_built_or_edited_never_a_crash(demo):
    """Odd but valid packages: a table of words only, a caption naming no table, a related-work section of
    one sentence, records with no section; and an abstract that anonymization removed is not edited."""
    recs = [TextRecord("p1-r0", 1, "title", "T"),
            TextRecord("p1-r1", 1, "heading", "Abstract", part="front", section="Abstract"),
            TextRecord("p1-r2", 1, "paragraph", "We study things.", part="front", section="Abstract"),
            TextRecord("p1-r3", 1, "table", "a b c\nd e f", section=None),
            TextRecord("p1-r4", 1, "caption", "Table: none", section=None),
            TextRecord("p1-r5", 1, "heading", "2 Related Work", section="2 Related Work"),
            TextRecord("p1-r6", 1, "paragraph", "Others did this [1].", section="2 Related Work")]
    pkg = dataclasses.replace(_package(*recs), removed=[{"record_id": "p1-r2", "reason": "test", "text": "x"}])
    assert apply_edit("remove_main_table", pkg, 0).reason == "no_table"
    assert apply_edit("overclaim_abstract", pkg, 0).reason == "no_abstract"
    assert apply_edit("reorder_related_work", pkg, 0).reason == "related_work_too_short"
    for edit in DETERMINISTIC:
        out = apply_edit(edit, pkg, random.Random(edit).randrange(1000))
        assert (out.package is None) == (out.reason is not None), edit
