"""The cost formula and the price table."""

import pytest

from llm_calls.cost import (
    BAD_USAGE,
    FREE,
    NO_USAGE,
    PRICED,
    UNKNOWN_MODEL,
    Price,
    compute_cost,
    load_price_table,
    parse_price_table,
    price_call,
)
from llm_calls.types import Usage

PRICE = Price(input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)
TABLE = parse_price_table("""
version = "t1"
[anthropic."claude-x"]
input = 3.0
cached_input = 0.3
cache_write = 3.75
output = 15.0
[openai."gpt-y"]
input = 2.0
output = 8.0
""")


def test_formula_splits_uncached_cached_and_cache_write_tokens():
    usage = Usage(input_tokens=10_000, cached_input_tokens=6_000, cache_write_tokens=1_000, output_tokens=500)
    expected = (3_000 * 3.0 + 6_000 * 0.3 + 1_000 * 3.75 + 500 * 15.0) / 1_000_000
    assert compute_cost(usage, PRICE) == pytest.approx(expected)
    assert compute_cost(Usage(input_tokens=10_000, output_tokens=500), PRICE) == pytest.approx(
        (10_000 * 3.0 + 500 * 15.0) / 1_000_000)


def test_missing_cache_prices_default_to_input_price():
    assert TABLE.lookup("openai", "gpt-y") == Price(input=2.0, cached_input=2.0, cache_write=2.0, output=8.0)


def test_unknown_model_is_null_never_zero():
    assert price_call("openai", "gpt-unknown", Usage(input_tokens=5, output_tokens=5), free=False,
                      table=TABLE) == (None, UNKNOWN_MODEL)


def test_local_model_is_free_and_dated_ids_fall_back():
    assert price_call("local", "anything", None, free=True, table=TABLE) == (0.0, FREE)
    cost, status = price_call("anthropic", "claude-x-20250929", Usage(input_tokens=1_000_000, output_tokens=0),
                              free=False, table=TABLE)
    assert (cost, status) == (pytest.approx(3.0), PRICED)


def test_missing_or_inconsistent_usage_is_flagged():
    assert price_call("openai", "gpt-y", Usage(), free=False, table=TABLE) == (None, NO_USAGE)
    bad = Usage(input_tokens=10, cached_input_tokens=20, output_tokens=1)
    assert price_call("openai", "gpt-y", bad, free=False, table=TABLE) == (None, BAD_USAGE)


def test_table_needs_version_and_numeric_prices():
    with pytest.raises(ValueError, match="version"):
        parse_price_table('[openai."m"]\ninput = 1\noutput = 1\n')
    with pytest.raises(ValueError, match=r'openai\."m"'):
        parse_price_table('version = "v"\n[openai."m"]\ninput = 1\n')


def test_repo_price_table_loads_with_a_version():
    table = load_price_table()
    assert table.version and table.lookup("openai", "gpt-4.1-mini-2025-04-14") is not None
    assert all(p.input > 0 and p.output > 0 for p in table.prices.values())
