"""The embedded model: assembling it from part wheels, and one real call through the gateway."""

import hashlib
import threading
import time
import zipfile

import pytest

from peerlake.llm_calls import local_model
from peerlake.llm_calls.gateway import Gateway
from peerlake.llm_calls.providers.base import ProviderUnavailable
from peerlake.llm_calls.providers.local import LocalProvider, schema_warnings
from peerlake.llm_calls.stopping import CallsStopped, clear_stop, request_stop
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse import settings
from tests.embedded import machinery_model, require_model
from tests.llm_calls.support import llm_events

PARTS = [b"first-part-bytes|", b"second|", b"third and last"]


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    """Three tiny part wheels shaped like the real ones, pinned by their assembled hash."""
    monkeypatch.setenv("PEERLAKE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PEERLAKE_LOCAL_MODEL_PATH", raising=False)
    specs = [f"fake-model-part{i}==0.1.0" for i in range(1, len(PARTS) + 1)]
    fake = settings.LocalModel(settings.LOCAL_MODEL_NAME, tuple(specs), hashlib.sha256(b"".join(PARTS)).hexdigest(),
                               len(b"".join(PARTS)))
    monkeypatch.setitem(settings.LOCAL_MODELS, settings.LOCAL_MODEL_NAME, fake)
    folder = local_model.parts_dir()
    folder.mkdir(parents=True)
    for i, data in enumerate(PARTS, start=1):
        with zipfile.ZipFile(folder / f"fake_model_part{i}-0.1.0-py3-none-any.whl", "w") as zf:
            zf.writestr(f"fake_model_part{i}/__init__.py", "")
            zf.writestr(f"fake_model_part{i}/data/part{i:02d}.bin", data)
    return folder


def test_install_assembles_parts_in_order_and_is_then_a_no_op(fake_parts):
    path = local_model.install_local_model()
    assert path == settings.local_model_path() and path.read_bytes() == b"".join(PARTS)
    mtime = path.stat().st_mtime_ns
    for wheel in fake_parts.glob("*.whl"):
        wheel.unlink()  # a second install must not need the parts at all
    assert local_model.install_local_model() == path and path.stat().st_mtime_ns == mtime


def test_hash_mismatch_leaves_no_file(fake_parts, monkeypatch):
    pinned = settings.LOCAL_MODELS[settings.LOCAL_MODEL_NAME]
    monkeypatch.setitem(settings.LOCAL_MODELS, settings.LOCAL_MODEL_NAME,
                        settings.LocalModel(pinned.name, pinned.parts, "0" * 64, pinned.n_bytes))
    with pytest.raises(local_model.ModelInstallError, match="SHA-256"):
        local_model.install_local_model()
    assert not settings.local_model_path().exists()
    assert list(settings.local_model_path().parent.iterdir()) == []


def test_missing_model_file_says_how_to_get_it(tmp_path):
    with pytest.raises(ProviderUnavailable, match="make model"):
        LocalProvider(model_path=tmp_path / "absent.gguf").ensure_ready()


def test_schema_warnings_flag_what_llama_does_not_enforce():
    schema = {"type": "object", "properties": {
        "score": {"type": "integer", "minimum": 1, "maximum": 10},
        "ok": {"type": "integer", "enum": [1, 2, 3]},
        "why": {"type": "string"}, "short": {"type": "string", "maxLength": 20}}}
    warnings = schema_warnings(schema)
    assert len(warnings) == 2 and any("$.score" in w for w in warnings) and any("$.why" in w for w in warnings)


@pytest.mark.model
def test_real_local_model_answers_json_with_logprobs(lake_log, monkeypatch):
    require_model()
    monkeypatch.setenv("PEERLAKE_LOCAL_CTX", "512")  # the logits_all context costs ~0.6 MB per token
    schema = {"type": "object", "required": ["score"],
              "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}}}
    req = LlmRequest(provider="local", model=settings.LOCAL_MODEL_NAME,
                     messages=({"role": "user", "content": "Rate the idea 'sorting socks by colour' from 1 "
                                "to 5. Reply as JSON {\"score\": n}."},),
                     params={"temperature": 0.0, "max_tokens": 16, "seed": 1},
                     response_schema=schema, top_logprobs=3, purpose="test")
    gw = Gateway(lake_log)
    result = gw.call(req)
    assert result.parsed["score"] in (1, 2, 3, 4, 5)
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    assert result.cost_usd == 0.0
    (ev,) = llm_events(lake_log)
    assert ev.cost_status == "free" and ev.logprobs_sha256
    assert result.logprobs and all(isinstance(t["logprob"], float) for t in result.logprobs)
    assert len(result.logprobs[0]["top"]) >= 3
    replay = gw.call(req)
    assert replay.replayed and replay.logprobs == result.logprobs


@pytest.mark.model
def test_a_stop_ends_an_embedded_generation_between_tokens_and_records_nothing(lake_log):
    """Ctrl-C during a long local answer: the generation stops at the next token (not after minutes of
    writing), the call raises CallsStopped, no llm_call is recorded (a half answer is not an answer), and
    the model answers the next call as before."""
    name = machinery_model()
    require_model(name)
    gw = Gateway(lake_log)

    def counting(seed: int, max_tokens: int) -> LlmRequest:
        return LlmRequest(provider="local", model=name, purpose="test", response_schema=None,
                          messages=({"role": "user", "content": "Count from 1 to 5000, separated by commas."},),
                          params={"temperature": 0.0, "max_tokens": max_tokens, "seed": seed})

    gw.call(counting(1, 4))  # the model loaded, so the stop below interrupts writing, not loading
    before = len(llm_events(lake_log))
    timer = threading.Timer(2.0, request_stop)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(CallsStopped, match="between two tokens"):
            gw.call(counting(2, 4000))  # thousands of tokens: minutes of writing without the stop
        took = time.monotonic() - started
    finally:
        timer.cancel()
        clear_stop()
    assert took < 30, f"the stop took {took:.1f} s to end the generation"
    assert len(llm_events(lake_log)) == before  # nothing recorded for the stopped call
    after = gw.call(counting(3, 8))
    assert after.text and not after.replayed and len(llm_events(lake_log)) == before + 1


@pytest.mark.model
def test_a_stop_ends_the_reading_of_a_long_prompt_inside_its_batch(lake_log):
    """Ctrl-C while the model reads a long prompt (the first minute of an embedded review): the batch in
    progress is aborted (llama.cpp's abort callback), not finished first. Measured against the same model
    reading a prompt of the same length whole, in this test: the stop takes a small part of that."""
    name = machinery_model()
    require_model(name)
    gw = Gateway(lake_log)

    def reading(topic: str) -> LlmRequest:
        text = " ".join(f"{topic} sentence {i} says nothing in particular about {topic}." for i in range(120))
        return LlmRequest(provider="local", model=name, purpose="test", response_schema=None,
                          messages=({"role": "user", "content": text + " Answer with one word."},),
                          params={"temperature": 0.0, "max_tokens": 1, "seed": 1})

    started = time.monotonic()
    gw.call(reading("apples"))  # over 1,500 prompt tokens: three or more batches of 512, read whole
    whole = time.monotonic() - started
    before = len(llm_events(lake_log))
    timer = threading.Timer(0.3, request_stop)  # inside the first batch of a prompt no cache holds
    asked = []
    timer.start()
    stop_at = time.monotonic() + 0.3
    try:
        with pytest.raises(CallsStopped, match="while reading the prompt"):
            try:
                gw.call(reading("pears"))
            finally:
                asked.append(time.monotonic())
    finally:
        timer.cancel()
        clear_stop()
    took = asked[0] - stop_at
    assert took < whole / 6, f"the stop took {took:.1f} s; reading the whole prompt took {whole:.1f} s"
    assert len(llm_events(lake_log)) == before  # nothing recorded for the stopped call
    again = gw.call(reading("pears"))  # the aborted batch left nothing the next reading trips on
    assert again.text is not None and not again.replayed and len(llm_events(lake_log)) == before + 1
