"""A built lake shared by every test that only reads it: built once per test session, not once per module
or per xdist worker (a dbt build is 20-60 s on 2 cores; `make test` would pay it in each module that
builds the same lake). A test that writes to the lake, or to the database, builds its own.

    @pytest.fixture(scope="session")
    def audit_built(tmp_path_factory):
        return shared_lakes.built_once(tmp_path_factory, "audit", build)   # build(folder) -> picklable

The first worker to ask builds under a file lock in the session's base temp folder (shared by the
workers); the others wait for it, then read the pickled result. A build that failed leaves no result, so
the next asker builds again and fails with its own message."""

import fcntl
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def built_once(tmp_path_factory, name: str, build: Callable[[Path], T]) -> T:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # popen-gwN's parent: the session's folder, the same for every worker
    folder, result = base / f"shared-{name}", base / f"shared-{name}.pickle"
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if result.is_file():
            return pickle.loads(result.read_bytes())
        shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
        folder.mkdir()
        value = build(folder)
        result.write_bytes(pickle.dumps(value))
        return value
