"""Token counting and truncation: the 4-characters-per-token approximation for hosted providers, and
(model-marked) the embedded model's own llama.cpp tokenizer."""


import pytest

from peerlake.llm_calls.tokens import APPROX_METHOD, count_tokens, method, truncate_tokens
from tests.embedded import require_model


def test_the_approximation_counts_four_characters_per_token_rounding_up():
    assert count_tokens("", "openai", "gpt-4.1") == 0
    assert count_tokens("abcd", "openai", "gpt-4.1") == 1
    assert count_tokens("abcde", "anthropic", "claude-sonnet-4-6") == 2  # 5 / 4 = 1.25 -> 2
    assert count_tokens("x" * 26_000, "openai_compatible", "any") == 6_500  # 26,000 / 4
    assert method("openai") == APPROX_METHOD == "approx:4chars"


def test_the_approximation_truncates_to_four_characters_per_token():
    text = "0123456789" * 10  # 100 characters = 25 approximate tokens
    cut, how = truncate_tokens(text, 7, "openai", "gpt-4.1")
    assert cut == text[:28] and how == "approx:4chars"  # 7 tokens x 4 characters
    assert truncate_tokens(text, 25, "openai")[0] == text  # exactly at the budget: unchanged
    assert truncate_tokens(text, 0, "openai")[0] == ""
    with pytest.raises(ValueError):
        truncate_tokens(text, -1, "openai")


def test_the_local_method_names_the_model_file(monkeypatch, tmp_path):
    monkeypatch.setenv("PEERLAKE_LOCAL_MODEL_PATH", str(tmp_path / "tiny.gguf"))
    assert method("local") == "llama.cpp:tiny.gguf"


def test_a_missing_local_model_file_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PEERLAKE_LOCAL_MODEL_PATH", str(tmp_path / "absent.gguf"))
    with pytest.raises(FileNotFoundError, match="make model"):
        count_tokens("hello", "local")


@pytest.fixture
def llama_vocab():
    require_model()


@pytest.mark.model
def test_the_local_tokenizer_is_the_models_own(llama_vocab):
    # Qwen2.5's BPE, checked by hand with llama_cpp.Llama(vocab_only=True).tokenize: "Hello" " world"
    # "," are one token each, and digits are single tokens, so "10" is two ("1", "0"; STACK_NOTES).
    assert count_tokens("Hello world,", "local") == 3
    assert count_tokens("10", "local") == 2
    assert method("local").startswith("llama.cpp:")
    # 3 tokens per repeat ("Hello"/" Hello", " world", ",") and the final space alone: 3 x 50 + 1
    text = "Hello world, " * 50
    cut, how = truncate_tokens(text, 3, "local")
    assert cut == "Hello world," and how.startswith("llama.cpp:")
    assert count_tokens(text, "local") == 151
    assert truncate_tokens("short", 100, "local")[0] == "short"
    long_cut, _ = truncate_tokens(text, 40, "local")
    assert count_tokens(long_cut, "local") == 40 and text.startswith(long_cut)


@pytest.mark.model
def test_a_cut_inside_a_multibyte_character_drops_the_partial_bytes(llama_vocab):
    text = "naïve café " * 30 + "数据" * 40
    for n in range(1, 80):
        cut, _ = truncate_tokens(text, n, "local")
        assert text.startswith(cut) and count_tokens(cut, "local") <= n
