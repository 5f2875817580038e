"""Checks before the first call: can every provider/model a study resolves to answer?

A wrong name, a missing key or a server that is not running otherwise fails every call of a run, and
the terminal shows a failed Dagster step. Each check gives a Finding, one line saying what to do:
- the provider is one settings.PROVIDERS names;
- the embedded model is one settings.LOCAL_MODELS knows, and installed (llm_calls/local_model.py);
- a hosted name is in the price table for its provider (a dated id by its base id), or allowed by
  $PEERLAKE_ALLOW_MODELS; a provider the table lists nothing for (a self-hosted server) takes any name;
- the provider is ready: its own `ensure_ready()` (the key in its variable, settings.API_KEY_ENV), so a
  provider added later brings its own check;
- its endpoint (a study's base_url, $PEERLAKE_BASE_URL) accepts a TCP connection within PROBE_TIMEOUT_S;
- the model is not retired, and does not retire within RETIRE_WARN_DAYS (the table's `retires`).
`blocking` findings stop `peerlake run` before Dagster starts; the retirement ones are warnings (the
provider, not peerlake, decides when a retired name stops answering). A dry run shows them all as warnings.
"""

import difflib
import importlib.util
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlsplit

from peerlake.llm_calls.cost import PriceTable, load_price_table, utc_today
from peerlake.llm_calls.types import LlmRequest
from peerlake.warehouse import settings

PROBE_TIMEOUT_S = 2.0  # a server on this machine or the LAN answers a connect in milliseconds
RETIRE_WARN_DAYS = 30
LOCAL = "local"
MODEL_HINT = "run `make model` (or `python -m peerlake.llm_calls.local_model`)"


@dataclass(frozen=True)
class ModelUse:
    """A provider/model a study calls, where (`base_url`: the study's endpoint, None = the provider's
    default) and by what (`who`: "reviewer reviewer_scoring", "judge panel t0" …)."""

    provider: str
    model: str
    base_url: str | None = None
    who: str = ""

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass(frozen=True)
class Finding:
    # unknown_provider | unknown_model | not_installed | not_ready | no_endpoint | dead_endpoint | retired | retiring
    kind: str
    provider: str
    model: str
    message: str  # one line: what is wrong, and what to do
    blocking: bool

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.model}"


def known_models(provider: str, table: PriceTable | None = None) -> tuple[str, ...]:
    """The names peerlake knows for a provider: the embedded models, or the price table's."""
    if provider == LOCAL:
        return tuple(settings.LOCAL_MODELS)
    table = table or load_price_table()
    return tuple(sorted(m for p, m in table.prices if p == provider))


def did_you_mean(provider: str, model: str, table: PriceTable | None = None) -> str | None:
    """The known PROVIDER/MODEL closest to a name peerlake does not know (difflib, as registry names and
    study keys are guessed): the same name under another provider first (openai/claude-sonnet-4-6)."""
    table = table or load_price_table()
    elsewhere = sorted(p for p, m in table.prices if m == model and p != provider)
    if elsewhere:
        return f"{elsewhere[0]}/{model}"
    close = difflib.get_close_matches(model, known_models(provider, table), n=1)
    return f"{provider}/{close[0]}" if close else None


def is_allowed(provider: str, model: str) -> bool:
    allowed = settings.allowed_models()
    return f"{provider}/{model}" in allowed or f"{provider}/*" in allowed


def _guess(provider: str, model: str, table: PriceTable) -> str:
    guess = did_you_mean(provider, model, table)
    return f"; did you mean {guess}?" if guess else ""


def _who(use: ModelUse) -> str:
    return f" ({use.who})" if use.who else ""


def check_uses(uses: Iterable[ModelUse], *, table: PriceTable | None = None, today: date | None = None,
               probe: bool = True, timeout_s: float = PROBE_TIMEOUT_S) -> list[Finding]:
    """Every finding for these uses, one per problem and model (the same model used twice is checked once,
    its users named together); `probe` False skips the endpoint's connect."""
    table = table or load_price_table()
    today = today or utc_today()
    merged: dict[tuple, list[str]] = {}
    for u in uses:
        merged.setdefault((u.provider, u.model, u.base_url), [])
        if u.who and u.who not in merged[(u.provider, u.model, u.base_url)]:
            merged[(u.provider, u.model, u.base_url)].append(u.who)
    findings: list[Finding] = []
    probed: dict[str, str | None] = {}
    for (provider, model, base_url), who in merged.items():
        use = ModelUse(provider, model, base_url, ", ".join(who))
        for f in _check(use, table, today, probe, timeout_s, probed):
            # one model at two endpoints: its name is said once; a provider's missing key once
            if f not in findings and not (f.kind == "not_ready" and any(
                    g.kind == "not_ready" and g.provider == f.provider for g in findings)):
                findings.append(f)
    return findings


def _check(use: ModelUse, table: PriceTable, today: date, probe: bool, timeout_s: float,
           probed: dict[str, str | None]) -> list[Finding]:
    from peerlake.llm_calls.providers import ProviderUnavailable, make_provider

    provider, model = use.provider, use.model
    if provider not in settings.PROVIDERS:
        close = difflib.get_close_matches(provider, settings.PROVIDERS, n=1)
        return [Finding("unknown_provider", provider, model,
                        f"unknown provider {provider!r}{_who(use)}; known: {', '.join(settings.PROVIDERS)}"
                        + (f"; did you mean {close[0]!r}?" if close else ""), True)]
    if provider == LOCAL:
        return _check_local(use)
    out = []
    if (known_models(provider, table) and not table.history(provider, model)
            and not is_allowed(provider, model)):
        out.append(Finding("unknown_model", provider, model,
                           f"unknown {provider} model {model!r}{_who(use)}: not in llm_calls/prices.toml"
                           f"{_guess(provider, model, table)} Fix the name, or allow it with "
                           f"PEERLAKE_ALLOW_MODELS={use.label} (it then has no price)", True))
    instance = make_provider(provider)
    try:
        instance.ensure_ready()
    except ProviderUnavailable as exc:
        out.append(Finding("not_ready", provider, model, f"{use.label}{_who(use)}: {exc}; `peerlake run … "
                                                         "--dry-run` estimates without it", True))
    req = LlmRequest(provider=provider, model=model, messages=(), base_url=use.base_url)
    try:
        url = instance.resolve_base_url(req) if hasattr(instance, "resolve_base_url") else instance.endpoint(req)
    except ProviderUnavailable as exc:
        out.append(Finding("no_endpoint", provider, model, f"{use.label}{_who(use)}: {exc}", True))
        url = None
    if url and probe:
        if url not in probed:
            probed[url] = _unreachable(url, timeout_s)
        if probed[url] is not None:
            out.append(Finding("dead_endpoint", provider, model,
                               f"nothing answers at {url} ({probed[url]}) for {use.label}{_who(use)}: start "
                               "the server, or fix the base_url (the study's, or PEERLAKE_BASE_URL)", True))
    return out + _retirement(use, table, today)


def _check_local(use: ModelUse) -> list[Finding]:
    from peerlake.llm_calls.local_model import is_installed

    if use.model not in settings.LOCAL_MODELS:
        close = difflib.get_close_matches(use.model, settings.LOCAL_MODELS, n=1)
        return [Finding("unknown_model", use.provider, use.model,
                        f"no embedded model {use.model!r}{_who(use)}; provider 'local' knows "
                        f"{', '.join(settings.LOCAL_MODELS)}" + (f"; did you mean {close[0]!r}?" if close else "")
                        + ". Name one of them, or a hosted model (--model PROVIDER/MODEL)", True)]
    missing = [] if importlib.util.find_spec("llama_cpp") is not None else ["llama-cpp-python"]
    path = settings.local_model_path(use.model)
    # PEERLAKE_LOCAL_MODEL_PATH names the user's own file, of any size; the cache's must be the pinned one
    own = path != settings.cache_root() / "models" / settings.local_model(use.model).file
    if not (path.is_file() if own else is_installed(path, use.model)):
        missing.append(str(path))
    if missing:
        return [Finding("not_installed", use.provider, use.model,
                        f"embedded model {use.model} is not installed ({', '.join(missing)} missing){_who(use)}: "
                        f"{MODEL_HINT}", True)]
    return []


def _unreachable(url: str, timeout_s: float) -> str | None:
    """Why nothing accepts a TCP connection at the URL's host and port, or None when something does."""
    parts = urlsplit(url)
    if not parts.hostname:
        return "not a URL with a host"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname, port), timeout=timeout_s):
            return None
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except (OSError, ValueError) as exc:
        return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _retirement(use: ModelUse, table: PriceTable, today: date) -> list[Finding]:
    day = table.retires(use.provider, use.model)
    if day is None:
        return []
    if day <= today:
        return [Finding("retired", use.provider, use.model,
                        f"{use.label}{_who(use)} was retired by its provider on {day}: its calls will probably "
                        "be refused; choose a current model (calls already in the log still replay)", False)]
    if (day - today).days <= RETIRE_WARN_DAYS:
        return [Finding("retiring", use.provider, use.model,
                        f"{use.label}{_who(use)} retires on {day}, in {(day - today).days} days: its provider "
                        "then refuses it; plan a current model", False)]
    return []
