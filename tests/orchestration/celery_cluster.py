"""A Celery cluster on this machine for the executor tests and benchmarks/workers_throughput.py: a real
redis-server on a free port in a temporary folder, and `dagster-celery worker start` processes, each in a
session of its own so that one can be killed -9 whole (its celery parent and pool child), as a lost
machine would be."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from peerlake.orchestration.runner import write_dagster_yaml

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PEERLAKE_BIN = str(BIN / "peerlake")


def redis_available() -> bool:
    return shutil.which("redis-server") is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout_s} s")


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A throwaway redis-server (no persistence) on a free port: yields its URL."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    with open(folder / "redis.log", "w") as out:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                                 "--save", "", "--appendonly", "no"], stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_port(port, 10)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def cluster_env(lake_root: Path, broker: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a run and its workers share: the lake, the Dagster instance, the broker."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEERLAKE_") or k == "PEERLAKE_LOCAL_THREADS"}
    dagster_home = lake_root / "dagster"
    dagster_home.mkdir(parents=True, exist_ok=True)
    write_dagster_yaml(dagster_home)
    # create the instance's storage once, before workers start: two workers migrating a new one race
    subprocess.run([str(BIN / "dagster"), "instance", "migrate"], env={**os.environ, "DAGSTER_HOME": str(dagster_home)},
                   check=True, capture_output=True)
    env.update({"PEERLAKE_HOME": str(lake_root), "DAGSTER_HOME": str(dagster_home),
                "PEERLAKE_CELERY_BROKER": broker, "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
                "PYTHONPATH": str(REPO)})
    env.update(extra or {})
    return env


class Workers:
    """`dagster-celery worker start` processes with the config `python -m peerlake.orchestration.executors celery-yaml`
    writes (the README's commands)."""

    def __init__(self, env: dict[str, str], folder: Path, concurrency: int = 1):
        self.env, self.folder, self.concurrency = env, folder, concurrency
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "celery.yaml"
        self.config.write_text(subprocess.run([sys.executable, "-m", "peerlake.orchestration.executors", "celery-yaml"],
                                              env=env, cwd=REPO, check=True, capture_output=True,
                                              text=True).stdout)
        self.procs: dict[str, subprocess.Popen] = {}

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self, name: str) -> None:
        with open(self.folder / f"{name}.log", "w") as out:
            self.procs[name] = subprocess.Popen(
                [str(BIN / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app", "-y", str(self.config),
                 "-n", name, "--", f"--concurrency={self.concurrency}"],
                env=self.env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if all(" ready." in self.log(n) for n in self.procs):
                return
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead:
                raise RuntimeError(f"worker {dead[0]} exited: {self.log(dead[0])[-2000:]}")
            time.sleep(0.2)
        raise TimeoutError("celery workers not ready: " + " | ".join(self.log(n)[-500:] for n in self.procs))

    def busy(self, name: str) -> bool:
        """The worker has taken a task it has not finished (its log's received vs succeeded/failed lines)."""
        text = self.log(name)
        return text.count("] received") > text.count(" succeeded in ") + text.count(" raised unexpected")

    def kill(self, name: str) -> None:
        """kill -9 the worker's whole session (the dagster-celery launcher, celery and its pool child)."""
        proc = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop(self) -> None:
        for proc in self.procs.values():
            with_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for proc in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with_group(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self.procs.clear()


def with_group(pid: int, sig: int) -> None:
    with suppress(ProcessLookupError):
        os.killpg(pid, sig)
