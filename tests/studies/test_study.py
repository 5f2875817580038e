"""Study files: what they accept, what they refuse (with a message that says what to change), and
which papers they resolve to, on a real event log."""

import json

import pytest

from peerlake.studies import DEMO, StudyError, default_study_text, load_study, parse_study, resolve_papers, study_text
from peerlake.warehouse import EventLog, HumanReviewImported, Lake, PaperIngested
from peerlake.warehouse.events import SampleDrawn


def _paper(pid, synthetic=False, venue="V 2026"):
    return PaperIngested(paper_id=pid, title=pid, source_uri=f"file:///{pid}.pdf", pdf_sha256="a" * 64,
                         package_sha256="b" * 64, n_pages=1, n_text_records=1, n_chars=1, venue=venue,
                         is_synthetic=synthetic)


@pytest.fixture
def log(tmp_path):
    log = EventLog(Lake(tmp_path / "lake"))
    log.append_many([_paper("demo-001", synthetic=True), _paper("a"), _paper("b"), _paper("c", venue="W 2025"),
                     HumanReviewImported(paper_id="only-reviews", review_id="r", source="t", venue="V 2026",
                                         rating=5.0, rating_scale="T:1,5,9", confidence=None, body_sha256="e" * 64)])
    yield log
    log.close()


@pytest.mark.parametrize("text, says", [
    ("[papers]\nall_ingested = true\ncolour = 1\n", "unknown key(s) papers.colour"),
    ("[papers]\n", "[papers] selects nothing"),
    ('name = "other"\n[papers]\nids = ["a"]\n', "the file says name = 'other'"),
    ("[papers]\ncorpus = \"iclr\"\n", "the only corpus is 'demo'"),
    ("[papers]\nids = [\"a\"]\n[[reviewers]]\nsamples = 0\n", "samples must be a whole number >= 1"),
    ("[papers\n", "not valid TOML"),
    # OpenAI's and Anthropic's providers never read a study's base_url: the calls would go to their API
    ('[papers]\nids = ["a"]\n[[reviewers]]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n',
     "reviewers[0].base_url is ignored by provider 'openai'; use provider = \"openai_compatible\""),
    ('[papers]\nids = ["a"]\n[judging]\nprovider = "anthropic"\nbase_url = "http://127.0.0.1:9"\n',
     "set ANTHROPIC_BASE_URL"),
    ('[papers]\nids = ["a"]\n[judging.caps]\ndepth_units = -1\n', "judging.caps.depth_units = -1"),
    ('[papers]\nids = ["a"]\n[judging.caps]\nunits = 3\n', "unknown cap(s) units"),
])
def test_a_broken_study_file_is_refused_with_what_to_change(text, says):
    with pytest.raises(StudyError) as err:
        parse_study("mine", text)
    assert says in str(err.value)


def test_written_studies_load_back_and_their_hash_is_their_version():
    text = study_text("mine", ids=["a", "b"], samples=4, external_systems=["X"])
    study = parse_study("mine", text)
    assert study.ids == ("a", "b") and study.reviewers[0].samples == 4 and study.external_systems == ("X",)
    assert parse_study("mine", study_text("mine", ids=["a", "b"], samples=5)).sha256 != study.sha256
    only_imported = parse_study("mine", study_text("mine", all_ingested=True, reviewers=False, external_systems=["X"]))
    assert only_imported.reviewers == ()


def test_all_ingested_never_includes_the_demo_corpus(log):
    res = resolve_papers(log, parse_study("mine", study_text("mine", all_ingested=True)))
    assert res.paper_ids == ["a", "b", "c", "only-reviews"]
    assert res.reviewable == ["a", "b", "c"]  # a paper known only from its reviews cannot be read


def test_selectors_are_united_and_unknown_ids_are_reported(log):
    res = resolve_papers(log, parse_study("mine", study_text("mine", ids=["a", "zzz"], venues=["W 2025"])))
    assert res.paper_ids == ["a", "c"] and res.missing == ["zzz"]


def test_the_default_study_is_the_newest_sample_once_one_is_drawn(log):
    assert "all_ingested = true" in default_study_text(log)
    for sample_id, papers in (("s1", ["a"]), ("s2", ["b", "c"])):
        log.append(SampleDrawn(sample_id=sample_id, drawn_by="t", seed=1, strata="score_bin", size=len(papers),
                               venue=None, parent_sample_id=None, quotas_json="{}", paper_ids_json=json.dumps(papers)))
    study = parse_study("default", default_study_text(log))
    assert study.sample == "latest" and not study.all_ingested
    assert resolve_papers(log, study).paper_ids == ["b", "c"]
    named = parse_study("mine", study_text("mine", sample="s1"))
    assert resolve_papers(log, named).paper_ids == ["a"]
    with pytest.raises(StudyError, match="no sample 'nope'"):
        resolve_papers(log, parse_study("mine", study_text("mine", sample="nope")))


def test_the_demo_study_is_written_on_first_use(log):
    study = load_study(log, DEMO)
    assert study.corpus == DEMO and (log.lake.root / "studies" / "demo.toml").is_file()
    with pytest.raises(FileNotFoundError, match="peerlake study new nope"):
        load_study(log, "nope")


@pytest.mark.parametrize("text, says", [
    ('judges = ["depth", "taste"]\n[papers]\nids = ["a"]\n', "unknown: taste"),
    ('judges = "depth"\n[papers]\nids = ["a"]\n', "judges must be a list"),
    ('[papers]\nids = ["a"]\n[judging]\nrepeats = 0\n', "judging.repeats must be a whole number >= 1"),
    ('[papers]\nids = ["a"]\n[judging]\nsources = ["robots"]\n', "judging.sources has robots"),
    ('[papers]\nids = ["a"]\n[judging]\nretrieval = "google"\n', "judging.retrieval = 'google'"),
    ('[papers]\nids = ["a"]\n[judging]\ntemperature = -1\n', "judging.temperature must be a number >= 0"),
    ('[papers]\nids = ["a"]\n[judging]\nvibes = 1\n', "unknown key(s) judging.vibes"),
])
def test_a_broken_judging_table_is_refused_with_what_to_change(text, says):
    with pytest.raises(StudyError) as err:
        parse_study("mine", text)
    assert says in str(err.value)


def test_judges_and_the_judging_table_round_trip_and_default_to_the_reviewer_model(monkeypatch):
    monkeypatch.setenv("PEERLAKE_PROVIDER", "openai")
    monkeypatch.delenv("PEERLAKE_MODEL", raising=False)
    text = study_text("mine", ids=["a"], judges=["flaws", "depth"],
                      judging={"papers": ["a"], "repeats": 3, "temperature": 0.5})
    study = parse_study("mine", text)
    assert study.judges == ("depth", "flaws")  # canonical order, whatever the file's
    assert study.judging.papers == ("a",) and study.judging.repeats == 3
    settings = study.judging.model_settings()
    assert (settings["provider"], settings["model"], settings["temperature"]) == ("openai", "gpt-4.1-mini", 0.5)
    # no [judging]: temperature 0 (PRISM), every source, one repeat
    plain = parse_study("p", study_text("p", ids=["a"], judges=["depth"])).judging
    assert (plain.temperature, plain.repeats, plain.sources) == (0.0, 1, ("human", "peerlake", "external"))


def test_a_lake_holding_the_old_builtin_demo_study_leaves_the_judges_to_judging_demo(log):
    from peerlake.studies import JUDGES, JUDGING_DEMO, builtin_text
    from peerlake.warehouse.studies import StudyFiles

    # the previous release's demo judged demo-001; now `peerlake run judging-demo` does
    old = study_text(DEMO, description="The bundled synthetic demo corpus (4 papers) and its human reviews.",
                     corpus=DEMO, judges=list(JUDGES),
                     judging={"papers": ["demo-001"], "peerlake_samples": 1, "human_per_paper": 1, "max_claims": 2,
                              "verify_top": 1})
    StudyFiles(log.lake).write(DEMO, old)
    assert load_study(log, DEMO).judges == () and StudyFiles(log.lake).read(DEMO) == builtin_text(DEMO)
    judging = load_study(log, JUDGING_DEMO)
    assert judging.judges == JUDGES and judging.judging.papers == ("demo-001",)
    assert [r.papers for r in judging.reviewers] == [("demo-001",)]
    # a demo study the user edited is theirs: left as it is
    edited = old.replace('judges = ["depth", "novelty", "flaws", "constructiveness"]', 'judges = ["depth"]')
    assert edited != old
    StudyFiles(log.lake).write(DEMO, edited)
    assert load_study(log, DEMO).judges == ("depth",)


def test_caps_default_by_the_judge_model_and_a_study_sets_its_own():
    from peerlake.judging.base import JudgeConfig

    text = '[papers]\nids = ["a"]\n[judging]\nmax_claims = 2\n[judging.caps]\ndepth_units = 0\nflaws = 9\n'
    spec = parse_study("mine", text).judging
    hosted = JudgeConfig(**{**spec.model_settings(), "provider": "openai", "model": "gpt-4.1"})
    assert hosted.resolved_caps() == {"depth_units": None, "flaws": 9, "flaw_raisers": None,
                                      "constructiveness_comments": None, "novelty_claims": 2}
    local = JudgeConfig(**{**spec.model_settings(), "provider": "local", "model": "m"})
    assert local.resolved_caps() == {"depth_units": None, "flaws": 9, "flaw_raisers": 6,
                                     "constructiveness_comments": 6, "novelty_claims": 2}
    # the caps are part of the judge's identity: a capped and an uncapped run never share a mart row
    plain = JudgeConfig(provider="local", model="m")
    assert plain.identity("depth", ["judge_depth_units"]) != local.identity("depth", ["judge_depth_units"])
