"""`peerlake calls`, `peerlake call ID` and `peerlake view --out` on the viewer lake, in process; `peerlake view`
serving on 127.0.0.1 until Ctrl-C, as a process of its own."""

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from peerlake.cli import app
from tests.viewer.viewer_lake import HOSTILE


@pytest.fixture
def cli(viewer_lake, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(viewer_lake.root))
    monkeypatch.setenv("COLUMNS", "400")

    def run(*args):
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.output
    return run


def test_calls_lists_newest_first_and_filters(cli, viewer_lake):
    out = cli("calls")
    assert "of 6, newest first" in out
    ids = [i for i in viewer_lake.calls.values() if i in out]
    assert len(ids) == 5 and out.index(viewer_lake.calls["judge"]) < out.index(viewer_lake.calls["hostile"])
    out = cli("calls", "--study", "b")
    assert "of 1," in out and viewer_lake.calls["P2"] in out
    out = cli("calls", "--status", "error", "--paper", "P2")
    assert "of 1," in out and viewer_lake.calls["P2"] not in out  # the failed attempt, not the answer
    out = cli("calls", "--limit", "2", "--page", "2")
    assert "calls 3–4 of 6" in out and "--page 3" in out


def test_calls_shows_each_time_on_one_line(cli, viewer_lake, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # a table this narrow once folded each time over three lines
    out = cli("calls")
    assert len(re.findall(r"\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\b", out)) == 6, out


def test_call_prints_the_request_response_and_parse_as_text(cli, viewer_lake):
    out = cli("call", viewer_lake.calls["hostile"][:20])  # a unique start of the id is enough
    assert "Review the manuscript P1." in out and "<b>not bold</b>" in out  # Rich markup printed as text
    assert "window.__pwned = 1" in out and "parse result" in out and "attempts at this request" in out


def test_call_refuses_an_unknown_id(viewer_lake, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(viewer_lake.root))
    result = CliRunner().invoke(app, ["call", "NOSUCH"])
    assert result.exit_code == 1 and "no call" in result.output


def test_view_out_writes_a_page_set_that_needs_no_server(cli, viewer_lake, tmp_path):
    out = cli("view", "--out", str(tmp_path / "share"))
    assert "8 detail pages" in out
    share = tmp_path / "share"
    assert (share / "index.html").is_file() and (share / "viewer" / "viewer.js").is_file()
    text = (share / "viewer" / "data" / "call" / f"{viewer_lake.calls['hostile']}.js").read_text()
    assert "<script>" not in text
    doc = json.loads(text[text.index(",") + 1:-3])
    assert HOSTILE.replace('"', "") in doc["response"].replace('\\"', "").replace('"', "")


@pytest.mark.parametrize("command", [["view", "--no-open"], ["calls"], ["call", "X"], ["view", "--out", "OUT"]])
def test_without_published_marts_every_command_says_to_build(tmp_path, monkeypatch, command):
    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    monkeypatch.setenv("COLUMNS", "400")
    command = [str(tmp_path / "out") if c == "OUT" else c for c in command]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 1, result.output
    assert "nothing is published yet" in result.output and "peerlake build" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)  # said, not a traceback
    assert not (tmp_path / "out").exists()  # --out writes nothing when there is nothing to show


def test_view_out_inside_the_lake_is_refused(viewer_lake, monkeypatch):
    monkeypatch.setenv("PEERLAKE_HOME", str(viewer_lake.root))
    result = CliRunner().invoke(app, ["view", "--out", str(viewer_lake.root / "share")])
    assert result.exit_code == 2 and "outside the lake" in result.output


PEERLAKE = Path(sys.executable).with_name("peerlake")


def test_view_serves_on_loopback_until_ctrl_c(viewer_lake):
    env = {**os.environ, "PEERLAKE_HOME": str(viewer_lake.root)}
    # SIGINT at its default, as in a terminal (a background child of a shell would inherit it ignored)
    proc = subprocess.Popen([str(PEERLAKE), "view", "--no-open", "--port", "0", "--study", "b"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = []
        while not any("Call viewer:" in line for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        # the lake's count, and the study's: study b only replayed P2's answer
        assert "6 calls published (1 of them in study b)" in "".join(lines), lines
        address = re.search(r"http://127\.0\.0\.1:\d+/viewer/index\.html", "".join(lines)).group()
        with urllib.request.urlopen(address) as r:
            assert b"viewer.js" in r.read()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0 and "stopped" in proc.stdout.read()
    finally:
        proc.kill()
