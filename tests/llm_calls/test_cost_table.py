"""The repository's price table (llm_calls/prices.toml): the defaults are priced, every entry is dated."""

from datetime import date

import pytest

from peerlake.llm_calls.cost import PRICED, load_price_table, price_call
from peerlake.llm_calls.types import Usage
from peerlake.warehouse.settings import reviewer_defaults


def test_every_entry_is_dated_checked_and_positive():
    table = load_price_table()
    assert table.version
    for entries in table.prices.values():
        for e in entries:
            assert e.effective_from <= e.checked, (e.provider, e.model)
            assert e.price.input > 0 and e.price.output > 0, (e.provider, e.model)
            if e.price.batch_input is not None:  # both providers' batch APIs are half price
                assert e.price.batch_input == pytest.approx(e.price.input / 2), e.model
                assert e.price.batch_output == pytest.approx(e.price.output / 2), e.model


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_the_default_hosted_models_are_priced(provider, monkeypatch):
    monkeypatch.setenv("PEERLAKE_PROVIDER", provider)
    monkeypatch.delenv("PEERLAKE_MODEL", raising=False)
    model = reviewer_defaults().model
    assert load_price_table().lookup(provider, model, date(2026, 11, 30)) is not None, model


def test_claude_sonnet_4_6_at_its_list_price():
    # $3 input, $0.30 cache hits, $3.75 5-minute cache writes, $15 output per MTok (platform.claude.com):
    # 6,000 * 3 + 3,000 * 0.30 + 1,000 * 3.75 + 500 * 15 = 30,150 µ$
    usage = Usage(input_tokens=10_000, cached_input_tokens=3_000, cache_write_tokens=1_000, output_tokens=500)
    assert price_call("anthropic", "claude-sonnet-4-6", usage, free=False, table=load_price_table(),
                      day=date(2026, 11, 30)) == (pytest.approx(0.03015), PRICED)
    # released 2026-02-17: a call the day before has no price
    assert load_price_table().lookup("anthropic", "claude-sonnet-4-6", date(2026, 2, 16)) is None


def test_o3_price_cut_applies_from_its_day():
    # 1M input tokens: $10 at launch, $2 from the 2025-06-10 cut on
    usage = Usage(input_tokens=1_000_000, output_tokens=0)
    table = load_price_table()
    assert price_call("openai", "o3", usage, free=False, table=table, day=date(2025, 6, 9))[0] == pytest.approx(10.0)
    assert price_call("openai", "o3", usage, free=False, table=table, day=date(2025, 6, 10))[0] == pytest.approx(2.0)


def test_dated_model_ids_fall_back_to_their_base_id():
    assert load_price_table().lookup("openai", "gpt-4.1-mini-2025-04-14", date(2026, 11, 30)) is not None


def test_gemini_thoughts_are_priced_as_output():
    # gemini-2.5-pro, ≤200k-token prompt: $1.25 input, $10 output (thinking included) per MTok. 10,000 prompt
    # tokens (4,000 of them cached: priced at input, no dated cache rate) and 500 answer + 1,500 thought tokens:
    # 10,000 · 1.25 + 2,000 · 10 = 12,500 + 20,000 = 32,500 µ$
    from peerlake.llm_calls.providers.gemini import usage_from_gemini

    usage = usage_from_gemini({"promptTokenCount": 10_000, "cachedContentTokenCount": 4_000,
                               "candidatesTokenCount": 500, "thoughtsTokenCount": 1_500})
    assert price_call("gemini", "gemini-2.5-pro", usage, free=False, table=load_price_table(),
                      day=date(2026, 12, 6)) == (pytest.approx(0.0325), PRICED)


@pytest.mark.parametrize("provider,model,day", [
    ("gemini", "gemini-2.5-flash-lite", date(2025, 7, 22)),  # PRISM's judge
    ("gemini", "gemini-2.5-flash", date(2025, 6, 17)), ("gemini", "gemini-2.5-pro", date(2025, 6, 17)),
    ("gemini", "gemini-3-pro-preview", date(2025, 11, 18)),
    ("openai", "o1", date(2024, 12, 17)), ("openai", "o3-mini", date(2025, 1, 31))])
def test_the_added_models_are_priced_from_their_release(provider, model, day):
    table = load_price_table()
    assert table.lookup(provider, model, day) is not None
    assert table.lookup(provider, model, date.fromordinal(day.toordinal() - 1)) is None
