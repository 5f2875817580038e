"""`peerlake ingest pdf DIR`: the folder's files that are not PDFs are in the tally, named."""

from typer.testing import CliRunner


def test_a_folders_non_pdf_files_are_counted_in_the_tally(tmp_path, monkeypatch):
    from peerlake.cli import app

    monkeypatch.setenv("PEERLAKE_HOME", str(tmp_path / "lake"))
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "a.txt").write_text("not a paper")
    (papers / "b.docx").write_bytes(b"PK")
    (papers / ".hidden").write_text("")
    result = CliRunner().invoke(app, ["ingest", "pdf", str(papers)])
    assert result.exit_code == 0, result.output
    assert "ingested 0 · new_version 0 · unchanged 0 · rejected 0 · 2 files skipped: not PDFs (a.txt, b.docx)" \
        in result.output


def test_the_skipped_note_names_three_and_counts_all():
    from pathlib import Path

    from peerlake.commands.ingest import skipped_not_pdfs

    assert skipped_not_pdfs([]) == ""
    assert skipped_not_pdfs([Path("x.txt")]) == "1 file skipped: not PDFs (x.txt)"
    files = [Path(f"{c}.md") for c in "abcde"]
    assert skipped_not_pdfs(files) == "5 files skipped: not PDFs (a.md, b.md, c.md, …)"
