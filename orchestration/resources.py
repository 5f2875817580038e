"""Resources: the lake (event log + blobs) and the gateway the review assets call models through."""

import os
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

from dagster import ConfigurableResource
from dagster_dbt import DbtCliResource
from pydantic import PrivateAttr

from peerlake.warehouse import settings


class LakeResource(ConfigurableResource):
    """The lake under `root` (defaults to settings.lake_root(), i.e. $PEERLAKE_HOME), shared on object
    storage when PEERLAKE_LAKE_URL is set (settings.lake_url())."""

    root: str = ""

    # Dagster makes a fresh resource for each run (shared by the run's steps in one process), so these
    # hold one run's study: its file read once, its papers resolved once (studies.resolve.Resolver).
    _studies = PrivateAttr(default_factory=dict)
    _resolver = PrivateAttr(default=None)

    def lake(self):
        from peerlake.warehouse import Lake

        return Lake(Path(self.root) if self.root else settings.lake_root(), settings.lake_url())

    def event_log(self):
        from peerlake.warehouse import EventLog

        return EventLog(self.lake())

    def study(self, log, name: str):
        """The study this run runs (studies.load_study), read from the lake on the run's first ask."""
        if name not in self._studies:
            from peerlake.studies import load_study

            self._studies[name] = load_study(log, name)
        return self._studies[name]

    def resolve(self, log, study):
        """The papers the study covers now (studies.resolve_papers), the log read again only when it
        gained what a resolution reads."""
        if self._resolver is None:
            from peerlake.studies.resolve import Resolver

            self._resolver = Resolver()
        return self._resolver(log, study)


class ReviewerResource(ConfigurableResource):
    """The door to the models for the review assets. Which model reviews, how, and how many samples
    per paper is the study's business (studies; defaults from warehouse.settings)."""

    max_concurrency: int = 2

    _gateway = PrivateAttr(default=None)

    def gateway(self, log):
        from peerlake.llm_calls.gateway import Gateway

        if self._gateway is None:
            self._gateway = Gateway(log, max_concurrency=self.max_concurrency)
        return self._gateway


def step_io_manager() -> dict:
    """Where steps hand each other their outputs (a unit plan, a unit's summary: small pickles).

    On a lake on object storage they go to the lake's bucket (`<prefix>/dagster/io/`), so Celery or Dask
    workers on other machines need no shared mount; otherwise Dagster's default, the instance's storage
    folder. Credentials are not put in the resource (Dagster shows resource config in its UI): boto3
    reads the same AWS variables as the lake."""
    url = settings.lake_url()
    if url is None:
        return {}
    from dagster_aws.s3 import S3PickleIOManager, S3Resource

    opts = settings.object_store_options()
    bucket, _, prefix = url.removeprefix("s3://").partition("/")
    s3 = S3Resource(region_name=opts.region, endpoint_url=opts.endpoint_url)
    return {"io_manager": S3PickleIOManager(s3_resource=s3, s3_bucket=bucket,
                                            s3_prefix="/".join(p for p in (prefix, "dagster/io") if p))}


@contextmanager
def _environ_for_dbt():
    """os.environ without what settings.child_env() leaves out (provider keys, other secrets, cloud
    credentials unless the lake is on object storage), restored on the way out.

    dagster-dbt copies os.environ into dbt's process inside `cli()` and takes no env of its own, so the
    keys are taken out of this process while it does. Safe because nothing here reads a key meanwhile:
    dbt steps run one at a time (DUCKDB_TAG) and make no model call, alone in their process on the
    multiprocess executor and one after another on the in-process one."""
    keep = settings.child_env()
    dropped = {k: v for k, v in os.environ.items() if k not in keep}
    for name in dropped:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(dropped)


class DbtCli(DbtCliResource):
    """dagster-dbt's DbtCliResource, told dbt's version by the installed dbt-core package instead of by a
    `dbt --version` subprocess: that started a Python process with dbt's imports, ~3 s, once per build;
    starting dbt without provider keys or (unless the lake needs them) cloud credentials; and without a
    dbt adapter in this process (below)."""

    def cli(self, args, **kwargs):
        with _environ_for_dbt():  # the process starts here; stream() only reads its output
            return super().cli(args, **kwargs)

    def _initialize_dbt_core_adapter(self, args):
        # dagster-dbt builds a dbt adapter in this process before every dbt command (the profile, the
        # project and all ~530 macros parsed: ~1.5-2 s each, twice a build) for one use only: its
        # fetch_column_metadata() and fetch_row_counts(), which peerlake never calls. None is what
        # dagster-dbt itself falls back to when that set-up fails.
        return None

    @cached_property
    def _cli_version(self):
        from importlib.metadata import version as installed

        from packaging import version

        return version.parse(installed("dbt-core"))
