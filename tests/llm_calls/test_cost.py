"""The cost formula and the dated price table: the price in force on a call's day, batch and cache rates."""

from datetime import date

import pytest

from peerlake.llm_calls.cost import (
    BAD_USAGE,
    FREE,
    NO_USAGE,
    PRICED,
    UNKNOWN_MODEL,
    Price,
    compute_cost,
    parse_price_table,
    price_call,
)
from peerlake.llm_calls.types import Usage

PRICE = Price(input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)
# claude-x changes price on 2026-03-01 (4.0 -> 3.0 input); gpt-y has no batch or cache rates.
TABLE = parse_price_table("""
version = "t1"
[[anthropic."claude-x"]]
effective_from = 2026-03-01
checked = 2026-11-30
input = 3.0
cached_input = 0.3
cache_write = 3.75
output = 15.0
batch_input = 1.5
batch_output = 7.5
[[anthropic."claude-x"]]
effective_from = 2026-01-01
checked = 2026-02-01
input = 4.0
cached_input = 0.4
cache_write = 5.0
output = 20.0
[[openai."gpt-y"]]
effective_from = 2025-06-01
checked = 2026-11-30
input = 2.0
output = 8.0
""")
BEFORE, CHANGE, AFTER = date(2026, 2, 28), date(2026, 3, 1), date(2026, 7, 1)
MILLION_IN = Usage(input_tokens=1_000_000, output_tokens=0)


def test_formula_splits_uncached_cached_and_cache_write_tokens():
    usage = Usage(input_tokens=10_000, cached_input_tokens=6_000, cache_write_tokens=1_000, output_tokens=500)
    expected = (3_000 * 3.0 + 6_000 * 0.3 + 1_000 * 3.75 + 500 * 15.0) / 1_000_000
    assert compute_cost(usage, PRICE) == pytest.approx(expected)
    assert compute_cost(Usage(input_tokens=10_000, output_tokens=500), PRICE) == pytest.approx(
        (10_000 * 3.0 + 500 * 15.0) / 1_000_000)


def test_a_call_is_priced_with_the_price_in_force_on_its_day():
    usage = Usage(input_tokens=10_000, cached_input_tokens=2_000, cache_write_tokens=1_000, output_tokens=1_000)
    # old entry (2026-01-01): 7,000 * 4.0 + 2,000 * 0.4 + 1,000 * 5.0 + 1,000 * 20.0 = 53,800 µ$ = 0.0538
    cost, status = price_call("anthropic", "claude-x", usage, free=False, table=TABLE, day=BEFORE)
    assert (cost, status) == (pytest.approx(0.0538), PRICED)
    # new entry from 2026-03-01 on, its first day included:
    # 7,000 * 3.0 + 2,000 * 0.3 + 1,000 * 3.75 + 1,000 * 15.0 = 40,350 µ$ = 0.04035
    for day in (CHANGE, AFTER):
        assert price_call("anthropic", "claude-x", usage, free=False, table=TABLE, day=day) == (
            pytest.approx(0.04035), PRICED)


def test_a_day_before_the_first_price_has_no_price_never_zero():
    assert TABLE.lookup("anthropic", "claude-x", date(2025, 12, 31)) is None
    assert price_call("anthropic", "claude-x", MILLION_IN, free=False, table=TABLE,
                      day=date(2025, 12, 31)) == (None, UNKNOWN_MODEL)


def test_batch_rates_discount_every_token_class_like_input():
    usage = Usage(input_tokens=10_000, cached_input_tokens=2_000, cache_write_tokens=1_000, output_tokens=1_000)
    # batch share 1.5 / 3.0 = 0.5: cached 0.15, cache write 1.875, output 7.5
    # 7,000 * 1.5 + 2,000 * 0.15 + 1,000 * 1.875 + 1,000 * 7.5 = 20,175 µ$ = 0.020175
    assert price_call("anthropic", "claude-x", usage, free=False, table=TABLE, batch=True, day=AFTER) == (
        pytest.approx(0.020175), PRICED)
    # the January entry lists no batch rates, and gpt-y none at all: a batch answer is unpriced, not 0
    assert price_call("anthropic", "claude-x", usage, free=False, table=TABLE, batch=True,
                      day=BEFORE) == (None, UNKNOWN_MODEL)
    assert price_call("openai", "gpt-y", usage, free=False, table=TABLE, batch=True, day=AFTER) == (
        None, UNKNOWN_MODEL)


def test_missing_cache_prices_default_to_input_price():
    assert TABLE.lookup("openai", "gpt-y", AFTER) == Price(input=2.0, cached_input=2.0, cache_write=2.0, output=8.0)


def test_unknown_model_is_null_never_zero():
    assert price_call("openai", "gpt-unknown", Usage(input_tokens=5, output_tokens=5), free=False,
                      table=TABLE, day=AFTER) == (None, UNKNOWN_MODEL)


def test_local_model_is_free_and_dated_ids_fall_back():
    assert price_call("local", "anything", None, free=True, table=TABLE) == (0.0, FREE)
    # 1M uncached input tokens at 3.0 $/M after the change
    cost, status = price_call("anthropic", "claude-x-20250929", MILLION_IN, free=False, table=TABLE, day=AFTER)
    assert (cost, status) == (pytest.approx(3.0), PRICED)


def test_the_day_defaults_to_today():
    # every entry above starts in the past, so today falls in the newest one (3.0 $/M input)
    assert price_call("anthropic", "claude-x", MILLION_IN, free=False, table=TABLE) == (pytest.approx(3.0), PRICED)


def test_missing_or_inconsistent_usage_is_flagged():
    assert price_call("openai", "gpt-y", Usage(), free=False, table=TABLE, day=AFTER) == (None, NO_USAGE)
    bad = Usage(input_tokens=10, cached_input_tokens=20, output_tokens=1)
    assert price_call("openai", "gpt-y", bad, free=False, table=TABLE, day=AFTER) == (None, BAD_USAGE)


def test_rows_are_one_per_dated_price_oldest_first():
    rows = TABLE.rows()
    assert [(r["model"], r["effective_from"]) for r in rows] == [
        ("claude-x", "2026-01-01"), ("claude-x", "2026-03-01"), ("gpt-y", "2025-06-01")]
    assert rows[1] == {"provider": "anthropic", "model": "claude-x", "effective_from": "2026-03-01",
                       "checked": "2026-11-30", "input": 3.0, "cached_input": 0.3, "cache_write": 3.75,
                       "output": 15.0, "batch_input": 1.5, "batch_output": 7.5}
    assert rows[2]["batch_input"] is None and rows[2]["cache_write"] == 2.0


@pytest.mark.parametrize("body, why", [
    ('[[openai."m"]]\neffective_from = 2026-01-01\nchecked = 2026-01-01\ninput = 1\n', "output"),
    ('[[openai."m"]]\nchecked = 2026-01-01\ninput = 1\noutput = 1\n', "effective_from"),
    ('[[openai."m"]]\neffective_from = 2026-01-01\ninput = 1\noutput = 1\n', "checked"),
    ('[[openai."m"]]\neffective_from = 2026-01-01\nchecked = 2026-01-01\ninput = 1\noutput = 1\nbatch_input = 1\n',
     "go together"),
    ('[[openai."m"]]\neffective_from = 2026-01-01\nchecked = 2026-01-01\ninput = -1\noutput = 1\n', "negative"),
    ('[[openai."m"]]\neffective_from = 2026-01-01\nchecked = 2026-01-01\ninput = 1\noutput = 1\n'
     '[[openai."m"]]\neffective_from = 2026-01-01\nchecked = 2026-01-01\ninput = 2\noutput = 2\n', "one day"),
])
def test_a_malformed_entry_is_refused_naming_it(body, why):
    with pytest.raises(ValueError, match=why) as err:
        parse_price_table('version = "v"\n' + body)
    assert 'openai."m"' in str(err.value)


def test_table_needs_a_version():
    with pytest.raises(ValueError, match="version"):
        parse_price_table('[[openai."m"]]\neffective_from = 2026-01-01\nchecked = 2026-01-01\ninput = 1\noutput = 1\n')
