"""Placing a flaw quote the way PRISM's judge shortens it (judging.locate.place_quote): every offset below is
counted by hand from REVIEW, and a quote that is not the reviewer's words is placed nowhere."""

from peerlake.judging.locate import locate, place_quote

REVIEW = (
    "Weaknesses:\n"  # 12 chars: 0..11
    # 26 + 14 ("$\hat{\theta}$") + 29 + 1 = 70: 12..81, "small" ends at 80
    "Theorem 5.2 finds a point $\\hat{\\theta}$ such that the norm is small.\n"
    "The method’s “robustness” is claimed — but not shown.\n"  # 53 + 1: 82..135
    "Questions:\n"  # 11: 136..146
    "1) Why is k fixed to 3?\n"  # 24: 147..170, "Why" at 150
    "2) What happens with more workers?\n"  # 35: 171..205, "What" at 174, "workers" ends at 204
    "The results are \"good\" on CIFAR-10, a small dataset for robust aggregation.")  # from 206


def test_the_hand_counted_offsets_hold():
    assert REVIEW.index("Theorem") == 12 and REVIEW.index("The method") == 82
    assert REVIEW.index("Why") == 150 and REVIEW.index("What") == 174 and REVIEW.index("The results") == 206


def test_verbatim_and_typography_keep_the_old_names():
    assert place_quote("Theorem 5.2 finds a point", REVIEW).how == "strict"
    p = place_quote("The method's \"robustness\" is claimed - but not shown.", REVIEW)
    assert (p.start, p.end, p.how) == (82, 135, "normalized")


def test_a_tab_from_an_unescaped_backslash_t_in_the_judges_json_reads_as_latex():
    # "$\hat{\theta}$" written into JSON without doubling the backslashes: \t became a tab
    quote = "finds a point $\\hat{\theta}$ such that the norm is small"
    assert "\t" in quote
    p = place_quote(quote, REVIEW)
    assert (p.start, p.end, p.how) == (24, 80, "loose")  # "finds" .. "small", the review's own LaTeX between
    # the Unicode form of the same symbol is the same words
    assert place_quote("a point θ̂ such that the norm is small", REVIEW).start == REVIEW.index("a point")


def test_a_numbered_list_quoted_as_one_sentence_and_a_changed_quote_style():
    p = place_quote("Why is k fixed to 3? What happens with more workers?", REVIEW)
    assert (p.start, p.end, p.how) == (150, 204, "loose")
    p = place_quote("The results are 'good' on CIFAR-10", REVIEW)
    assert (p.start, p.how) == (206, "loose")


def test_an_ellipsis_is_an_elision_whose_pieces_are_found_in_order():
    p = place_quote("Theorem 5.2 finds a point ... the norm is small.", REVIEW)
    assert (p.start, p.end, p.how) == (12, 80, "elided")
    assert place_quote("The results are … a small dataset", REVIEW).how == "elided"
    # the pieces in the wrong order are not the review's words
    assert place_quote("a small dataset … The results are", REVIEW) is None


def test_invented_or_too_short_quotes_are_placed_nowhere():
    assert place_quote("The authors never compare with static clipping at all.", REVIEW) is None
    assert place_quote("the norm", "see the norm").how == "strict"  # verbatim is verbatim at any length...
    assert place_quote("the, norm!", "the norm") is None  # ...but a loose key this short is no evidence
    assert place_quote("", REVIEW) is None and place_quote(None, REVIEW) is None


def test_an_anchor_placed_by_its_words_sits_before_a_fuzzy_guess():
    assert locate("Why is k fixed to 3? What happens", REVIEW) == (150, "placed")
    assert locate("Theorem 5.2 finds a point", REVIEW) == (12, "exact")
    assert locate("an anchor of nothing in here at all", REVIEW)[1] in ("fuzzy", "end")


def test_of_two_raises_by_one_reviewer_the_most_strictly_placed_stands():
    from peerlake.judging import flaws
    from peerlake.judging.base import Judgment
    from tests.judging.support import make_review

    review = make_review(("weaknesses", "Only one dataset is used. The proof is wrong."), key="human:h1",
                         paper_id="P1")
    j = Judgment("flaws", "pool", "pool:P1|x|s0", "P1", 0)
    [flaw] = flaws._parse_flaws([{"topic": "experiments", "summary": "One dataset", "raised_by": [
        {"reviewer": "R1", "quote": "only ONE dataset is used"},  # loose (case)
        {"reviewer": "R1", "quote": "Only one dataset is used."},  # strict: this one counts for the variant
        {"reviewer": "R1", "quote": "Two datasets would help."}]}], [review], j)  # unplaced: no better
    assert [(q, how) for _, q, how in flaw.raises] == [("Only one dataset is used.", "strict")]
    assert j.dropped == {"duplicate_raise": 2}
