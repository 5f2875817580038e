"""A study's experiment tables are checked against the keys their modules own before any call, and
each judge gets its model from its own sub-table with the study's [judging] model for the rest."""

import pytest

from peerlake.studies import StudyError, parse_study
from peerlake.studies.experiments import experiments

HEAD = '[papers]\ncorpus = "demo"\n\n[judging]\nprovider = "openai_compatible"\nmodel = "judge-m"\n'


def _study(body: str):
    return parse_study("s", HEAD + body)


def test_every_experiment_table_is_checked_and_configured():
    study = _study('[contradictions]\nseed = 3\n[contradictions.judge]\nrepeats = 2\nmodel = "other"\n'
                   '[contradictions.builder]\nmodel = "builder-m"\n'
                   '[hidden_text]\nmethods = ["white"]\n[focus]\n[score_prediction]\n[withdrawals]\n')
    found = {e.name: e for e in experiments(study)}
    assert list(found) == ["contradictions", "hidden_text", "withdrawals", "score_prediction", "focus"]
    c = found["contradictions"]
    judge = c.judge_config(study)
    # the sub-table's keys win, the study's [judging] provides the rest
    assert (judge.provider, judge.model, judge.repeats) == ("openai_compatible", "other", 2)
    builder = c.builder_config(study)
    assert (builder.model, builder.repeats) == ("builder-m", 1)
    assert c.builder_spec.seed == 3
    # a judge without a sub-table: the study's model, the module's default repeat count
    focus = found["focus"].judge_config(study)
    assert (focus.model, focus.repeats) == ("judge-m", found["focus"].judge.DEFAULT_REPEATS)
    # the focus taxonomy is part of its judge's identity, on top of templates and model
    assert found["focus"].judge_config_id(focus) != focus.identity("focus", found["focus"].judge.TEMPLATES)
    assert found["hidden_text"].builder_spec is not None and found["focus"].builder_spec is None


@pytest.mark.parametrize("body, says", [
    ("[focus]\ntaxonmy = \"x\"\n", "[focus] has unknown key(s) taxonmy; did you mean `taxonomy`? known:"),
    ("[contradictions]\nseed = \"three\"\n", "[contradictions]: contradictions.seed"),
    ("[hidden_text]\njudge = 3\n", "[hidden_text.judge] must be a table"),
])
def test_a_bad_experiment_table_is_refused_naming_the_key(body, says):
    with pytest.raises(StudyError) as err:
        experiments(_study(body))
    assert says in str(err.value)


def test_a_study_without_experiments_has_none():
    study = _study("")
    assert study.experiments == [] and experiments(study) == [] and not study.makes_variants
