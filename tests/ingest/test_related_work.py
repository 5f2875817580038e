"""`peerlake ingest related-work FILE.jsonl` → related_work_imported; bad lines quarantined."""

import hashlib
import json

import typer
from typer.testing import CliRunner

from peerlake.commands.ingest import register
from peerlake.ingest.related_work import import_related_work

GOOD = {"id": "lora", "title": "LoRA:  Low-Rank Adaptation\nof Large Language Models", "abstract": "Freeze and adapt.",
        "year": 2021, "venue": "ICLR"}


def _write(tmp_path, lines: list, name: str = "related.jsonl"):
    path = tmp_path / name
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def test_imports_good_lines_and_rejects_bad_ones_with_their_line(log, tmp_path):
    path = _write(tmp_path, [
        GOOD,
        {"title": "Parameter-Efficient Transfer Learning for NLP"},  # id from the title
        "{oops",
        {"abstract": "no title"},
        "",  # blank lines are not items
        {"title": "Dated wrongly", "year": "2020"},
        {"title": "Boolean year", "year": True},
        {"title": "Bad id", "id": 7},
        ["not", "an", "object"],
    ])
    outcomes = import_related_work(log, path)
    assert [(o.status, o.item) for o in outcomes] == [
        ("imported", "line 1"), ("imported", "line 2"), ("rejected", "line 3"), ("rejected", "line 4"),
        ("rejected", "line 6"), ("rejected", "line 7"), ("rejected", "line 8"), ("rejected", "line 9")]
    lora, houlsby = sorted(log.iter_events("related_work_imported"), key=lambda e: e.line_no)
    # Whitespace runs in text fields become one space: a title wrapped over lines is one title.
    assert (lora.work_id, lora.title, lora.abstract, lora.year, lora.venue, lora.line_no) == (
        "lora", "LoRA: Low-Rank Adaptation of Large Language Models", "Freeze and adapt.", 2021, "ICLR", 1)
    assert lora.source_path == str(path)
    # The default id: SHA-256 of the title with case and whitespace folded, first 16 hex digits.
    folded = "parameter-efficient transfer learning for nlp"
    assert houlsby.work_id == hashlib.sha256(folded.encode()).hexdigest()[:16]
    assert (houlsby.abstract, houlsby.year, houlsby.venue) == (None, None, None)
    rejected = {e.item: e for e in log.iter_events("ingest_rejected")}
    assert set(rejected) == {"line 3", "line 4", "line 6", "line 7", "line 8", "line 9"}
    assert all(e.source == "related_work" and e.path == str(path) for e in rejected.values())
    assert rejected["line 3"].reason.endswith("line 3: not valid JSON (column 2: Expecting property name "
                                              "enclosed in double quotes)")
    assert "missing or empty 'title'" in rejected["line 4"].reason
    assert "'year' must be an integer year, got '2020'" in rejected["line 6"].reason
    assert "'year' must be an integer year, got True" in rejected["line 7"].reason


def test_reimporting_an_id_is_skipped_even_within_one_file(log, tmp_path):
    first = import_related_work(log, _write(tmp_path, [GOOD, {"title": "A title"}, {"title": "  a   TITLE "}]))
    assert [o.status for o in first] == ["imported", "imported", "skipped"]  # same folded title, same id
    again = import_related_work(log, _write(tmp_path, [dict(GOOD, title="LoRA, retitled")], "again.jsonl"))
    assert [o.status for o in again] == ["skipped"] and "already imported (lora)" in again[0].reason
    assert len(list(log.iter_events("related_work_imported"))) == 2


def test_a_file_that_is_not_utf8_is_rejected_whole(log, tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps({"title": "Café"}, ensure_ascii=False).encode("latin-1") + b"\n")
    (o,) = import_related_work(log, path)
    assert o.status == "rejected" and "not UTF-8 text" in o.reason
    (o,) = import_related_work(log, tmp_path / "missing.jsonl")
    assert o.status == "rejected" and "cannot be read" in o.reason
    assert list(log.iter_events("related_work_imported")) == []


def test_cli(lake, tmp_path):
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    path = _write(tmp_path, [GOOD, "{oops"])
    r = runner.invoke(app, ["ingest", "related-work", str(path)])
    assert r.exit_code == 0, r.output
    assert "imported 1 · skipped 0 · rejected 1" in r.output and "line 2: not valid JSON" in r.output
    r = runner.invoke(app, ["ingest", "related-work", str(path), "--strict"])
    assert r.exit_code == 1 and "skipped 1" in r.output
