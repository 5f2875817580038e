from pathlib import Path

import pytest

from warehouse import EventLog, Lake

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture
def log(tmp_path):
    event_log = EventLog(Lake(tmp_path / "lake"))
    yield event_log
    event_log.close()


@pytest.fixture
def shared():
    """Path of a file under ../shared/data; skips the test when it is absent (a fresh clone)."""

    def find(*parts: str) -> Path:
        path = SHARED_DATA.joinpath(*parts)
        if not path.exists():
            pytest.skip(f"shared test data not present: {path}")
        return path

    return find
