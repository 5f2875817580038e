"""Removing the numbers that give a review's rating away, before a predictor reads it.

The numeric fields (rating, confidence, sub-scores) never reach the predictor: judging.reviews keeps
only a review's argument fields. What is left are ratings written inside the text. Mode "ratings"
(ours: the paper does not say) replaces, with "[number]":
  1. a score on a scale: "6/10", "3 out of 5" (denominators 4, 5, 10);
  2. a number of at most 10 right after a rating word (score, rating, rate(d), confidence, soundness,
     presentation, contribution, recommendation; "Score: 6", "a rating of 8", "I rate it 3"),
     up to four connecting words (of, is, at, to, as, a, an, be, would, it, this, paper, work,
     submission) between them, unless a % follows;
  3. a form anchor at the start of a line: "6: marginally above the acceptance threshold".
It may also blank an unrelated small number after such a word ("a learning rate of 0.1"): a little lost
text, never a leaked rating. Mode "all_numbers" replaces every number (the source's "non-numeric text"
read literally), at the cost of the review's reported results."""

import re

MASK = "[number]"
MODES = ("ratings", "all_numbers")

_NUMBER = r"\d+(?:\.\d+)?"
_ON_SCALE = re.compile(rf"\b{_NUMBER}\s*(?:/|out\s+of)\s*(?:10|5|4)\b", re.IGNORECASE)
_AFTER_WORD = re.compile(
    r"(\b(?:scores?|ratings?|rated?|confidence|soundness|presentation|contribution|recommendation)\b"
    r"[\s:=(\[-]*(?:(?:of|is|at|to|as|a|an|be|would|it|this|paper|work|submission)\s+){0,4})"
    rf"({_NUMBER})(?![\d.]*\s*%)(?!\.?\d)",
    re.IGNORECASE)
_FORM_ANCHOR = re.compile(rf"^(\s*)({_NUMBER})(\s*:\s*)(?=[A-Za-z])", re.MULTILINE)
_ANY = re.compile(r"\d+(?:[.,]\d+)*")


def strip_numbers(text: str, mode: str = "ratings") -> tuple[str, int]:
    """(the text with rating numbers masked, how many were masked)."""
    if mode == "all_numbers":
        return _ANY.subn(MASK, text)
    if mode != "ratings":
        raise ValueError(f"strip mode {mode!r}: use one of {', '.join(MODES)}")
    text, n1 = _ON_SCALE.subn(MASK, text)
    n2 = 0

    def after_word(m: re.Match) -> str:
        nonlocal n2
        if float(m.group(2)) > 10:  # not a rating on any venue's scale
            return m.group(0)
        n2 += 1
        return m.group(1) + MASK

    text = _AFTER_WORD.sub(after_word, text)
    text, n3 = _FORM_ANCHOR.subn(lambda m: m.group(1) + MASK + m.group(3), text)
    return text, n1 + n2 + n3
