"""all-MiniLM-L6-v2 in numpy: the BERT encoder's forward pass, mean pooling, L2 normalisation.

What sentence-transformers runs (modules.json: Transformer → Pooling(mean) → Normalize), written out:
embeddings = LayerNorm(word + position + token_type 0); then per layer (6) multi-head self-attention
(12 heads; padded positions masked out) → dense → residual → LayerNorm, and a feed-forward block with
the exact (erf) GELU → dense → residual → LayerNorm (eps from config.json); the token vectors are
averaged over the attention mask and scaled to unit length. float32 throughout, as the weights are.
benchmarks/embedding_check.py compares the output with an ONNX export of the same model."""

import json
from pathlib import Path

import numpy as np
from scipy.special import erf

from peerlake.llm_calls.embeddings.safetensors_file import read_safetensors
from peerlake.llm_calls.embeddings.wordpiece import WordPiece

MAX_SEQ_LENGTH = 256  # sentence_bert_config.json: longer items are truncated, as sentence-transformers does
BATCH_SIZE = 16  # attention holds batch × 12 × L² floats: 16 × 12 × 256² × 4 B ≈ 50 MB at worst


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))).astype(np.float32))


class MiniLM:
    """Load once (≈0.5 s), then `encode(texts)` → (n, 384) float32 unit vectors."""

    def __init__(self, folder: Path):
        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text())
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens") or config.get("model_type") != "bert":
            raise ValueError(f"{folder}: not a mean-pooled BERT model")
        self.eps = float(config["layer_norm_eps"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.dim = int(config["hidden_size"])
        self.tokenizer = WordPiece.from_file(folder / "vocab.txt", MAX_SEQ_LENGTH)
        self.pad_id = self.tokenizer.vocab["[PAD]"]
        self.w = read_safetensors(folder / "model.safetensors")
        # PyTorch Linear stores (out, in): transpose once here, not in every batch
        self.linear = {name[: -len(".weight")]: (np.ascontiguousarray(self.w[name].T), self.w[name[:-6] + "bias"])
                       for name in self.w
                       if name.startswith("encoder.") and name.endswith(("dense.weight", "query.weight",
                                                                         "key.weight", "value.weight"))}

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        w, b = self.linear[name]
        return x @ w + b

    def _ln(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return _layer_norm(x, self.w[f"{prefix}.weight"], self.w[f"{prefix}.bias"], self.eps)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        b, length = ids.shape
        h, d = self.heads, self.dim // self.heads
        x = (self.w["embeddings.word_embeddings.weight"][ids]
             + self.w["embeddings.position_embeddings.weight"][:length][None]
             + self.w["embeddings.token_type_embeddings.weight"][0])
        x = self._ln(x, "embeddings.LayerNorm")
        # a padded key gets the dtype's most negative value, as transformers does: weight exp(...) = 0
        bias = np.where(mask[:, None, None, :] > 0, np.float32(0), np.finfo(np.float32).min).astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(d))
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def heads(t: np.ndarray) -> np.ndarray:
                return t.reshape(b, length, h, d).transpose(0, 2, 1, 3)

            q = heads(self._dense(x, f"{p}.attention.self.query"))
            k = heads(self._dense(x, f"{p}.attention.self.key"))
            v = heads(self._dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, length, self.dim)
            x = self._ln(self._dense(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            ff = _gelu(self._dense(x, f"{p}.intermediate.dense"))
            x = self._ln(self._dense(ff, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        """Unit vectors, one row per text in order. Texts are batched by token length (each batch padded
        to its longest), so a short item never pays for a long one's padding."""
        encoded = [self.tokenizer.encode(t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            length = max(len(encoded[i]) for i in chunk)
            ids = np.full((len(chunk), length), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.int64)
            for row, i in enumerate(chunk):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1
            out[chunk] = self._forward(ids, mask)
        return out
