"""`peerlake build` over papers no study covers serves empty study marts: it says so and how to make one."""

from peerlake.warehouse import EventLog, PaperIngested
from peerlake.warehouse.events import StudyResolved


def _paper(pid):
    return PaperIngested(paper_id=pid, title=pid, source_uri=f"file:///{pid}.pdf", pdf_sha256="a" * 64,
                         package_sha256="b" * 64, n_pages=1, n_text_records=1, n_chars=1, venue="V 2026",
                         is_synthetic=False)


def test_papers_without_a_study_are_named_with_what_to_do(lake, capsys):
    from peerlake.cli import _say_when_no_study_covers_the_papers

    _say_when_no_study_covers_the_papers()  # an empty lake: nothing to say
    assert capsys.readouterr().out == ""
    log = EventLog(lake)
    log.append_many([_paper("a"), _paper("b")])
    _say_when_no_study_covers_the_papers()
    said = " ".join(capsys.readouterr().out.split())
    assert "No study covers the 2 ingested paper(s)" in said and "peerlake study new NAME --all" in said
    log.append(StudyResolved(study_id="s", study_sha256="c" * 64, paper_ids_json='["a"]', reviewers_json="[]",
                             external_systems_json="[]", paper_source="corpus:demo", asset="ai_reviews"))
    _say_when_no_study_covers_the_papers()
    assert capsys.readouterr().out == ""
