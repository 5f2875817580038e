"""The [contradictions] keys the builder owns: defaults, and a bad value refused with the key named."""

import pytest

from judging.benchmark import KEYS, Spec


def test_defaults():
    s = Spec.from_table({})
    assert (s.papers, s.seed, s.validate, s.manuscript_chars, s.max_nodes, s.max_paragraph_chars) == \
        (None, 0, False, None, 8, 1200)


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
    ({"max_nodes": 0}, "contradictions.max_nodes"),
    ({"max_nodes": 41}, "contradictions.max_nodes"),  # over the graph schema's own cap
    ({"manuscript_chars": 10}, "contradictions.manuscript_chars"),
    ({"max_paragraph_chars": 2.5}, "contradictions.max_paragraph_chars"),
    ({"max_items": 0}, "contradictions.max_items"),
])
def test_bad_values_name_the_key(table, key):
    with pytest.raises(ValueError, match=key):
        Spec.from_table(table)


def test_on_the_embedded_model_a_paragraph_fits_what_its_grammar_can_bound():
    from judging.benchmark.build import paragraph_limit

    spec = Spec.from_table({"max_paragraph_chars": 1200})
    assert paragraph_limit(spec, "openai") == 1200
    # GRAMMAR_MAX_STRING 1000: the answer may be 1.5 x the paragraph + 80, so (1000 - 80) / 1.5 = 613
    assert paragraph_limit(spec, "local") == 613
    assert paragraph_limit(Spec.from_table({"max_paragraph_chars": 400}), "local") == 400
