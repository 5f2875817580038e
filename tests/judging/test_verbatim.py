"""Verbatim up to typography (issue #24): a judge that quotes a markdown review back without its ** and
with straight quotes still quotes the reviewer's words; the match maps back to the original offsets, and
says whether it was strict. Offsets below are counted from the texts, never from the function."""

from peerlake.judging.base import find_verbatim, match_verbatim
from peerlake.judging.spans import locate_span, verbatim_span

# what an OpenReview review looks like: markdown emphasis, curly quotes, en and em dashes, line breaks
REVIEW = ("Weaknesses:\n"
          "- **Missing baselines.** The authors do not compare with “strong” baselines — e.g. *DPO*.\n"
          "- The ablation in Table 3 is   un-\nconvincing; `lr=1e-4` is never justified.\n"
          "- Results on 2–3 seeds only; the authors’ claim of “robustness” is not supported.")


def test_a_quote_given_back_plain_matches_the_bold_curly_original_at_its_own_offsets():
    quote = 'Missing baselines. The authors do not compare with "strong" baselines - e.g. DPO.'
    hit = match_verbatim(quote, REVIEW)
    start = REVIEW.index("Missing baselines")
    end = REVIEW.index("*DPO*.") + len("*DPO*.")
    assert (hit.start, hit.end, hit.strict, hit.how) == (start, end, False, "normalized")
    assert REVIEW[hit.start:hit.end] == ("Missing baselines.** The authors do not compare with “strong” baselines"
                                         " — e.g. *DPO*.")
    assert find_verbatim(quote, REVIEW) == start


def test_each_kind_of_typography_alone_is_forgiven_and_reported_as_normalized():
    cases = {
        "the authors' claim of \"robustness\" is not supported": "the authors’ claim",  # curly quotes
        "Results on 2-3 seeds only": "Results on 2–3 seeds",  # en dash
        "lr=1e-4 is never justified": "`lr=1e-4`",  # code backticks
        "e.g. DPO.": "e.g. *DPO*",  # italics
        "Missing baselines. The authors": "Missing baselines.** The",  # bold closing inside the span
    }
    for quote, where in cases.items():
        hit = match_verbatim(quote, REVIEW)
        assert hit is not None and not hit.strict, quote
        assert hit.start == REVIEW.index(where) + (1 if where.startswith("`") else 0), quote


def test_a_strict_match_stays_strict_and_whitespace_and_surrounding_quotes_are_strict_as_before():
    hit = match_verbatim("The ablation in Table 3 is un- convincing;", REVIEW)  # a re-wrapped line
    assert (hit.start, hit.strict) == (REVIEW.index("The ablation"), True)
    assert REVIEW[hit.start:hit.end] == "The ablation in Table 3 is   un-\nconvincing;"
    hit = match_verbatim("“The ablation in Table 3”", REVIEW)  # quotes around the span are not words
    assert (hit.start, hit.end, hit.how) == (REVIEW.index("The ablation"), REVIEW.index(" is   un-"), "strict")


def test_words_that_differ_are_still_not_verbatim():
    assert match_verbatim("The authors do not compare with strong baselines", REVIEW) is None  # quote marks dropped
    assert match_verbatim("missing baselines.", REVIEW) is None  # case is the reviewer's
    assert match_verbatim("Results on 2-4 seeds only", REVIEW) is None
    assert match_verbatim("The ablation in Table 4", REVIEW) is None
    assert match_verbatim("** __ ``", REVIEW) is None  # nothing but markup is no span
    assert find_verbatim("   ", REVIEW) is None


def test_the_start_is_respected_and_spans_helpers_return_the_reviews_own_characters():
    text = "**Bold** claim. Later: **Bold** claim again."
    second = text.index("**Bold** claim again") + 2
    assert find_verbatim("Bold claim", text) == 2
    assert find_verbatim("Bold claim", text, start=3) == second
    # locate_span falls back to the whole text; verbatim_span returns the text's characters, markup inside kept
    assert locate_span("Bold claim again", text, start=len(text) - 3).start == second
    assert verbatim_span("Bold claim again.", text) == (second, "Bold** claim again.")
    assert verbatim_span("Bold claim", text, 0) == (2, "Bold** claim")
    assert verbatim_span("no such words", text) is None
