"""Ingest assets, one partition per study: the study's PDFs → `paper_ingested` events; its human
reviews (the demo corpus's OpenReview notes) → `human_review_imported` events. Papers a user ingests
with `peerlake ingest …` are already in the log; a study selects them without re-reading."""

from pathlib import Path

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, MetadataValue, asset

from peerlake.orchestration.assets.hashing import content_version
from peerlake.orchestration.assets.partitions import studies, study_of
from peerlake.orchestration.resources import LakeResource
from peerlake.studies import study_pdfs, study_review_files
from peerlake.warehouse.blobs import sha256_hex


@asset(group_name="ingest", partitions_def=studies,
       description="The manuscript PDFs a study reads itself (the demo corpus, its folders).")
def papers(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    study = lake.study(lake.event_log(), study_of(context))
    rows = [(pid, str(path), sha256_hex(path.read_bytes())) for pid, path, _ in study_pdfs(study)]
    return MaterializeResult(
        metadata={"papers": len(rows), "study_sha256": study.sha256,
                  "files": MetadataValue.md("\n".join(f"- `{pid}` {Path(p).name} `{sha[:12]}`"
                                                      for pid, p, sha in rows) or "none (papers come from the log)")},
        data_version=DataVersion(content_version(rows)),
    )


@asset(group_name="ingest", deps=[papers], kinds={"pdf"}, partitions_def=studies,
       description="PDF → ordered text records with page numbers (a manuscript package blob) + a paper_ingested event.")
def manuscripts(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from peerlake.ingest.manuscripts import ingest_pdf, latest_versions

    log = lake.event_log()
    study = lake.study(log, study_of(context))
    versions = latest_versions(log)
    outcomes = [ingest_pdf(log, path, paper_id=pid, is_synthetic=synthetic, versions=versions)
                for pid, path, synthetic in study_pdfs(study)]
    rejected = [o for o in outcomes if o.status == "rejected"]
    for o in rejected:
        context.log.warning(f"set aside {o.path}: {o.reason}")
    log.seal()
    mine = sorted({pid for pid, _, _ in study_pdfs(study)} & set(versions))
    return MaterializeResult(
        metadata={"ingested": sum(o.status == "ingested" for o in outcomes),
                  "unchanged": sum(o.status == "unchanged" for o in outcomes),
                  "rejected": len(rejected), "papers": len(mine)},
        data_version=DataVersion(content_version([(p, versions[p].package_sha256) for p in mine])),
    )


@asset(group_name="ingest", deps=[papers], kinds={"openreview"}, partitions_def=studies,
       description="Human reviews a study brings (the demo corpus's OpenReview notes) → human_review_imported events.")
def human_reviews(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from peerlake.ingest.openreview import import_reviews

    log = lake.event_log()
    study = lake.study(log, study_of(context))
    outcomes = [o for path in study_review_files(study) for o in import_reviews(log, path)]
    for o in outcomes:
        if o.status == "rejected":
            context.log.warning(f"set aside review from {getattr(o, 'path', '?')}: {o.reason}")
    log.seal()
    reviews = sorted((e.review_id, e.body_sha256) for e in log.iter_events("human_review_imported"))
    return MaterializeResult(
        metadata={"imported": sum(o.status == "imported" for o in outcomes), "reviews": len(reviews)},
        data_version=DataVersion(content_version(reviews)),
    )
