"""The checks before the first call (llm_calls/preflight.py): one finding per refusal, each with the line a
user reads, against the real settings, price table, provider classes and a loopback socket."""

import importlib.util
import socket
from datetime import date

import pytest

from peerlake.llm_calls.cost import load_price_table, parse_price_table
from peerlake.llm_calls.preflight import ModelUse, check_uses, did_you_mean
from peerlake.warehouse import settings
from tests.doubles.fake_server import FakeLlmServer

TODAY = date(2026, 12, 6)


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.delenv("PEERLAKE_ALLOW_MODELS", raising=False)
    monkeypatch.delenv("PEERLAKE_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-preflight")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-preflight")


def closed_port() -> int:
    """A local port nothing listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def findings(*uses: ModelUse, **kw):
    return [(f.kind, f.blocking, f.message) for f in check_uses(uses, today=TODAY, **kw)]


def test_an_unknown_embedded_model_is_refused_with_the_known_ones():
    (kind, blocking, message), = findings(ModelUse("local", "qwen-7b", who="reviewer reviewer_scoring"))
    assert (kind, blocking) == ("unknown_model", True)
    assert message.startswith("no embedded model 'qwen-7b' (reviewer reviewer_scoring); provider 'local' knows "
                              f"{settings.LOCAL_MODEL_NAME}, {settings.LOCAL_SMALL_MODEL_NAME}"), message


def test_an_embedded_model_not_installed_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PEERLAKE_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.delenv("PEERLAKE_LOCAL_MODEL_PATH", raising=False)
    (kind, blocking, message), = findings(ModelUse("local", settings.LOCAL_SMALL_MODEL_NAME))
    assert (kind, blocking) == ("not_installed", True)
    assert str(tmp_path / "empty-cache" / "models") in message
    assert message.endswith("run `make model` (or `python -m peerlake.llm_calls.local_model`)")


def test_a_model_file_of_ones_own_counts_as_installed(monkeypatch, tmp_path):
    """PEERLAKE_LOCAL_MODEL_PATH names the user's own GGUF (any size), as the local provider reads it."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF")
    monkeypatch.setenv("PEERLAKE_LOCAL_MODEL_PATH", str(own))
    assert findings(ModelUse("local", settings.LOCAL_MODEL_NAME)) == []
    own.unlink()
    assert [kind for kind, *_ in findings(ModelUse("local", settings.LOCAL_MODEL_NAME))] == ["not_installed"]


def test_an_unknown_hosted_name_is_refused_with_the_near_one():
    (kind, blocking, message), = findings(ModelUse("openai", "gpt-4.1-mni", who="judge"))
    assert (kind, blocking) == ("unknown_model", True)
    assert message == ("unknown openai model 'gpt-4.1-mni' (judge): not in llm_calls/prices.toml; did you mean "
                       "openai/gpt-4.1-mini? Fix the name, or allow it with PEERLAKE_ALLOW_MODELS=openai/gpt-4.1-mni "
                       "(it then has no price)")


def test_a_name_of_another_provider_is_suggested_under_that_provider():
    assert did_you_mean("openai", "claude-sonnet-4-6") == "anthropic/claude-sonnet-4-6"
    assert did_you_mean("openai", "completely-different-zzz") is None


def test_an_allowed_unknown_name_and_a_dated_id_pass(monkeypatch):
    monkeypatch.setenv("PEERLAKE_ALLOW_MODELS", "openai/ft:gpt-4.1-mini:lab::x1, anthropic/*")
    assert findings(ModelUse("openai", "ft:gpt-4.1-mini:lab::x1"), ModelUse("anthropic", "claude-next"),
                    ModelUse("openai", "gpt-4.1-mini-2025-04-14")) == []


def test_a_missing_key_is_refused_once_per_provider_naming_its_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    out = findings(ModelUse("openai", "gpt-4.1-mini", who="reviewer reviewer_scoring"), ModelUse("openai", "gpt-4.1"))
    assert out == [("not_ready", True, "openai/gpt-4.1-mini (reviewer reviewer_scoring): no API key for provider "
                                       "'openai': set OPENAI_API_KEY; `peerlake run … --dry-run` estimates without it")]


def test_a_dead_base_url_is_refused_and_a_live_one_passes():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    (kind, blocking, message), = findings(ModelUse("openai_compatible", "fake-reviewer", base_url=url))
    assert (kind, blocking) == ("dead_endpoint", True)
    assert message.startswith(f"nothing answers at {url} (Connection refused) for openai_compatible/fake-reviewer: "
                              "start the server, or fix the base_url"), message
    with FakeLlmServer() as server:
        assert findings(ModelUse("openai_compatible", "fake-reviewer", base_url=server.openai_base_url)) == []


def test_a_self_hosted_model_without_a_base_url_is_refused():
    (kind, blocking, message), = findings(ModelUse("openai_compatible", "fake-reviewer"))
    assert (kind, blocking) == ("no_endpoint", True) and "set PEERLAKE_BASE_URL" in message


TABLE = """version = "t"
[[openai."old"]]
effective_from = 2025-01-01
checked = 2026-01-01
input = 1.0
output = 2.0
[[openai."old"]]
effective_from = 2025-06-01
checked = 2026-01-01
retires = 2026-12-01
input = 1.0
output = 2.0
[[openai."soon"]]
effective_from = 2025-01-01
checked = 2026-01-01
retires = "2027-01-05"
input = 1.0
output = 2.0
[[openai."later"]]
effective_from = 2025-01-01
checked = 2026-01-01
retires = 2027-01-06
input = 1.0
output = 2.0
"""


def test_retirement_warns_when_passed_or_within_30_days_and_never_blocks():
    table = parse_price_table(TABLE)
    assert table.retires("openai", "old-2025-06-01") == date(2026, 12, 1)  # a dated id: its base id's day
    out = findings(ModelUse("openai", "old"), ModelUse("openai", "soon"), ModelUse("openai", "later"), table=table)
    assert out == [
        ("retired", False, "openai/old was retired by its provider on 2026-12-01: its calls will probably be "
                           "refused; choose a current model (calls already in the log still replay)"),
        ("retiring", False, "openai/soon retires on 2027-01-05, in 30 days: its provider then refuses it; plan a "
                            "current model")]


def test_the_price_table_carries_the_providers_retirement_days():
    table = load_price_table()
    assert table.retires("anthropic", "claude-sonnet-4-5-20250929") == date(2026, 11, 30)  # the Anthropic SDK's
    assert table.retires("openai", "o3") == date(2026, 12, 11)  # on its newest entry (after the price cut)
    assert table.retires("anthropic", "claude-sonnet-4-6") is None
    with pytest.raises(ValueError, match="retires must be a date"):
        parse_price_table(TABLE.replace("retires = 2027-01-06", "retires = 20270106"))
