import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
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


# tryfirst: xdist's worker reads the xdist_group markers in its own modifyitems hook, which must see ours.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # `PEERLAKE_SKIP_MODEL_TESTS=1` lets a developer without the 1.1 GB model run the rest quickly.
    if os.environ.get("PEERLAKE_SKIP_MODEL_TESTS") == "1":
        skip = pytest.mark.skip(reason="PEERLAKE_SKIP_MODEL_TESTS=1")
        for item in items:
            if "model" in item.keywords:
                item.add_marker(skip)
    # `make test` runs on every core (pytest-xdist, --dist loadgroup). The embedded model already uses
    # all of them, so its tests share one group: they run one after another on one worker while the
    # others take the rest. They go first because they are the longest chain; the scheduler then
    # fills the other workers with everything else.
    for item in items:
        if "model" in item.keywords:
            item.add_marker(pytest.mark.xdist_group("embedded_model"))
    items.sort(key=lambda item: "model" not in item.keywords)
