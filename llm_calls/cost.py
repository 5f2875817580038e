"""Price a call from its token usage and the versioned price table (llm_calls/prices.toml)."""

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from llm_calls.types import Usage

PRICES_PATH = Path(__file__).with_name("prices.toml")

# cost_status values recorded on every llm_call event.
PRICED = "priced"
FREE = "free"
UNKNOWN_MODEL = "unknown_model"
NO_USAGE = "no_usage"  # the provider reported no token counts (or the attempt failed)
BAD_USAGE = "bad_usage"  # cached + cache-write tokens exceed the prompt tokens

_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    cached_input: float
    cache_write: float
    output: float


@dataclass(frozen=True)
class PriceTable:
    version: str
    prices: dict[tuple[str, str], Price]
    source_text: str = ""  # the TOML it was parsed from, stored in the lake with the version

    def rows(self) -> list[dict]:
        """The table as rows (the `price_table_recorded` event's prices_json), for dbt."""
        return [{"provider": prov, "model": model, "input": p.input, "cached_input": p.cached_input,
                 "cache_write": p.cache_write, "output": p.output}
                for (prov, model), p in sorted(self.prices.items())]

    def lookup(self, provider: str, model: str) -> Price | None:
        """Exact model id first, then the id without a trailing release date."""
        return self.prices.get((provider, model)) or self.prices.get(
            (provider, _DATE_SUFFIX.sub("", model)))


def parse_price_table(text: str, where: str = "price table") -> PriceTable:
    data = tomllib.loads(text)
    version = data.pop("version", None)
    if not isinstance(version, str) or not version:
        raise ValueError(f"{where}: missing a string `version` key")
    prices = {}
    for provider, models in data.items():
        for model, p in models.items():
            try:
                prices[(provider, model)] = Price(
                    input=float(p["input"]),
                    cached_input=float(p.get("cached_input", p["input"])),
                    cache_write=float(p.get("cache_write", p["input"])),
                    output=float(p["output"]),
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{where}: [{provider}.\"{model}\"] needs numeric input and output "
                                 f"prices ({type(exc).__name__}: {exc})") from exc
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


def price_call(provider: str, model: str, usage: Usage | None, *, free: bool,
               table: PriceTable, batch: bool = False) -> tuple[float | None, str]:
    """(cost_usd, cost_status) for one attempt. Unknown models cost None, never 0. A batch answer
    costs half (OpenAI Batch and Anthropic Message Batches both discount every token class 50%)."""
    if free:
        return 0.0, FREE
    price = table.lookup(provider, model)
    if price is None:
        return None, UNKNOWN_MODEL
    if usage is None or usage.input_tokens is None or usage.output_tokens is None:
        return None, NO_USAGE
    try:
        return compute_cost(usage, price) * (0.5 if batch else 1.0), PRICED
    except ValueError:
        return None, BAD_USAGE
