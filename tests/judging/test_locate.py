"""Where a mention sits in a review: exact anchor, else the best fuzzy window, else the end."""

from peerlake.judging.locate import fuzzy_find, locate


def test_an_exact_anchor_is_found_across_a_line_break():
    text = "Summary:\nGood.\n\nWeaknesses:\nNo error bars\non Table 2."
    # "Summary:\n" 9 + "Good.\n" 6 + "\n" 1 + "Weaknesses:\n" 12 = 28
    assert locate("No error bars on Table 2.", text) == (28, "exact")
    assert locate('"No error bars on Table 2."', text) == (28, "exact")  # quotes around it are not words


def test_a_near_anchor_is_placed_at_the_most_similar_window():
    # windows start at words: 0 "abc" and 4 "xyz"; ratio("xyq", "xyz") = 2*2/(3+3) = 0.667, ("xyq", "abc") = 0
    assert locate("xyq", "abc xyz") == (4, "fuzzy")
    # case does not count against a window: "Weak: " is 6 chars, then "no error" == "no error" (ratio 1.0)
    assert locate("NO ERROR", "Weak: no error.") == (6, "fuzzy")
    # on a tie the earliest window wins: both "xyz" windows score 0.667
    assert locate("xyq", "xyz xyz") == (0, "fuzzy")


def test_the_fuzzy_threshold_is_0_45():
    # window 0 is "abcde vwxy" (anchor length 10): "abcde" matches, ratio 2*5/(10+10) = 0.5 -> found
    assert fuzzy_find("abcdeqqqqq", "abcde vwxyz") == 0
    # only "abcd" matches: 2*4/20 = 0.4 < 0.45; window 6 "vwxyz" shares nothing -> the end (11 chars)
    assert fuzzy_find("abcdqqqqqq", "abcde vwxyz") is None
    assert locate("abcdqqqqqq", "abcde vwxyz") == (11, "end")


def test_no_anchor_or_no_text_goes_to_the_end():
    assert locate(None, "some review") == (11, "end")
    assert locate("   ", "some review") == (11, "end")
    assert locate("anything", "") == (0, "end")
