"""Under every figure and table: the `peerlake audit` command of each row it draws, so any number on
the page can be traced to its events and recomputed from an evidence bundle."""

import html
from urllib.parse import quote

import pandas as pd

from peerlake.audit.keys import audit_command, figure_id, row_keys

MAX_COMMANDS = 12  # a figure over hundreds of review scores lists the first few and says how to get all
# The call viewer (`peerlake view`) writes its page beside the report pages (ROOT/viewer/, ROOT/reports/).
VIEWER_KEY = "../viewer/index.html#key/"


def viewer_link(mart: str, key: str) -> str:
    """The viewer's page of one audit key: the row and the calls behind it."""
    return f"<a class='calls' href='{VIEWER_KEY}{quote(figure_id(mart, key), safe='')}'>calls</a>"


def audit_block(mart: str, rows: pd.DataFrame | None, what: str = "these numbers") -> str:
    if rows is None or rows.empty:
        return ""
    # sorted: the marts come back in no fixed order, and the page's hash is its data version
    keys = sorted(row_keys(mart, rows))
    if not keys:
        return ""
    shown = keys[:MAX_COMMANDS]
    more = ""
    if len(keys) > MAX_COMMANDS:
        more = (f"<br>… {len(keys) - MAX_COMMANDS} more rows of <code>{mart}</code>; each is audited the same way "
                f"(<code>peerlake audit {mart} KEY</code>)")
    items = "<br>".join(f"<code>{html.escape(audit_command(mart, k))}</code> {viewer_link(mart, k)}" for k in shown)
    return (f"<details class='audit'><summary>audit {html.escape(what)} ({len(keys)} row(s) of "
            f"<code>{mart}</code>)</summary><p class='how'>Each command prints the row's lineage, input rows, "
            f"model calls, prompts and manuscripts; add <code>--bundle FILE</code> for a recomputable evidence "
            f"bundle; <i>calls</i> opens them in the call viewer (<code>peerlake view</code>).</p>"
            f"{items}{more}</details>")
