"""BERT's uncased WordPiece tokenizer in pure Python, as the model's tokenizer.json declares it:
BertNormalizer (clean text, spaces around CJK ideographs, strip accents, lowercase), BertPreTokenizer
(split on whitespace, isolate every punctuation character), greedy longest-match WordPiece with the
'##' continuation prefix ([UNK] for a word that cannot be covered or is longer than 100 characters),
then [CLS] … [SEP], truncated to the model's max_seq_length (sentence-transformers: 256 tokens).

Pure Python so the embedding needs no new dependency; benchmarks/embedding_check.py compares it with
the `tokenizers` package on tricky strings and real review items."""

import unicodedata
from pathlib import Path

CLS, SEP, UNK, PAD = "[CLS]", "[SEP]", "[UNK]", "[PAD]"
MAX_CHARS_PER_WORD = 100


def _is_control(ch: str) -> bool:
    # tab, newline and carriage return are whitespace, not control (they become spaces)
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_whitespace(ch: str) -> bool:
    # Rust's char::is_whitespace (what the `tokenizers` package uses): Unicode White_Space, which
    # str.isspace() matches except for the information separators \x1c-\x1f (control characters there).
    return ch.isspace() and ch not in "\x1c\x1d\x1e\x1f"


def _is_punctuation(ch: str) -> bool:
    # every ASCII non-alphanumeric printable ($, +, <, =, >, ^, `, |, ~ are symbols in Unicode) and all of P*
    return (33 <= ord(ch) <= 47 or 58 <= ord(ch) <= 64 or 91 <= ord(ch) <= 96 or 123 <= ord(ch) <= 126
            or unicodedata.category(ch).startswith("P"))


def _is_cjk(cp: int) -> bool:
    # the CJK Unified Ideographs blocks BERT isolates (not Hangul or kana: those are written with spaces);
    # 0x2B920, not BERT's 0x2B820, as the `tokenizers` package has it
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


def normalize(text: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    stripped = "".join(c for c in unicodedata.normalize("NFD", "".join(out)) if unicodedata.category(c) != "Mn")
    # per character, as `tokenizers` does: str.lower() would turn a word-final Σ into ς, not σ
    return "".join(c.lower() for c in stripped)


def pre_tokenize(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    for ch in text:
        if _is_whitespace(ch) or _is_punctuation(ch):
            if current:
                words.append("".join(current))
                current = []
            if not _is_whitespace(ch):
                words.append(ch)
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


class WordPiece:
    def __init__(self, vocab: dict[str, int], max_length: int = 256):
        self.vocab = vocab
        self.max_length = max_length

    @classmethod
    def from_file(cls, vocab_txt: Path, max_length: int = 256) -> "WordPiece":
        lines = Path(vocab_txt).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls({tok: i for i, tok in enumerate(lines)}, max_length)

    def _pieces(self, word: str) -> list[str]:
        if len(word) > MAX_CHARS_PER_WORD:
            return [UNK]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            if end == start:  # no piece covers the rest: the whole word is unknown
                return [UNK]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """Word pieces with [CLS] and [SEP], truncated so the whole fits max_length."""
        pieces = [p for w in pre_tokenize(normalize(text)) for p in self._pieces(w)]
        return [CLS, *pieces[: self.max_length - 2], SEP]

    def encode(self, text: str) -> list[int]:
        return [self.vocab[t] for t in self.tokenize(text)]
