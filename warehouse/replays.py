"""Counting replays: a request answered from the log costs nothing, but a cost report that hides it
would overstate what a re-run needs. Both doors (llm_calls.gateway, retrieval.client) tally the
replays of one batch and write one `calls_replayed` event, labelled with the caller's context."""

import json

from peerlake.warehouse.attribution import current
from peerlake.warehouse.events import CallsReplayed
from peerlake.warehouse.log import EventLog


def record_replays(log: EventLog, door: str, replays: list[tuple[str, str]]) -> CallsReplayed | None:
    """`replays`: (request_key, answering event_id) pairs; nothing is written for none."""
    if not replays:
        return None
    ctx = current()
    ev = CallsReplayed(door=door, n=len(replays), request_keys_json=json.dumps([k for k, _ in replays]),
                       answer_event_ids_json=json.dumps([e for _, e in replays]), study=ctx.study,
                       dagster_run_id=ctx.dagster_run_id, asset=ctx.asset)
    log.append(ev)
    return ev
