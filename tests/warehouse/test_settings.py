"""Environment settings that cannot be used fail naming the variable and what it takes; the
`peerlake` command says so in one line (exit 2) rather than with a traceback."""

import sys

import pytest

from warehouse import settings
from warehouse.settings import SettingError


@pytest.mark.parametrize(("var", "value", "read"), [
    ("PEERLAKE_SAMPLES", "three", lambda: settings.reviewer_defaults()),
    ("PEERLAKE_TEMPERATURE", "warm", lambda: settings.reviewer_defaults()),
    ("PEERLAKE_CLAIM_LEASE_S", "15m", settings.claim_lease_s),
    ("PEERLAKE_LOCAL_THREADS", "2.5", settings.local_threads),
])
def test_a_malformed_number_names_its_variable(monkeypatch, var, value, read):
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingError, match=f"{var}='{value}': expected a"):
        read()


def test_an_empty_number_setting_means_its_default(monkeypatch):
    monkeypatch.setenv("PEERLAKE_LOCAL_CTX", "")
    assert settings.local_context_tokens() == 4096


def test_a_malformed_lake_url_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    from peerlake.cli import main

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    monkeypatch.setenv("PEERLAKE_LAKE_URL", "http://minio.local/bucket")
    monkeypatch.setattr(sys, "argv", ["peerlake", "verify"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    out = capsys.readouterr()
    text = " ".join((out.out + out.err).split())
    assert ("A setting cannot be used: PEERLAKE_LAKE_URL='http://minio.local/bucket': "
            "expected s3://bucket[/prefix]") in text
    assert "Traceback" not in text and not (tmp_path / "lake" / "events").exists()
