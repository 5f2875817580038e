import functools
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Under pytest-xdist the embedded model shares the cores with the other workers: llama.cpp's threads
# spin-wait for each other, so more threads than free cores is slower than fewer. Each worker gets its
# share (a developer's own PEERLAKE_LOCAL_THREADS wins).
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault("PEERLAKE_LOCAL_THREADS",
                          str(max(1, (os.cpu_count() or 2) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def lake(tmp_path, monkeypatch):
    """A fresh lake root for one test; PEERLAKE_HOME points at it so every module agrees."""
    from warehouse import Lake

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    return Lake(tmp_path / "lake").ensure()


@pytest.fixture
def shared_data():
    if not SHARED_DATA.exists():
        pytest.skip(f"shared test data not found at {SHARED_DATA} (only present beside the project checkout)")
    return SHARED_DATA


def pytest_collection_modifyitems(config, items):
    # `PEERLAKE_SKIP_MODEL_TESTS=1` lets a developer without the 1.1 GB model run the rest quickly.
    if os.environ.get("PEERLAKE_SKIP_MODEL_TESTS") == "1":
        skip = pytest.mark.skip(reason="PEERLAKE_SKIP_MODEL_TESTS=1")
        for item in items:
            if "model" in item.keywords:
                item.add_marker(skip)
    # Files whose names end in _model.py run the embedded model (generation): they go first, one
    # after another on one worker (see pytest_xdist_make_scheduler below); the other workers start
    # with the CLI pipeline tests (minutes each), so short tests fill the end and the workers finish
    # together.
    items.sort(key=lambda item: (not _runs_the_model(item.nodeid), not item.nodeid.startswith(HEAVY)))


MODEL_GROUP = "embedded_model"
HEAVY = ("tests/orchestration/", "tests/stats/test_validity_through_the_lake.py")


@functools.cache
def _has_module_fixture(path: str) -> bool:
    """Whether a test file defines a module-scoped fixture (a dbt build over a sample lake, say: ~30 s).
    Such a file is one work unit: spread over two workers, each would build the fixture once."""
    try:
        return 'scope="module"' in (REPO / path).read_text(encoding="utf-8")
    except OSError:
        return False


def _runs_the_model(nodeid: str) -> bool:
    """A test that makes the embedded model generate lives in a file named *_model.py (a convention:
    the model uses every core, so two such tests must not run at once). Tokenizer-only tests may be
    marked `model` (they need the file) and live anywhere."""
    return nodeid.split("::", 1)[0].endswith("_model.py")


def pytest_xdist_make_scheduler(config, log):
    """`make test` runs `pytest -n auto --dist loadgroup`. xdist's own loadgroup reads xdist_group
    markers through `item._nodeid`, which pytest 9 no longer has (its node ids are `_id`), so it would
    group nothing; this scheduler groups by file name instead: every *_model.py test is one work unit,
    so they run one after another on one worker (the first, as they are collected first) while the
    other workers take everything else, one test at a time."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModelTestsTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if _runs_the_model(nodeid):
                return MODEL_GROUP
            path = nodeid.split("::", 1)[0]
            return path if _has_module_fixture(path) else nodeid

    return ModelTestsTogether(config, log)


@pytest.fixture(scope="session")
def s3_server():
    """A local S3-API server (moto) for this pytest process; see tests/s3server.py."""
    pytest.importorskip("moto", reason="moto is not installed (make install adds it)")
    from tests import s3server

    server = s3server.start()
    yield server
    server.stop()


@pytest.fixture
def s3_lake_url(s3_server, monkeypatch, request):
    """A fresh bucket on the local S3 server, with the AWS variables pointing at it: the URL to set as
    PEERLAKE_LAKE_URL (not set here, so a test chooses which processes see the remote lake)."""
    import re

    for k, v in s3_server.env.items():
        monkeypatch.setenv(k, v)
    bucket = re.sub(r"[^a-z0-9-]", "-", f"t-{request.node.name.lower()}")[:50].strip("-") + f"-{os.getpid()}"
    s3_server.client().create_bucket(Bucket=bucket)
    return f"s3://{bucket}/lake"
