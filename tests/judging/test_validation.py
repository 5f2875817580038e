"""Judge validation end to end without Dagster: a SubstanReview line imported, the study
`peerlake validate-judges` writes, the real depth judge (answers scripted at the network edge) on the
imported review, and the mart -- so the import's span offsets and the judge's unit offsets meet in dbt."""

import json

import duckdb
import pytest
from typer.testing import CliRunner

from peerlake.commands.validate import STUDY, study_file
from peerlake.ingest.substanreview import import_substanreview, imported_paper_ids
from peerlake.judging import depth
from peerlake.judging.reviews import external_reviews
from peerlake.studies import load_study, record_resolution, save_study
from tests.dbt.test_judge_validation import build_validation_mart
from tests.judging.support import JUDGE_MODEL, record

CLAIM_A = "The paper is clear."
CLAIM_B = "The proofs are missing"  # 22 characters
PREMISE = "Lemma 2 has no proof."  # 21 characters
REVIEW = f"  {CLAIM_A} {CLAIM_B}, e.g. {PREMISE}  \n"  # leading and trailing whitespace, as SubstanReview's
UNIT_B = f"{CLAIM_B}, e.g. {PREMISE}"  # 22 + 7 + 21 = 50 characters


def _span(words: str, label: str) -> list:
    at = REVIEW.index(words)
    return [at, at + len(words), label]


def _dataset(tmp_path):
    folder = tmp_path / "substanreview" / "annotation_final"
    folder.mkdir(parents=True)
    line = {"id": 11, "review": REVIEW, "label": [_span(CLAIM_A, "Eval_pos_1"), _span(CLAIM_B, "Eval_neg_2"),
                                                  _span(PREMISE, "Jus_neg_2")]}
    (folder / "test.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return tmp_path / "substanreview"


def test_the_study_judges_only_the_imported_reviews_with_depth(judge_log):
    study = save_study(judge_log, STUDY, study_file(["substanreview-1", "substanreview-2"]))
    loaded = load_study(judge_log, STUDY)
    assert study.is_file()
    assert (loaded.judges, loaded.reviewers, loaded.external_systems, loaded.ids) == (
        ("depth",), (), ("substanreview",), ("substanreview-1", "substanreview-2"))
    assert loaded.judging.sources == ("external",)


def test_depth_units_scored_against_the_imported_spans(judge_log, judge_server, make_judge_ctx, tmp_path):
    outcomes = import_substanreview(judge_log, _dataset(tmp_path), "test")
    paper_ids = imported_paper_ids(outcomes)
    save_study(judge_log, STUDY, study_file(paper_ids, provider="openai", model=JUDGE_MODEL))
    study = load_study(judge_log, STUDY)
    reviews = external_reviews(judge_log, paper_ids, study.external_systems)
    assert [r.review_key for r in reviews] == ["external:substanreview:11"]

    judge_server.answer("judge_depth_units", CLAIM_A, reply={"units": [CLAIM_A, UNIT_B]})
    judge_server.answer("judge_depth_labels", CLAIM_A, reply={"labels": [
        {"unit": 1, "role": "claim", "aspect": "clarity"}, {"unit": 2, "role": "premise", "aspect": "soundness"}]})
    judge_server.answer("judge_depth_grounding", PREMISE, reply={"grounding": [{"premise": 1, "score": 2}]})
    ctx = make_judge_ctx(depth, study=STUDY)
    record(ctx, depth, depth.judge(ctx, reviews))
    # what the judgments asset records after its judges ran: the reviews the depth judge covered
    record_resolution(judge_log, study, paper_ids, [], asset="judgments", judges=[
        {"judge": "depth", "judge_config": ctx.judge_config, "provider": "openai", "model": JUDGE_MODEL,
         "repeats": 1, "review_keys": [r.review_key for r in reviews]}])
    judge_log.seal()

    db = build_validation_mart(judge_log.lake.root, tmp_path)
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute("select * from quality_judge_validation")
        cols = [d[0] for d in cur.description]
        [row] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    assert (row["study_id"], row["judge_model"], row["dataset_split"]) == (STUDY, JUDGE_MODEL, "test")
    assert (row["n_reviews"], row["n_gold_spans"], row["n_units"]) == (1, 3, 2)
    # unit 0 is exactly CLAIM_A (IoU 1); unit 1 holds CLAIM_B (IoU 22/50 = 0.44) and PREMISE (21/50 = 0.42),
    # both below 0.5. IoU: units 1/2, gold 1/3, F1 = 2 (1/2)(1/3) / (5/6) = 0.4. Overlap: 2/2 and 3/3.
    assert (row["span_precision_iou"], row["span_recall_iou"]) == (pytest.approx(1 / 2), pytest.approx(1 / 3))
    assert row["span_f1_iou"] == pytest.approx(0.4)
    assert (row["span_precision_overlap"], row["span_recall_overlap"], row["span_f1_overlap"]) == (1, 1, 1)
    # overlapping pairs: (claim, CLAIM_A claim) agree, (premise, CLAIM_B claim) not, (premise, PREMISE) agree
    assert row["role_accuracy_overlap"] == pytest.approx(2 / 3)
    assert row["role_accuracy_iou"] == pytest.approx(1.0)  # the one IoU pair agrees


def test_the_command_stops_when_nothing_could_be_imported(lake, tmp_path):
    from peerlake.cli import app

    result = CliRunner().invoke(app, ["validate-judges", "substanreview", "--data", str(tmp_path / "nowhere")])
    assert result.exit_code == 1
    assert "REJECTED" in result.output and "nothing to judge" in result.output
    bad = CliRunner().invoke(app, ["validate-judges", "asap", "--data", str(tmp_path)])
    assert bad.exit_code == 1 and "unknown dataset 'asap'" in bad.output


def test_repeats_and_temperature_reach_the_study_for_the_cards_retest(judge_log):
    save_study(judge_log, STUDY, study_file(["substanreview-1"], repeats=2, temperature=0.7))
    judging = load_study(judge_log, STUDY).judging
    assert (judging.repeats, judging.temperature) == (2, 0.7)


def test_each_dataset_anchors_the_judges_its_mapping_names():
    from peerlake.commands.validate import ANCHORS
    from peerlake.ingest.label_mapping import load

    for dataset in ("disapere", "revutil", "reviewcritique"):
        assert set(ANCHORS[dataset]) == {d.judge for d in load(dataset).dimensions}, dataset


def test_the_study_judges_only_the_chosen_reviews_and_novelty_reads_claims_without_the_paper(judge_log):
    from peerlake.commands.validate import study_name

    keys = ["external:disapere:r1", "external:disapere:r7"]
    save_study(judge_log, study_name("disapere"), study_file(["f1", "f7"], dataset="disapere", reviews=keys))
    study = load_study(judge_log, "disapere-validation")
    assert (study.judges, study.external_systems, study.ids) == (("depth", "novelty"), ("disapere",), ("f1", "f7"))
    assert (study.judging.reviews, study.judging.claims_without_paper) == (tuple(keys), True)
    # a study that names no review judges them all, and novelty keeps its rule: no manuscript, no call
    save_study(judge_log, STUDY, study_file(["substanreview-1"]))
    judging = load_study(judge_log, STUDY).judging
    assert (judging.reviews, judging.claims_without_paper) == ((), False)


@pytest.mark.parametrize(("key", "value", "says"), [
    ("reviews", '"external:disapere:r1"', "judging.reviews must be a list of review keys"),
    ("reviews", '[""]', "judging.reviews must be a list of review keys"),
    ("claims_without_paper", '"yes"', "judging.claims_without_paper must be true or false")])
def test_a_bad_judging_key_is_refused_by_name(key, value, says):
    from peerlake.studies import StudyError
    from peerlake.studies.parse import parse_study

    text = ('name = "v"\nreviewers = []\nexternal_systems = ["disapere"]\njudges = ["novelty"]\n'
            f'[papers]\nids = ["f1"]\n[judging]\n{key} = {value}\n')
    with pytest.raises(StudyError, match=says):
        parse_study("v", text)


def test_the_embedded_model_is_said_to_test_the_machinery(capsys):
    from peerlake.commands.validate import _embedded_note
    from peerlake.warehouse.settings import LOCAL_MODEL_NAME

    _embedded_note({"revutil": [{"judge_model": "gpt-4.1"}]}, 2)
    assert capsys.readouterr().out == ""  # a hosted model's card is a card
    _embedded_note({"revutil": [{"judge_model": LOCAL_MODEL_NAME}], "disapere": []}, 2)
    out = " ".join(capsys.readouterr().out.split())
    assert f"embedded {LOCAL_MODEL_NAME}: it tests the machinery" in out
    assert "not what a judge can reach" in out and "these figures are not a judge's quality" in out
    assert "on 2 review(s) per dataset" in out


def test_all_names_each_folder_it_could_not_read_and_goes_on(lake, tmp_path):
    from peerlake.cli import app

    result = CliRunner().invoke(app, ["validate-judges", "all", "--data", str(tmp_path / "nowhere"), "--limit", "1"])
    assert result.exit_code == 1
    said = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert [line.split(":")[1].strip() for line in said] == ["substanreview", "disapere", "revutil", "reviewcritique"]
    assert f"{tmp_path / 'nowhere' / 'revutil'} is not a RevUtil folder or CSV file (give the folder holding " \
           "all_human_annotations_processed.csv)" in result.output
    assert "failed (its error is above)" in result.output  # the summary's rows
