"""What a report section says instead of its figures, in words: a mart this warehouse does not have (built
by an older peerlake: rebuild), a study that does not measure the thing (and what it would need), and a
figure computed on too few papers to mean anything."""

import html

from peerlake.warehouse import settings

# Below settings.small_sample_papers() papers (default 10) a correlation, an AUC or a ranking share is shown
# with a warning: on 2-4 papers an AUC of 1.00 or a "100 % tie" is what chance gives (the demo has 4 papers).


def missing(what: str, table: str, why: str) -> str:
    """The section's mart is absent from the warehouse, or lacks a column the section reads."""
    return (f'<p class="note">{html.escape(what)}: not shown — the warehouse\'s <code>{html.escape(table)}</code> '
            f"{html.escape(why)}; <code>peerlake build</code> brings it up to date.</p>")


def not_measured(what: str, needs: str) -> str:
    """The study has no rows for the section: what it would need to have them."""
    return f'<p class="note">{html.escape(what)}: not measured in this study — {html.escape(needs)}.</p>'


def small_sample(n: int | float | None, unit: str = "papers") -> str:
    """A warning beside figures computed on fewer than $PEERLAKE_SMALL_SAMPLE_PAPERS papers ('' when enough)."""
    least = settings.small_sample_papers()
    if n is None or n != n or n >= least:
        return ""
    return (f"<p class='warn'><b>Small sample:</b> these figures rest on {int(n)} {unit} (fewer than "
            f"{least}, $PEERLAKE_SMALL_SAMPLE_PAPERS); a perfect-looking value is what chance gives at this size: "
            "read it as a check that the pipeline runs, not as a measurement.</p>")
