"""`peerlake ingest openreview --venue V --live`: fetch a venue's submissions with their replies
through openreview-py, keep the raw dump in the lake, then import it like an exported file."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from peerlake.ingest.batch import Outcome
from peerlake.ingest.openreview import import_reviews
from peerlake.warehouse import settings
from peerlake.warehouse.log import EventLog


class LiveUnavailable(RuntimeError):
    """openreview-py is not installed, or the API could not be reached."""


def _client(baseurl: str | None):
    try:
        import openreview.api
    except ImportError:
        raise LiveUnavailable("--live needs openreview-py (pip install openreview-py==2.9.1); "
                              "without it, export the notes to JSON and ingest the file") from None
    return openreview.api.OpenReviewClient(baseurl=baseurl or settings.openreview_baseurl())


def fetch_venue(venue: str, baseurl: str | None = None, client=None) -> list[dict]:
    """Every submission of a venue as camelCase note JSON with `details.replies`."""
    client = client or _client(baseurl)
    try:
        notes = client.get_all_notes(invitation=f"{venue}/-/Submission", details="replies")
    except Exception as exc:  # requests, OpenReviewException …: name the venue and the cause
        raise LiveUnavailable(f"fetching {venue} from {getattr(client, 'baseurl', '?')} failed "
                              f"({type(exc).__name__}: {exc})") from None
    return [{**n.to_json(), "details": n.details or {}} for n in notes]


def import_live(log: EventLog, venue: str, rating_scale: str | None = None,
                baseurl: str | None = None, client=None) -> tuple[Path, list[Outcome]]:
    """Fetch, store the dump under <lake>/raw/openreview/, import it; returns (dump, outcomes)."""
    notes = fetch_venue(venue, baseurl, client)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    dump = log.lake.root / "raw" / "openreview" / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', venue)}-{stamp}.json"
    dump.parent.mkdir(parents=True, exist_ok=True)
    # Kept so an import can be re-run or audited without the network.
    dump.write_text(json.dumps(notes, ensure_ascii=False), encoding="utf-8")
    return dump, import_reviews(log, dump, venue=venue, rating_scale=rating_scale)
