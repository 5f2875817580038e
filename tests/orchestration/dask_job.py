"""A small job with a dynamic fan-out for the Dask executor test (its own module: Dask workers import it)."""

import os
import signal
from pathlib import Path

from dagster import DynamicOut, DynamicOutput, job, op

from peerlake.orchestration.dask_steps import dask_steps_executor

KILL_MARKER_ENV = "PEERLAKE_TEST_KILL_MARKER"
UNITS = 4


@op(out=DynamicOut())
def fan():
    for i in range(UNITS):
        yield DynamicOutput(i, mapping_key=f"u{i}")


@op
def unit(i: int) -> int:
    marker = Path(os.environ[KILL_MARKER_ENV])
    if i == 1 and not marker.exists():  # the first attempt of unit 1 takes its worker down with it
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return 10 * i


@op
def total(parts: list) -> int:
    return sum(parts)


@job(executor_def=dask_steps_executor)
def fan_out_job():
    total(fan().map(unit).collect())
