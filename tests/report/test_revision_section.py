"""The revision section draws the seed's two figures and the tables from revision marts (the fixture tables of
tests/metrics/revision/revision_frames.py), says that embedded-model numbers test the machinery, and notes an
absent mart."""

from peerlake.metrics.revision.agreement import directions_table, noise_adjusted_table
from peerlake.metrics.revision.gains import cells_table, gains_table, scorer_gaps_table
from peerlake.metrics.revision.outcomes import cases_table, selector_agreement_table, validation_table
from peerlake.report.data import ReportData
from peerlake.report.revision import CASES, CELLS, DIRECTIONS, GAINS, GAPS, NOISE, VALIDATION, section
from tests.metrics.revision import revision_frames as f


def test_the_section_draws_both_figures_and_the_tables():
    boot = {"n_resamples": 40, "seed": 7}
    gains = gains_table(f.scores())
    data = ReportData({CELLS: cells_table(gains, f.cells(), f.outcomes(), **boot), GAINS: gains,
                       GAPS: scorer_gaps_table(gains, **boot), DIRECTIONS: directions_table(gains),
                       NOISE: noise_adjusted_table(gains, **boot),
                       "revision_selector_agreement": selector_agreement_table(f.outcomes()),
                       VALIDATION: validation_table(f.outcomes()), CASES: cases_table(gains, f.outcomes())})
    page = section(data, {})
    assert page.count('<img src="data:image/png;base64,') == 2  # Figure 4 and Figure F1 (one panel per pair)
    assert "test the machinery, not the science" in page
    assert "40 resamples, seed 7" in page
    assert "1.500 [" in page  # LLL − LLH = 1.5 (tests/metrics/revision/test_revision_tables.py)
    assert "(LHL - LHH) - (LLL - LLH)" in page
    assert "image_hash_mismatch=1" in page and "0.583" in page  # mean Jaccard 7/12


def test_a_missing_or_empty_mart_is_a_note():
    assert "Revision crossover: not shown" in section(ReportData({}, {CELLS: "is not there"}), {})
    empty = cells_table(gains_table(f.empty(f.scores())), f.empty(f.cells()), f.empty(f.outcomes()),
                        n_resamples=10, seed=1)
    assert "declares no revision cells" in section(ReportData({CELLS: empty}), {})
