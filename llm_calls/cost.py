"""Price a call from its token usage and the dated, versioned price table (llm_calls/prices.toml).

A model's price is a history: each entry holds from its `effective_from` day (UTC) until the next
entry's, and says when it was last `checked` against the provider's page. A call is priced with the
entry in force on its day; before the first entry, or for a model not listed, it has no price and
is recorded with cost_usd None ("unknown_model"), never 0. dbt prices every call again from the
table's rows (the `price_table_recorded` event), with the same rules (int_call_costs).
An entry may say when the provider `retires` the model id (its shutdown day): not a price, so not in
those rows; the pre-flight checks (llm_calls/preflight.py) warn from 30 days before it.
"""

import re
import tomllib
from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import Path

from peerlake.llm_calls.types import Usage

PRICES_PATH = Path(__file__).with_name("prices.toml")

# cost_status values recorded on every llm_call event.
PRICED = "priced"
FREE = "free"
UNKNOWN_MODEL = "unknown_model"  # no price in force for this provider/model (at this rate) on the call's day
NO_USAGE = "no_usage"  # the provider reported no token counts (or the attempt failed)
BAD_USAGE = "bad_usage"  # cached + cache-write tokens exceed the prompt tokens

_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")
_RATES = ("input", "cached_input", "cache_write", "output", "batch_input", "batch_output")


@dataclass(frozen=True)
class Price:
    """USD per million tokens. Batch rates are None when the model has no batch API price."""

    input: float
    cached_input: float
    cache_write: float
    output: float
    batch_input: float | None = None
    batch_output: float | None = None

    def batch(self) -> "Price | None":
        """The rates a provider batch answer is charged. OpenAI Batch and Anthropic Message Batches
        discount cached-input and cache-write tokens by the same share as plain input, so those two
        are scaled by batch_input / input."""
        if self.batch_input is None or self.batch_output is None:
            return None
        share = self.batch_input / self.input if self.input else 1.0
        return Price(input=self.batch_input, cached_input=self.cached_input * share,
                     cache_write=self.cache_write * share, output=self.batch_output)


@dataclass(frozen=True)
class DatedPrice:
    """One entry of a model's price history."""

    provider: str
    model: str
    effective_from: date
    checked: date
    price: Price
    retires: date | None = None  # the provider's shutdown day of this model id, where it announced one


@dataclass(frozen=True)
class PriceTable:
    version: str
    # (provider, model) -> its entries, oldest first (no two on one day)
    prices: dict[tuple[str, str], tuple[DatedPrice, ...]]
    source_text: str = ""  # the TOML it was parsed from, stored in the lake with the version

    def rows(self) -> list[dict]:
        """One row per dated price (the `price_table_recorded` event's prices_json), for dbt."""
        return [{"provider": d.provider, "model": d.model, "effective_from": d.effective_from.isoformat(),
                 "checked": d.checked.isoformat(),
                 **{rate: getattr(d.price, rate) for rate in _RATES}}
                for key in sorted(self.prices) for d in self.prices[key]]

    def history(self, provider: str, model: str) -> tuple[DatedPrice, ...]:
        """The model's entries: the exact id's if listed, else those of the id without a trailing
        release date (gpt-4.1-mini-2025-04-14 -> gpt-4.1-mini)."""
        return self.prices.get((provider, model)) or self.prices.get(
            (provider, _DATE_SUFFIX.sub("", model)), ())

    def lookup(self, provider: str, model: str, day: date | None = None) -> Price | None:
        """The price in force on `day` (UTC; default today), or None."""
        entries = self.history(provider, model)
        day = day or utc_today()
        i = bisect_right([e.effective_from for e in entries], day)
        return entries[i - 1].price if i else None

    def retires(self, provider: str, model: str) -> date | None:
        """The day the provider retires the model (the newest entry that says one), or None."""
        return next((e.retires for e in reversed(self.history(provider, model)) if e.retires), None)


def utc_today() -> date:
    return datetime.now(UTC).date()


def _day(value, what: str) -> date:
    # TOML local dates parse to datetime.date; a quoted "YYYY-MM-DD" is accepted too.
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str):
        return date.fromisoformat(value)
    raise TypeError(f"{what} must be a date (YYYY-MM-DD), got {value!r}")


def _entry(provider: str, model: str, p: dict) -> DatedPrice:
    rates = {"input": float(p["input"]), "output": float(p["output"])}
    rates["cached_input"] = float(p.get("cached_input", rates["input"]))
    rates["cache_write"] = float(p.get("cache_write", rates["input"]))
    if ("batch_input" in p) != ("batch_output" in p):
        raise ValueError("batch_input and batch_output go together")
    for rate in ("batch_input", "batch_output"):
        rates[rate] = float(p[rate]) if rate in p else None
    if any(v is not None and v < 0 for v in rates.values()):
        raise ValueError("a price is negative")
    return DatedPrice(provider=provider, model=model, effective_from=_day(p["effective_from"], "effective_from"),
                      checked=_day(p["checked"], "checked"), price=Price(**rates),
                      retires=_day(p["retires"], "retires") if "retires" in p else None)


def parse_price_table(text: str, where: str = "price table") -> PriceTable:
    data = tomllib.loads(text)
    version = data.pop("version", None)
    if not isinstance(version, str) or not version:
        raise ValueError(f"{where}: missing a string `version` key")
    prices = {}
    for provider, models in data.items():
        for model, entries in models.items():
            name = f"[[{provider}.\"{model}\"]]"
            try:
                dated = sorted((_entry(provider, model, p) for p in (
                    entries if isinstance(entries, list) else [entries])), key=lambda d: d.effective_from)
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{where}: {name} needs effective_from and checked dates and numeric input "
                                 f"and output prices ({type(exc).__name__}: {exc})") from exc
            days = [d.effective_from for d in dated]
            if len(set(days)) != len(days):
                raise ValueError(f"{where}: {name} has two prices effective on one day")
            prices[(provider, model)] = tuple(dated)
    return PriceTable(version=version, prices=prices, source_text=text)


@lru_cache(maxsize=4)
def load_price_table(path: Path = PRICES_PATH) -> PriceTable:
    return parse_price_table(path.read_text(encoding="utf-8"), where=str(path))


def compute_cost(usage: Usage, price: Price) -> float:
    """The cost formula. Absent cached / cache-write counts are 0; input and output must be known."""
    if usage.input_tokens is None or usage.output_tokens is None:
        raise ValueError("usage has no input or output token count")
    cached = usage.cached_input_tokens or 0
    cache_write = usage.cache_write_tokens or 0
    uncached = usage.input_tokens - cached - cache_write
    if uncached < 0:
        raise ValueError(f"cached ({cached}) + cache-write ({cache_write}) tokens exceed "
                         f"input tokens ({usage.input_tokens})")
    micro = (uncached * price.input + cached * price.cached_input
             + cache_write * price.cache_write + usage.output_tokens * price.output)
    return micro / 1_000_000


def price_call(provider: str, model: str, usage: Usage | None, *, free: bool, table: PriceTable,
               batch: bool = False, day: date | None = None) -> tuple[float | None, str]:
    """(cost_usd, cost_status) for one attempt answered on `day` (UTC; default today). Unknown
    models, days before a model's first price and batch answers of a model without batch rates
    cost None, never 0."""
    if free:
        return 0.0, FREE
    price = table.lookup(provider, model, day)
    if price is not None and batch:
        price = price.batch()
    if price is None:
        return None, UNKNOWN_MODEL
    if usage is None or usage.input_tokens is None or usage.output_tokens is None:
        return None, NO_USAGE
    try:
        return compute_cost(usage, price), PRICED
    except ValueError:
        return None, BAD_USAGE
