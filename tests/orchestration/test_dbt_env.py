"""The build's dbt process gets no provider key, and cloud credentials only when the lake is on object
storage; this process keeps them all (its review steps call models). dagster-dbt's subprocess start is
replaced by a recorder, so no dbt runs."""

import os
import sys
from pathlib import Path

import pytest
from dagster_dbt.core.dbt_cli_invocation import DbtCliInvocation

from peerlake.dbt_project import PROJECT_DIR
from peerlake.orchestration.resources import DbtCli

SECRETS = {"OPENAI_API_KEY": "sk-fake-openai", "ANTHROPIC_API_KEY": "sk-ant-fake",
           "AWS_ACCESS_KEY_ID": "AKIAFAKE", "AWS_SECRET_ACCESS_KEY": "fake-secret"}


@pytest.fixture
def started(monkeypatch, tmp_path):
    """The env dbt's process would have been started with, one dict per `cli()`."""
    seen = []
    monkeypatch.setattr(DbtCliInvocation, "run", classmethod(lambda cls, *, env, **_: seen.append(dict(env))))
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path))
    return seen


@pytest.mark.parametrize("lake_url", [None, "s3://bucket/lake"])
def test_dbt_starts_without_provider_keys(started, monkeypatch, lake_url):
    if lake_url:
        monkeypatch.setenv("PEERLAKE_LAKE_URL", lake_url)
    else:
        monkeypatch.delenv("PEERLAKE_LAKE_URL", raising=False)
    DbtCli(project_dir=str(PROJECT_DIR), dbt_executable=str(Path(sys.executable).with_name("dbt"))).cli(["parse"])
    (env,) = started
    assert "OPENAI_API_KEY" not in env and "ANTHROPIC_API_KEY" not in env
    aws = {k: env.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    # the segments on object storage are read with the AWS variables; a local lake needs none
    assert aws == ({"AWS_ACCESS_KEY_ID": "AKIAFAKE", "AWS_SECRET_ACCESS_KEY": "fake-secret"} if lake_url
                   else {"AWS_ACCESS_KEY_ID": None, "AWS_SECRET_ACCESS_KEY": None})
    assert env["DBT_LOG_FORMAT"] == "json" and env["PEERLAKE_HOME"]  # dagster-dbt's own additions stay
    assert {k: os.environ.get(k) for k in SECRETS} == SECRETS  # this process still has every key
