"""The label mappings (prompts/label_mappings/*.toml) on hand-worked items: each expected value is read off
the judge's scale and the dataset's guideline by hand (docs/judges/human-labels.md), not computed."""

import hashlib

import pytest

from peerlake.ingest.label_mapping import UnknownLabel, load, shipped_dir


def test_each_shipped_mapping_loads_and_is_named_by_its_bytes():
    for name in ("disapere", "revutil", "reviewcritique"):
        m = load(name)
        assert (m.name, m.dataset) == (name, name)
        assert m.sha256 == hashlib.sha256((shipped_dir() / f"{name}.toml").read_bytes()).hexdigest() \
            == hashlib.sha256(m.raw).hexdigest()


def test_disapere_sentences_onto_depth_roles_aspects_and_novelty_stances():
    m = load("disapere")
    # "The originality is relative low though, …" (final_dataset/dev/Skx9YZG-qB.json sentence 4)
    assert m.apply({"review_action": "arg_evaluative", "fine_review_action": "none", "aspect": "asp_originality",
                    "polarity": "pol_negative"}) == {
        "role": "claim", "is_unit": True, "aspect": "contribution", "aspect_prism_paper": "novelty",
        "novelty_stance": "not_novel"}
    # "In equations 1 and 2, should a, b be written in capital?" (sentence 5): a request, no novelty stance
    assert m.apply({"review_action": "arg_request", "aspect": "asp_clarity", "polarity": "pol_negative"}) == {
        "role": "claim", "is_unit": True, "aspect": "clarity", "aspect_prism_paper": "clarity",
        "novelty_stance": None}
    # a fact about experiments is a premise; substance is soundness (reference) / experiments (paper)
    assert m.apply({"review_action": "arg_fact", "aspect": "asp_substance", "polarity": "none"}) == {
        "role": "premise", "is_unit": True, "aspect": "soundness", "aspect_prism_paper": "experiments",
        "novelty_stance": None}
    # a summary sentence is no argument unit; an originality sentence without polarity is "unclear"
    assert m.apply({"review_action": "arg_structuring", "aspect": "asp_originality", "polarity": "none"}) == {
        "role": None, "is_unit": False, "aspect": "contribution", "aspect_prism_paper": "novelty",
        "novelty_stance": "unclear"}
    # baselines are "contribution" in prism-reference, "experiments" in prism-paper, which has no "other"
    assert m.apply({"review_action": "arg_evaluative", "aspect": "asp_meaningful-comparison",
                    "polarity": "pol_negative"})["aspect"] == "contribution"
    assert m.apply({"review_action": "arg_other", "aspect": "arg_other", "polarity": "none"})[
        "aspect_prism_paper"] is None
    with pytest.raises(UnknownLabel, match="review_action 'arg_rant'"):
        m.apply({"review_action": "arg_rant", "aspect": "none", "polarity": "none"})


def test_revutil_ratings_onto_the_constructiveness_scale():
    m = load("revutil")
    # RevUtil 4 = "implicitly states an action but concretely states how": the judge's 1 (implies a change);
    # 3 = "explicitly states an action but is vague": the judge's 2 (states an explicit action)
    assert m.apply({"actionability": "4", "grounding_specificity": "4", "verifiability": "3",
                    "professional_tone": "0"}) == {"actionability": 1, "specificity": 2, "justification": 1, "tone": 0}
    assert m.apply({"actionability": "3", "grounding_specificity": "2", "verifiability": "5",
                    "professional_tone": "1"}) == {"actionability": 2, "specificity": 1, "justification": 2, "tone": 1}
    assert m.apply({"actionability": "1", "grounding_specificity": "1", "verifiability": "1"}) == {
        "actionability": 0, "specificity": 0, "justification": 0, "tone": None}
    # X = no claim: nothing to justify, not compared; a missing aspect is None too
    assert m.apply({"actionability": "5", "verifiability": "X"}) == {
        "actionability": 2, "specificity": None, "justification": None, "tone": None}
    # tone is compared as binary: the judge's 1 and 2 both read as "professional"
    [tone] = [d for d in m.dimensions if d.name == "tone"]
    assert dict(tone.judge_values) == {"0": 0, "1": 1, "2": 1}
    with pytest.raises(UnknownLabel, match="actionability '6'"):
        m.apply({"actionability": "6"})


def test_reviewcritique_error_types_onto_flaw_validity():
    m = load("reviewcritique")
    assert m.apply({"error_type": "reliable"}) == {"validity": True, "invalid_reason": None}
    # "The authors already discusses this in Section 8.2": the criticism is not in the paper
    assert m.apply({"error_type": "contradiction"}) == {"validity": False, "invalid_reason": "hallucinated"}
    assert m.apply({"error_type": "Misunderstanding"}) == {"validity": False, "invalid_reason": "misunderstood"}
    # "An out of scope suggestion. This is not the focus of this paper." (both spellings occur)
    assert m.apply({"error_type": "Out-of-scope"}) == m.apply({"error_type": "out-of-scope"}) == {
        "validity": False, "invalid_reason": "unreasonable_request"}
    # vague or superficial says nothing about whether the flaw exists: not compared
    assert m.apply({"error_type": "vague critique"}) == {"validity": None, "invalid_reason": None}
    assert m.apply({"error_type": "unspecified"}) == {"validity": None, "invalid_reason": None}
    with pytest.raises(UnknownLabel, match="error_type 'rude'"):
        m.apply({"error_type": "rude"})


def test_a_mapping_file_that_is_wrong_is_named(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('dataset = "x"\n[dimensions.a]\njudge = "depth"\nsource = "s"\ntarget = "t"\n'
                   'values = { a = "claim" }\nunmapped = ["a"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="'a': a both mapped and unmapped"):
        load(str(bad))
    bad.write_text('dataset = "x"\n[dimensions.a]\njudge = "tone"\nsource = "s"\ntarget = "t"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="judge 'tone' is not one of"):
        load(str(bad))
    bad.write_text("dataset = \n", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid TOML"):
        load(str(bad))
