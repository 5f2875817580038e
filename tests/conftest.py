import functools
import os
from pathlib import Path

import pytest

from tests import lanes

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
    from peerlake.warehouse import Lake

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    return Lake(tmp_path / "lake").ensure()


@pytest.fixture
def shared_data():
    if not SHARED_DATA.exists():
        pytest.skip(f"shared test data not found at {SHARED_DATA} (only present beside the project checkout)")
    return SHARED_DATA


def pytest_collection_modifyitems(config, items):
    lanes.mark(items)  # `pipeline` / `model` by what each test reaches (tests/lanes.py): make test-fast skips both
    # `PEERLAKE_SKIP_MODEL_TESTS=1` lets a developer without the 1.1 GB model run the rest quickly.
    if os.environ.get("PEERLAKE_SKIP_MODEL_TESTS") == "1":
        skip = pytest.mark.skip(reason="PEERLAKE_SKIP_MODEL_TESTS=1")
        for item in items:
            if "model" in item.keywords:
                item.add_marker(skip)
    # Files whose names end in _model.py run the embedded model (generation): the longest work, so it
    # goes first, spread over the workers (see pytest_xdist_make_scheduler below); then the CLI pipeline
    # tests (minutes each), then the other `pipeline` tests (dbt builds, ~30 s a file), so short tests
    # fill the end and the workers finish together.
    items.sort(key=lambda item: (not _runs_the_model(item.nodeid), not item.nodeid.startswith(HEAVY),
                                 "pipeline" not in item.keywords))


HEAVY = ("tests/orchestration/", "tests/metrics/stats/test_validity_through_the_lake.py")


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
    the scheduler starts them first). Tokenizer-only tests may be marked `model` (they need the file)
    and live anywhere."""
    return nodeid.split("::", 1)[0].endswith("_model.py")


def pytest_xdist_make_scheduler(config, log):
    """`make test` runs `pytest -n auto --dist loadgroup`. xdist's own loadgroup reads xdist_group
    markers through `item._nodeid`, which pytest 9 no longer has (its node ids are `_id`), so it would
    group nothing; this scheduler sends whole files where a file has a module-scoped fixture (built once,
    not once per worker) and single tests otherwise, in the order pytest_collection_modifyitems made:
    the embedded-model tests first, spread over the workers (each worker's model gets its share of the
    cores, PEERLAKE_LOCAL_THREADS above), the longest work first, so the workers finish together.
    xdist would otherwise reorder the units by their number of tests."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class LongestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if _has_module_fixture(path) else nodeid

    return LongestFirst(config, log)


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
