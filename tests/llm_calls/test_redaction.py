"""API keys never reach the lake, even when a server echoes them back in an error."""

import pytest

from llm_calls.fake_server import Reply
from llm_calls.gateway import LlmCallFailed
from llm_calls.redact import REDACTED, redact
from tests.llm_calls.support import FAKE_KEYS, request


def test_redact_scrubs_configured_secrets_and_key_shapes(lake_log):
    text = f"key={FAKE_KEYS['PEERLAKE_OPENAI_COMPATIBLE_API_KEY']} other=sk-abcdefghijklmnop Bearer tok.en-123456"
    out = redact(text)
    assert FAKE_KEYS["PEERLAKE_OPENAI_COMPATIBLE_API_KEY"] not in out and "sk-abcdefghijklmnop" not in out
    assert "tok.en-123456" not in out and out.count(REDACTED) == 3


@pytest.mark.parametrize("provider,model", [("openai", "gpt-4.1-mini"), ("anthropic", "claude-haiku-4-5"),
                                            ("openai_compatible", "m")])
def test_echoed_key_appears_in_no_file_under_the_lake(make_gateway, server, lake_log, provider, model):
    server.script(Reply(status=429, echo_auth=True), Reply(status=401, echo_auth=True))
    with pytest.raises(LlmCallFailed) as info:
        make_gateway().call(request(provider=provider, model=model))
    assert server.requests == 2
    assert "authorization=" in str(info.value) or "x-api-key=" in str(info.value)  # the echo did happen
    lake_log.seal()  # Parquet segments too
    files = [p for p in lake_log.lake.root.rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in files)
    for path in files:
        data = path.read_bytes()
        for key in FAKE_KEYS.values():
            assert key.encode() not in data, f"{key} leaked into {path}"
    for key in FAKE_KEYS.values():
        assert key not in str(info.value)
