"""The pure-Python BERT tokenizer: normalisation, pre-tokenisation and greedy WordPiece on a tiny vocabulary
written here, then on the model's own vocabulary (benchmarks/embedding_check.py compares it with the
`tokenizers` package on more strings; these expectations were read off tokenizer.json's vocab by hand)."""

import pytest

from peerlake.llm_calls.embeddings.wordpiece import WordPiece, normalize, pre_tokenize

TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "una", "##aff", "##able", "##ffa", "##ble", "aff", "##a", ",", "!"]


def tiny(max_length: int = 256) -> WordPiece:
    return WordPiece({t: i for i, t in enumerate(TINY)}, max_length)


def test_normalize_lowercases_strips_accents_drops_controls_and_spaces_ideographs():
    assert normalize("Naïve CAFÉ") == "naive cafe"
    assert normalize("a\x07b\x00c\ufffdd") == "abcd"  # control, NUL and the replacement character vanish
    assert normalize("a\tb\nc\u00a0d") == "a b c d"  # whitespace of any kind becomes a space
    assert normalize("中文") == " 中  文 "  # each CJK ideograph stands alone
    # per character, as the `tokenizers` package does: a final capital sigma is σ, not Python's word-final ς
    assert normalize("ΑΣ") == "ασ"


def test_pre_tokenize_isolates_every_punctuation_character():
    assert pre_tokenize("state-of-the-art, 95.3%!") == ["state", "-", "of", "-", "the", "-", "art", ",", "95", ".",
                                                         "3", "%", "!"]
    assert pre_tokenize("$x^2$ a|b") == ["$", "x", "^", "2", "$", "a", "|", "b"]  # ASCII symbols split too
    assert pre_tokenize("   ") == []


def test_greedy_longest_match_takes_the_longest_prefix_first():
    # "unaffable": the longest first piece is "una" (not "un"), then "##ffa", then "##ble"
    assert tiny().tokenize("unaffable") == ["[CLS]", "una", "##ffa", "##ble", "[SEP]"]
    # "affa": "aff" then "##a"
    assert tiny().tokenize("affa!") == ["[CLS]", "aff", "##a", "!", "[SEP]"]


def test_a_word_that_cannot_be_covered_is_one_unknown():
    # "unx": "un" matches, "##x" is nowhere: the whole word is [UNK], not "un" + [UNK]
    assert tiny().tokenize("unx, un") == ["[CLS]", "[UNK]", ",", "un", "[SEP]"]
    assert tiny().tokenize("a" * 101) == ["[CLS]", "[UNK]", "[SEP]"]  # over 100 characters: unknown unread
    assert tiny().tokenize("") == ["[CLS]", "[SEP]"]


def test_truncation_keeps_cls_and_sep_within_max_length():
    got = tiny(max_length=5).tokenize("un un un un un un")
    assert got == ["[CLS]", "un", "un", "un", "[SEP]"]


@pytest.fixture(scope="module")
def real(embedding_model_dir):
    return WordPiece.from_file(embedding_model_dir / "vocab.txt")


def test_the_models_vocabulary(real):
    assert len(real.vocab) == 30522
    assert (real.vocab["[PAD]"], real.vocab["[UNK]"], real.vocab["[CLS]"], real.vocab["[SEP]"]) == (0, 100, 101, 102)
    assert real.tokenize("Hello, World!") == ["[CLS]", "hello", ",", "world", "!", "[SEP]"]
    assert real.tokenize("naïve Café") == ["[CLS]", "naive", "cafe", "[SEP]"]
    assert real.tokenize("unaffable") == ["[CLS]", "una", "##ffa", "##ble", "[SEP]"]
    assert real.encode("Hello, World!")[0] == 101 and real.encode("Hello, World!")[-1] == 102
    assert len(real.tokenize("word " * 400)) == 256
