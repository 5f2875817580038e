"""The revision crossover's pure parts: the [revision] table, the Writer's and Selector's answers
and their validators, block diffs, the final manuscript and the structural checks (seed §6.1, F.5)."""

import dataclasses

import pytest

from peerlake.ingest.package import ManuscriptPackage, TextRecord
from peerlake.reviewing.revision.manuscript import (
    Edit,
    diffs_of,
    editable_records,
    final_package,
    package_sha,
    protected_ids,
    structural_checks,
)
from peerlake.reviewing.revision.roles import (
    RoleAnswerError,
    parse_decisions,
    parse_edits,
    selector_request,
    writer_request,
)
from peerlake.reviewing.revision.spec import RevisionSpec, RevisionSpecError
from peerlake.studies import StudyError, parse_study

MODELS = {"L": {"provider": "local", "model": "big"}, "H": {"provider": "local", "model": "small"}}


def package() -> ManuscriptPackage:
    records = [TextRecord("r0", 1, "page_marker", ""), TextRecord("r1", 1, "title", "A Title", part="front"),
               TextRecord("r2", 1, "paragraph", "We propose a method that works.", part="front"),
               TextRecord("r3", 1, "image", "", image_sha256="ab" * 32),
               TextRecord("r4", 2, "paragraph", "Results improve by 3 points."),
               TextRecord("r5", 2, "reference", "[1] Someone. A paper. 2020.", part="references"),
               TextRecord("r6", 3, "paragraph", "An appendix paragraph.", part="appendix")]
    return ManuscriptPackage(pdf_sha256="p" * 64, title="A Title", n_pages=3,
                             n_chars=sum(len(r.text) for r in records), records=records, extractor="test",
                             images=[{"sha256": "ab" * 32, "ext": "png", "width": 1, "height": 1, "pages": [1]}])


def spec(**over) -> RevisionSpec:
    return RevisionSpec.from_table({"cells": ["LLL", "LHH"], "models": MODELS, **over})


def test_the_table_names_roles_cells_and_checks_them():
    s = spec()
    assert s.conditions == [("L", "L"), ("L", "H")] and s.writers == ["L"] and s.scorers == ["L", "H"]
    assert s.scorer_config("H").model == "small" and s.scorer_config("H").samples == 3
    assert s.feedback_letter("L") == "L" and spec(feedback="H").feedback_letter("L") == "H"
    for bad, match in (({"cells": ["LXL"]}, "three letters"), ({"cells": ["LL"]}, "three letters"),
                       ({"repeats": 1}, "two scores per side"), ({"feedback": "X"}, "feedback"),
                       ({"editable_kinds": ["image"]}, "editable_kinds"), ({"typo": 1}, "unknown keys"),
                       ({"models": {"L": {"provider": "local", "model": "m"},
                                    "H": {"provider": "local", "model": "m"}}}, "same model")):
        with pytest.raises(RevisionSpecError, match=match):
            spec(**bad)
    # a setting that decides the Writer's edits changes the identity; the cells and repeats do not
    assert spec(max_edits=2).identity != s.identity
    assert spec(cells=["LLL"], repeats=5).identity == s.identity


def test_a_study_file_refuses_a_bad_revision_table_at_parse():
    text = '[papers]\ncorpus = "demo"\n[revision]\ncells = ["LLZ"]\n[revision.models.L]\nmodel = "m"\n'
    with pytest.raises(StudyError, match="cell 'LLZ'"):
        parse_study("s", text)


def test_the_writer_sees_editable_body_records_within_the_budget():
    pkg = package()
    # the title, page marker, image, reference and appendix records are never editable
    assert [r.id for r in editable_records(pkg, ("paragraph",), 0)] == ["r2", "r4"]
    # 31 characters fit a 40-character budget, the next record would not (the first always goes in)
    assert [r.id for r in editable_records(pkg, ("paragraph",), 40)] == ["r2"]
    assert [r.id for r in editable_records(pkg, ("paragraph",), 5)] == ["r2"]
    assert protected_ids(pkg, editable_records(pkg, ("paragraph",), 0)) == {"r0", "r1", "r3", "r5", "r6"}


def test_writer_answers_are_validated():
    ok = parse_edits({"edits": [{"record_id": "r4", "new_text": "x"}]}, {"r2", "r4"}, {f"r{i}" for i in range(7)}, 3)
    assert ok == [Edit("r4", "x")]
    known = {f"r{i}" for i in range(7)}
    for answer, reason in (({"edits": [{"record_id": "r9", "new_text": "x"}]}, "writer_unknown_record"),
                           ({"edits": [{"record_id": "r1", "new_text": "x"}]}, "writer_protected_record"),
                           ({"edits": [{"record_id": "r2", "new_text": "x"}, {"record_id": "r2", "new_text": "y"}]},
                            "writer_duplicate_record"),
                           ({"edits": [{"record_id": "r2", "new_text": "x"}, {"record_id": "r4", "new_text": "y"}]},
                            "writer_too_many_edits"),
                           ({"edit": []}, "writer_unparseable"), (None, "writer_unparseable")):
        with pytest.raises(RoleAnswerError) as err:
            parse_edits(answer, {"r2", "r4"}, known, 1)
        assert err.value.reason == reason


def test_diffs_skip_unchanged_text_and_number_in_reading_order():
    pkg = package()
    diffs = diffs_of(pkg, [Edit("r4", "Results improve by 3 points on two benchmarks."),
                           Edit("r2", "  We propose   a method that works. ")])  # whitespace only: no diff
    assert [(d.diff_id, d.record_id, d.page) for d in diffs] == [("d0001", "r4", 2)]
    assert diffs[0].original == "Results improve by 3 points."


def test_selector_answers_are_validated_and_long_reasons_cut_and_recorded():
    diffs = diffs_of(package(), [Edit("r2", "We propose a method."), Edit("r4", "Results improve.")])
    got = parse_decisions({"decisions": [
        {"diff_id": "d0002", "accept": False, "reason": "changes a number's context"},
        {"diff_id": "d0001", "accept": True, "reason": "x" * 40}]}, diffs, 32)
    # returned in diff order; the 40-character reason is cut to 32 and the cut recorded
    assert [(d["diff_id"], d["accept"], len(d["reason"]), d["reason_truncated"]) for d in got] == [
        ("d0001", True, 32, True), ("d0002", False, 26, False)]
    for answer, reason in (({"decisions": [{"diff_id": "d0001", "accept": True, "reason": ""}]},
                            "selector_missing_decision"),
                           ({"decisions": [{"diff_id": "d0001", "accept": True, "reason": ""},
                                           {"diff_id": "d0001", "accept": False, "reason": ""},
                                           {"diff_id": "d0002", "accept": True, "reason": ""}]},
                            "selector_duplicate_decision"),
                           ({"decisions": [{"diff_id": "d0009", "accept": True, "reason": ""}]},
                            "selector_unknown_diff"),
                           ({"decisions": [{"diff_id": "d0001", "accept": "yes", "reason": ""}]},
                            "selector_unparseable")):
        with pytest.raises(RoleAnswerError) as err:
            parse_decisions(answer, diffs, 32)
        assert err.value.reason == reason


def test_final_manuscript_takes_only_accepted_diffs_and_passes_the_checks():
    pkg = package()
    diffs = diffs_of(pkg, [Edit("r2", "We propose a method."), Edit("r4", "Results improve.")])
    final = final_package(pkg, diffs, {"d0002"})
    assert [r.text for r in final.records][2] == "We propose a method that works."  # rejected: unchanged
    assert final.records[4].text == "Results improve." and final.n_chars == pkg.n_chars - 12
    protected = protected_ids(pkg, editable_records(pkg, ("paragraph",), 0))
    checks = structural_checks(pkg, final, {"r4"}, protected, lambda sha: True)
    assert all(c["passed"] for c in checks.values()), checks
    # nothing accepted: the final package is the original, byte for byte
    assert package_sha(final_package(pkg, diffs, set())) == package_sha(pkg)


def test_structural_checks_catch_what_a_final_must_not_change():
    pkg = package()
    protected = {"r0", "r1", "r3", "r5", "r6"}
    cases = {
        "protected_text": dataclasses.replace(pkg, records=[dataclasses.replace(r, text="New title") if r.id == "r1"
                                                            else r for r in pkg.records]),
        "record_order": dataclasses.replace(pkg, records=pkg.records[::-1]),
        "non_text_fields": dataclasses.replace(pkg, records=[dataclasses.replace(r, page=9) if r.id == "r4" else r
                                                             for r in pkg.records]),
        "only_accepted_changed": dataclasses.replace(pkg, records=[dataclasses.replace(r, text="other")
                                                                   if r.id == "r2" else r for r in pkg.records]),
        "image_index": dataclasses.replace(pkg, images=[]),
    }
    for check, final in cases.items():
        checks = structural_checks(pkg, final, set(), protected, lambda sha: True)
        assert not checks[check]["passed"], check
    # an image whose stored bytes no longer hash to its name fails the re-hash
    checks = structural_checks(pkg, pkg, set(), protected, lambda sha: False)
    assert not checks["image_hashes"]["passed"] and "1 of 1 images" in checks["image_hashes"]["detail"]


def test_requests_narrow_their_schemas_to_this_paper():
    s = spec(max_edits=2)
    pkg = package()
    editable = editable_records(pkg, s.editable_kinds, 0)
    req = writer_request("p1", "A Title", editable, "concerns: too vague", s.model("L"), s)
    items = req.response_schema["properties"]["edits"]
    assert items["maxItems"] == 2 and items["items"]["properties"]["record_id"]["enum"] == ["r2", "r4"]
    assert "[r4 p2] Results improve by 3 points." in req.messages[-1]["content"]
    diffs = diffs_of(pkg, [Edit("r2", "We propose a method.")])
    a = selector_request("p1", "A Title", "text", diffs, s.model("L"), s, writer="L")
    b = selector_request("p1", "A Title", "text", diffs, s.model("L"), s, writer="H")
    dec = a.response_schema["properties"]["decisions"]
    assert dec["minItems"] == dec["maxItems"] == 1 and dec["items"]["properties"]["diff_id"]["enum"] == ["d0001"]
    # the same diffs from two Writers are two questions: different request keys
    assert a.request_key != b.request_key
