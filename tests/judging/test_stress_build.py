"""The stress suite's builder on the demo papers through the real gateway and event log, the paraphrase's
model answers scripted at the network edge: deterministic edits become text-level papers, a paraphrase
that keeps every number and passes validation is built, one that drops a number is refused naming it
(no validation call is made for it), one the validation call rejects is refused naming the section; a
paper whose package is gone gets "not built: base_unreadable" and the others go on; a rerun replays the
calls and writes nothing."""

import hashlib
import json
import re
from pathlib import Path

import pytest

from peerlake.ingest.package import load_package
from peerlake.ingest.papers import ingest_pdf, latest_versions
from peerlake.ingest.stress import EDITS
from peerlake.ingest.stress.presentation import paraphrase_sections
from peerlake.judging import stress
from peerlake.judging.stress.spec import EDITOR_VERSION, Spec
from tests.doubles.fake_server import Reply

DEMO = Path(__file__).resolve().parents[2] / "ingest" / "demo_corpus" / "papers"
PARAPHRASE, VALIDATE = "stress_paraphrase", "stress_paraphrase_validate"
# demo-001's body sections, by hand from ingest/demo_corpus/sources/demo-001.md
SECTIONS_001 = ["1 Introduction", "2 Method", "3 Experimental Setup", "4 Results", "5 Analysis of the Gates",
                "6 Related Work", "7 Conclusion"]


@pytest.fixture
def papers(judge_log):
    for stem in ("demo-001", "demo-002", "demo-003"):
        ingest_pdf(judge_log, DEMO / f"{stem}.pdf", paper_id=stem, is_synthetic=True)
    return latest_versions(judge_log)


def _script(server, log, papers, pids=("demo-001", "demo-002", "demo-003"), max_sections=2):
    """demo-001: faithful rewrites, validated; demo-002: faithful rewrites, its Introduction rejected by the
    validation call; demo-003: its Setup rewrite writes "two hundred" for 200 (a number dropped)."""
    for pid in pids:
        package = load_package(log.blobs, papers[pid].package_sha256)
        for s in paraphrase_sections(package, max_sections):
            paras = [f"Put differently: {r.text}" for r in s.records]
            if (pid, s.name) == ("demo-003", "2 Setup"):
                paras = [p.replace("for 200 epochs", "for two hundred epochs") for p in paras]
            needle = s.records[0].text[:60]
            server.answer(PARAPHRASE, f'Section "{s.name}"', needle, reply={"paragraphs": paras})
            same = (pid, s.name) != ("demo-002", "1 Introduction")
            server.answer(VALIDATE, f'Section "{s.name}"', needle,
                          reply={"rationale": "same" if same else "the rewrite drops the hedge", "same_content": same})


def _by_edit(report, base):
    return {json.loads(e.details_json)["edit"]: e for e in report.variants if e.base_paper_id == base}


def test_the_builder_records_every_edit_and_refuses_a_paraphrase_that_drops_a_number(
        judge_log, judge_server, make_judge_ctx, papers):
    _script(judge_server, judge_log, papers)
    ctx = make_judge_ctx(stress)
    spec = Spec.from_table({"edits": ["remove_main_table", "remove_ablation", "typos", "paraphrase"],
                            "paraphrase_max_sections": 2})
    report = stress.build(ctx, list(papers.values()), spec)
    assert report.papers == 3 and len(report.variants) == 12 and report.paraphrases_failed == 0
    one, two, three = (_by_edit(report, p) for p in ("demo-001", "demo-002", "demo-003"))
    assert three["paraphrase"].reason == "paraphrase_changed_numbers: 200"
    assert two["paraphrase"].reason == "paraphrase_validation_failed: 1 Introduction"
    assert one["paraphrase"].built and one["remove_main_table"].built and one["typos"].built
    assert {one["remove_ablation"].reason, two["remove_ablation"].reason} == {"no_ablation_section"}
    # the refused paraphrase made no validation call; the other two made one per section
    validated = [json.dumps(b) for b in judge_server.bodies_for(VALIDATE)]
    assert len(validated) == 4 and not any("Models and training" in b for b in validated)
    assert not judge_server.unmatched

    d = json.loads(one["paraphrase"].details_json)
    assert (d["family"], d["problem"], d["text_level"]) == ("presentation", None, True)
    assert d["params"]["sections"] == ["1 Introduction", "2 Method"]
    assert all(c["passed"] for c in d["checks"].values()) and "validated: 2 Method" in d["checks"]
    assert len(json.loads(one["paraphrase"].request_keys_json)) == 4  # 2 rewrites + 2 validations
    # a built variant is a text-level paper: its package holds the edit, its PDF is the base's
    ingested = latest_versions(judge_log)
    for e in (one["paraphrase"], one["remove_main_table"]):
        paper = ingested[e.variant_id]
        assert paper.pdf_sha256 == papers["demo-001"].pdf_sha256 and paper.is_synthetic
        assert e.variant_id.startswith("demo-001~stress-")
    text = load_package(judge_log.blobs, ingested[one["paraphrase"].variant_id].package_sha256).review_text(10**6)
    assert text.count("Put differently: ") == 5  # 1 Introduction's 3 paragraphs and 2 Method's 2
    table = json.loads(one["remove_main_table"].details_json)
    assert table["family"] == "soundness" and "Table 1" in table["problem"]

    # a rerun replays every call and writes nothing
    count, requests = judge_log.count("paper_variant"), judge_server.requests
    events = len(list(judge_log.iter_events()))
    again = stress.build(ctx, list(papers.values()), spec)
    assert [e.variant_key for e in again.variants] == [e.variant_key for e in report.variants]
    assert judge_server.requests == requests and judge_log.count("paper_variant") == count and again.new == 0
    # only the gateway's tally of the replayed calls (one calls_replayed per batch) is new
    assert {e.event_type for e in list(judge_log.iter_events())[events:]} == {"calls_replayed"}


def test_by_default_the_paraphrase_rewrites_every_body_section(judge_log, judge_server, make_judge_ctx, papers):
    _script(judge_server, judge_log, papers, pids=("demo-001",), max_sections=10**6)
    report = stress.build(make_judge_ctx(stress), [papers["demo-001"]], Spec.from_table({"edits": ["paraphrase"]}))
    (variant,) = report.variants
    assert variant.built and not judge_server.unmatched
    d = json.loads(variant.details_json)
    assert d["params"]["sections"] == SECTIONS_001 and d["params"]["sections_skipped"] == []
    assert len(judge_server.bodies_for(PARAPHRASE)) == len(judge_server.bodies_for(VALIDATE)) == len(SECTIONS_001)


def test_a_failed_paraphrase_call_records_nothing_and_a_lost_package_is_not_built(
        judge_log, judge_server, make_judge_ctx, papers):
    judge_server.answer(PARAPHRASE, "Parameter-efficient fine-tuning", reply=Reply(status=400))
    ctx = make_judge_ctx(stress)
    broken = papers["demo-002"]
    judge_log.blobs.path(broken.package_sha256).unlink()  # gone: every edit of it is not built, the rest go on
    spec = Spec.from_table({"edits": ["overclaim_abstract", "paraphrase"], "paraphrase_max_sections": 1})
    report = stress.build(ctx, [papers["demo-001"], broken], spec)
    two = _by_edit(report, "demo-002")
    assert {e.reason for e in two.values()} == {"base_unreadable: FileNotFoundError"} and len(two) == 2
    one = _by_edit(report, "demo-001")
    assert one["overclaim_abstract"].built and "paraphrase" not in one  # its call failed: retried next run
    assert report.paraphrases_failed == 1 and report.papers_unreadable == 1


@pytest.mark.parametrize("table, says", [
    ({"edits": ["typo"]}, "unknown edit(s) typo; did you mean `typos`?"),
    ({"edits": []}, "not a non-empty list of edit names"),
    ({"noise_k": 0}, "stress.noise_k: 0 is not a number above 0"),
    ({"invariance_max_noise_units": "one"}, "stress.invariance_max_noise_units"),
    ({"n_bootstrap": 10}, "stress.n_bootstrap: 10 is not a whole number of at least 100"),
    ({"paraphrase_max_sections": True}, "stress.paraphrase_max_sections"),
    ({"paraphrase_max_sections": 0}, 'paraphrase_max_sections: 0 is neither a whole number of at least 1 nor "all"'),
    ({"paraphrase_max_sections": "every"}, "stress.paraphrase_max_sections: 'every'"),
    ({"papers": "demo-001"}, "stress.papers"),
])
def test_a_bad_stress_table_is_refused_naming_the_key(table, says):
    with pytest.raises(ValueError) as err:
        Spec.from_table(table)
    assert says in str(err.value)


def test_defaults_and_what_the_variants_identity_leaves_out():
    spec = Spec.from_table({})
    assert spec.edits == tuple(EDITS) and spec.paraphrase_max_sections is None  # every body section
    assert Spec.from_table({"paraphrase_max_sections": "all"}) == spec
    assert spec.tolerances() == {"invariance_max_noise_units": 1.0, "sensitivity_min_noise_units": 1.0,
                                 "noise_k": 1.96, "n_bootstrap": 2000}
    # the tolerances and the list of edits decide verdicts and coverage, not manuscripts
    other = Spec.from_table({"edits": ["typos"], "noise_k": 3, "n_bootstrap": 500})
    assert other.experiment_config() == spec.experiment_config()
    assert Spec.from_table({"paraphrase_max_sections": 1}).experiment_config() != spec.experiment_config()
    # a study that wrote 3 (the old default) keeps its variants' identity: the hash of what it said
    ident = {"experiment": "stress", "editor": EDITOR_VERSION, "paraphrase_max_sections": 3}
    three = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
    assert Spec.from_table({"paraphrase_max_sections": 3}).experiment_config() == three != spec.experiment_config()
    assert re.fullmatch(r"[0-9a-f]{16}", spec.experiment_config())


def test_an_unknown_stress_key_is_refused_with_the_closest_known_one():
    from peerlake.studies import StudyError, parse_study
    from peerlake.studies.experiments import experiments

    study = parse_study("s", '[papers]\ncorpus = "demo"\n[stress]\nnoise_kk = 2\n')
    with pytest.raises(StudyError) as err:
        experiments(study)
    assert "[stress] has unknown key(s) noise_kk; did you mean `noise_k`? known:" in str(err.value)
    ok = parse_study("s", '[papers]\ncorpus = "demo"\n[stress]\nedits = ["typos"]\n[stress.judge]\nrepeats = 3\n'
                          '[stress.builder]\nmodel = "editor-m"\n')
    (exp,) = experiments(ok)
    assert exp.builder_spec.edits == ("typos",) and exp.judge_config(ok).repeats == 3
    assert exp.builder_config(ok).model == "editor-m" and ok.makes_variants
