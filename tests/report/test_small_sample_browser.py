"""The report's small-sample warning as a reader sees it, in a real browser (the distribution's Chromium
through Playwright; skipped without it): on the session's audit lake (tests/audit), whose study `test` has
human scores for only a few papers, the validity section of the page `peerlake report` writes shows the
warning beside its figures, on screen, and a screenshot of it is written."""

import struct

from peerlake.report.build import write_report
from tests.audit.audit_lake import HUMAN, SCORES
from tests.audit.conftest import audit_built  # noqa: F401  (the session's audit lake, built once)
from tests.viewer.conftest import browser, page  # noqa: F401  (Chromium, skipped cleanly when absent)

STUDY_PAPERS = ("P0", "P1", "P2", "P3")  # study `test` (P9 is study `other`'s alone)
VALIDITY = "Validity against human scores"


def _fewest_validity_papers() -> int:
    """The smallest count of the study's papers one configuration scored and humans rated, from the lake's
    own inputs (not from the mart the page reads)."""
    configs = {config for config, _ in SCORES}
    return min(sum((c, p) in SCORES and p in HUMAN for p in STUDY_PAPERS) for c in configs)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_small_sample_warning_is_visible_beside_the_validity_figures(audit_built, page, tmp_path):  # noqa: F811
    _, db, _, _ = audit_built
    report = write_report(db, tmp_path / "reports" / "test.html", study="test")
    page.set_viewport_size({"width": 1200, "height": 800})
    page.goto(report.as_uri())

    warning = page.locator(f"h2:text-is('{VALIDITY}') + p.warn")
    assert warning.count() == 1, "no small-sample warning right under the validity heading"
    n = _fewest_validity_papers()
    assert n < 10  # the setting's default threshold: this study is small on purpose
    assert f"Small sample: these figures rest on {n} papers" in " ".join(warning.inner_text().split())
    warning.scroll_into_view_if_needed()
    assert warning.is_visible()
    box = warning.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 10, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800, f"not on screen once scrolled to: {box}"
    # the warning sits beside the figures it is about: the validity table follows it in the same section
    assert page.locator(f"h2:text-is('{VALIDITY}') ~ table").first.is_visible()

    shot = tmp_path / "small-sample-warning.png"
    data = page.screenshot(path=str(shot))
    assert shot.is_file() and shot.read_bytes() == data
    assert _png_size(data) == (1200, 800)
    assert len(data) > 10_000, f"a {len(data)}-byte screenshot: a blank page, not the report"
    # the warning alone, drawn at its own size
    clip = warning.screenshot(path=str(tmp_path / "warning.png"))
    assert _png_size(clip)[0] >= int(box["width"]) - 1 and len(clip) > 1_000
    assert page.errors == []
