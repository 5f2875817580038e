"""The report's small-sample warning follows $PEERLAKE_SMALL_SAMPLE_PAPERS (default 10)."""

from peerlake.report import notes


def test_the_warning_below_the_default_threshold(monkeypatch):
    monkeypatch.delenv("PEERLAKE_SMALL_SAMPLE_PAPERS", raising=False)
    assert "rest on 9 papers (fewer than 10" in notes.small_sample(9)
    assert notes.small_sample(10) == "" and notes.small_sample(None) == "" and notes.small_sample(float("nan")) == ""


def test_the_threshold_is_a_setting(monkeypatch):
    monkeypatch.setenv("PEERLAKE_SMALL_SAMPLE_PAPERS", "3")
    assert notes.small_sample(4) == "" and "fewer than 3" in notes.small_sample(2, "pairs")
    monkeypatch.setenv("PEERLAKE_SMALL_SAMPLE_PAPERS", "0")
    assert notes.small_sample(1) == ""
