"""Inbox: PDFs dropped into $PEERLAKE_INBOX become papers. Each file is a dynamic partition of
`inbox_manuscripts`; `inbox_sensor` (stopped by default) adds partitions and requests a run per
new file or new bytes. Off unless the sensor is started and PEERLAKE_INBOX is set."""

from pathlib import Path

from dagster import (
    AssetExecutionContext,
    DataVersion,
    DefaultSensorStatus,
    DynamicPartitionsDefinition,
    MaterializeResult,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    asset,
    sensor,
)

from peerlake.orchestration.resources import LakeResource
from peerlake.warehouse import settings
from peerlake.warehouse.blobs import sha256_hex

inbox_papers = DynamicPartitionsDefinition(name="inbox_papers")


def _inbox_files(folder: Path | None) -> dict[str, Path]:
    """Partition key (file stem) → PDF path."""
    if folder is None or not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.pdf"))}


@asset(group_name="ingest", partitions_def=inbox_papers, kinds={"pdf"},
       description="One PDF from the inbox folder ($PEERLAKE_INBOX) → a paper_ingested (or ingest_rejected) event.")
def inbox_manuscripts(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from peerlake.ingest.manuscripts import ingest_pdf

    path = _inbox_files(settings.ingest_inbox()).get(context.partition_key)
    if path is None:
        raise FileNotFoundError(f"inbox paper {context.partition_key!r} is no longer in {settings.ingest_inbox()}")
    log = lake.event_log()
    outcome = ingest_pdf(log, path, paper_id=context.partition_key)
    log.seal()
    if outcome.status == "rejected":
        context.log.warning(f"set aside {path}: {outcome.reason}")
    ev = outcome.event
    return MaterializeResult(
        metadata={"status": outcome.status, "reason": outcome.reason or "",
                  "pages": ev.n_pages if ev else 0, "images": (ev.n_images or 0) if ev else 0},
        data_version=DataVersion(ev.package_sha256 if ev else "rejected"),
    )


@sensor(asset_selection=[inbox_manuscripts], default_status=DefaultSensorStatus.STOPPED,
        minimum_interval_seconds=30, description="Watches $PEERLAKE_INBOX for new or changed PDFs.")
def inbox_sensor(context: SensorEvaluationContext):
    files = _inbox_files(settings.ingest_inbox())
    if not files:
        return SkipReason(f"no PDFs in the inbox ({settings.ingest_inbox() or 'PEERLAKE_INBOX not set'})")
    known = set(context.instance.get_dynamic_partitions(inbox_papers.name))
    new = sorted(set(files) - known)
    # The run key carries the file's hash: the same bytes never run twice, new bytes run again.
    runs = [RunRequest(run_key=f"{key}:{sha256_hex(path.read_bytes())}", partition_key=key)
            for key, path in files.items()]
    return SensorResult(run_requests=runs,
                        dynamic_partitions_requests=[inbox_papers.build_add_request(new)] if new else [])


SENSORS = [inbox_sensor]
