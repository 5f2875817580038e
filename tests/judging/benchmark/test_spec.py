"""The [contradictions] keys the builder owns: defaults, and a bad value refused with the key named."""

import pytest

from peerlake.judging.benchmark import KEYS, Spec


def test_defaults():
    s = Spec.from_table({})
    assert (s.papers, s.seed, s.validate, s.manuscript_chars, s.max_nodes, s.max_paragraph_chars) == \
        (None, 0, False, None, None, 1200)


def test_the_node_cap_depends_on_the_builders_provider_unless_the_study_sets_it():
    # unset: the embedded model keeps its 8 nodes; a hosted builder has none, as the seed's Gemini 2.5 Pro
    assert Spec.from_table({}).nodes_cap("local") == 8
    assert Spec.from_table({}).nodes_cap("openai") is None and Spec.from_table({}).nodes_cap("anthropic") is None
    # set: the study's value on every provider, 0 = no cap; a cap above the old schema bound (40) is allowed
    assert Spec.from_table({"max_nodes": 12}).nodes_cap("openai") == 12
    assert Spec.from_table({"max_nodes": 12}).nodes_cap("local") == 12
    assert Spec.from_table({"max_nodes": 0}).nodes_cap("local") is None
    assert Spec.from_table({"max_nodes": 60}).nodes_cap("openai") == 60


def test_values_and_keys_it_does_not_own_are_ignored():
    s = Spec.from_table({"papers": ["a", " b "], "seed": 7, "validate": True, "manuscript_chars": 4000,
                         "max_nodes": 12, "max_paragraph_chars": 900, "judge": {"model": "x"}, "audit": True})
    assert (s.papers, s.seed, s.validate, s.manuscript_chars, s.max_nodes, s.max_paragraph_chars) == \
        (("a", "b"), 7, True, 4000, 12, 900)
    assert {"papers", "seed", "validate", "builder", "manuscript_chars", "max_nodes"} <= KEYS


@pytest.mark.parametrize(("table", "key"), [
    ({"papers": "demo-001"}, "contradictions.papers"),
    ({"papers": []}, "contradictions.papers"),
    ({"seed": "1"}, "contradictions.seed"),
    ({"seed": True}, "contradictions.seed"),
    ({"validate": "yes"}, "contradictions.validate"),
    ({"max_nodes": -1}, "contradictions.max_nodes"),
    ({"max_nodes": "8"}, "contradictions.max_nodes"),
    ({"manuscript_chars": 10}, "contradictions.manuscript_chars"),
    ({"max_paragraph_chars": 2.5}, "contradictions.max_paragraph_chars"),
    ({"max_items": 0}, "contradictions.max_items"),
])
def test_bad_values_name_the_key(table, key):
    with pytest.raises(ValueError, match=key):
        Spec.from_table(table)


def test_on_the_embedded_model_a_paragraph_fits_what_its_grammar_can_bound():
    from peerlake.judging.benchmark.build import paragraph_limit

    spec = Spec.from_table({"max_paragraph_chars": 1200})
    assert paragraph_limit(spec, "openai") == 1200
    # GRAMMAR_MAX_STRING 1000: the answer may be 1.5 x the paragraph + 80, so (1000 - 80) / 1.5 = 613
    assert paragraph_limit(spec, "local") == 613
    assert paragraph_limit(Spec.from_table({"max_paragraph_chars": 400}), "local") == 400
