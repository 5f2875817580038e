"""Environment settings that cannot be used fail naming the variable and what it takes; the
`peerlake` command says so in one line (exit 2) rather than with a traceback."""

import sys

import pytest

from peerlake.warehouse import settings
from peerlake.warehouse.settings import SettingError


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


@pytest.mark.parametrize(("var", "value", "read", "expected"), [
    ("PEERLAKE_SAMPLES", "-2", settings.reviewer_defaults, "a whole number >= 1"),
    ("PEERLAKE_SAMPLES", "0", settings.reviewer_defaults, "a whole number >= 1"),
    ("PEERLAKE_TEMPERATURE", "nan", settings.reviewer_defaults, "a number >= 0"),
    ("PEERLAKE_TEMPERATURE", "inf", settings.reviewer_defaults, "a number >= 0"),
    ("PEERLAKE_TEMPERATURE", "-7", settings.reviewer_defaults, "a number >= 0"),
    ("PEERLAKE_MAX_OUTPUT_TOKENS", "-5", settings.reviewer_defaults, "a whole number >= 1"),
    ("PEERLAKE_SYSTEM_MAX_OUTPUT_TOKENS", "0", settings.system_max_output_tokens, "a whole number >= 1"),
    ("PEERLAKE_CLAIM_LEASE_S", "0", settings.claim_lease_s, "a number > 0"),
    ("PEERLAKE_BATCH_POLL_S", "-1", settings.batch_wait, "a number > 0"),
    ("PEERLAKE_DECIMAL_SAMPLES", "two", settings.decimal_review_samples, "a whole number >= 0"),
    ("PEERLAKE_PROBE_SAMPLES", "-1", settings.score_probe_samples, "a whole number >= 0"),
    ("PEERLAKE_LOCAL_THREADS", "0", settings.local_threads, "a whole number >= 1"),
])
def test_a_number_out_of_its_range_names_its_variable_and_the_range(monkeypatch, var, value, read, expected):
    """The bounds a study file's own keys have (reviewers[i].samples >= 1, judging.temperature >= 0)."""
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingError, match=f"{var}='{value}': expected {expected} "):
        read()


def test_zero_turns_the_probes_off_and_is_still_allowed(monkeypatch):
    monkeypatch.setenv("PEERLAKE_PROBE_SAMPLES", "0")
    monkeypatch.setenv("PEERLAKE_DECIMAL_SAMPLES", "0")
    assert settings.score_probe_samples() == 0 and settings.decimal_review_samples() == 0


def test_an_unknown_provider_is_the_settings_fault_and_lists_the_known(monkeypatch):
    monkeypatch.setenv("PEERLAKE_PROVIDER", "nonexistent")
    with pytest.raises(SettingError, match="PEERLAKE_PROVIDER='nonexistent': expected one of local, openai, "
                                           "openai_compatible, anthropic"):
        settings.reviewer_defaults()


def test_the_provider_list_is_the_one_llm_calls_makes():
    from peerlake.llm_calls.providers import PROVIDER_NAMES, ProviderUnavailable, make_provider

    assert PROVIDER_NAMES == settings.PROVIDERS
    with pytest.raises(ProviderUnavailable):
        make_provider("nonexistent")


@pytest.mark.parametrize("under", ["", "sub"])
def test_a_lake_home_that_is_a_file_or_under_one_is_refused(monkeypatch, tmp_path, under):
    (tmp_path / "afile").write_text("not a folder")
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "afile" / under))
    with pytest.raises(SettingError, match=r"PEERLAKE_HOME=.*afile.*(is a file|cannot be created)"):
        settings.lake_root()


def test_a_lake_home_that_does_not_exist_yet_is_fine(monkeypatch, tmp_path):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "new" / "lake"))
    assert settings.lake_root() == (tmp_path / "new" / "lake").resolve()


def _main(monkeypatch, capsys, *argv) -> tuple[int, str]:
    from peerlake.cli import main

    monkeypatch.setattr(sys, "argv", ["peerlake", *argv])
    with pytest.raises(SystemExit) as exit_:
        main()
    out = capsys.readouterr()
    return exit_.value.code, out.out + out.err


@pytest.mark.parametrize(("var", "value"), [
    ("PEERLAKE_SAMPLES", "-2"), ("PEERLAKE_SAMPLES", "0"), ("PEERLAKE_TEMPERATURE", "nan"),
    ("PEERLAKE_TEMPERATURE", "-7"), ("PEERLAKE_MAX_OUTPUT_TOKENS", "-5"), ("PEERLAKE_PROVIDER", "nonexistent"),
    ("PEERLAKE_REVIEW_MAX_CHARS", "0"),
])
def test_a_run_with_an_unusable_setting_is_one_line_naming_it_and_exit_2(monkeypatch, tmp_path, capsys, var, value):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    monkeypatch.setenv(var, value)
    code, out = _main(monkeypatch, capsys, "run", "demo", "--dry-run")
    assert code == 2 and "Traceback" not in out
    text = " ".join(out.split())
    assert text.startswith(f"A setting cannot be used: {var}='{value}': expected ")
    assert "[judging]" not in text and "run_estimated" not in text  # nothing planned, nothing recorded


def test_a_lake_home_that_is_a_file_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    (tmp_path / "afile").write_text("not a folder")
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "afile"))
    for argv in (["study", "list"], ["verify"], ["run", "demo", "--dry-run"]):
        code, out = _main(monkeypatch, capsys, *argv)
        assert code == 2 and "Traceback" not in out, argv
        assert " ".join(out.split()).startswith(f"A setting cannot be used: PEERLAKE_HOME='{tmp_path / 'afile'}' "
                                                "is a file")
