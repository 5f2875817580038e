from pathlib import Path

import pytest

from peerlake.warehouse import EventLog, Lake


@pytest.fixture
def log(tmp_path):
    event_log = EventLog(Lake(tmp_path / "lake"))
    yield event_log
    event_log.close()


@pytest.fixture
def shared(shared_data):
    """Path of a file under ../shared/data; skips the test when that file is absent."""

    def find(*parts: str) -> Path:
        path = shared_data.joinpath(*parts)
        if not path.exists():
            pytest.skip(f"shared test data not present: {path}")
        return path

    return find
