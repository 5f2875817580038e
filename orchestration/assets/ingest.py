"""Ingest assets: PDFs on disk → `paper_ingested` events; OpenReview notes → `human_review_imported`."""

from pathlib import Path

from dagster import AssetExecutionContext, DataVersion, MaterializeResult, MetadataValue, asset

from orchestration.assets.hashing import content_version
from orchestration.resources import LakeResource
from warehouse import settings
from warehouse.blobs import sha256_hex


def _corpus_pdfs() -> list[tuple[str, Path, bool]]:
    from ingest.demo_corpus import demo_papers

    only = settings.demo_only()
    found = [(p.stem, p, True) for p in demo_papers() if only is None or p.stem in only]
    for folder in settings.papers_dirs():
        found += [(p.stem, p, False) for p in sorted(folder.glob("*.pdf"))]
    return found


@asset(group_name="ingest", description="The manuscript PDFs to review: the bundled demo corpus plus $PEERLAKE_PAPERS.")
def papers(context: AssetExecutionContext) -> MaterializeResult:
    rows = [(pid, str(path), sha256_hex(path.read_bytes())) for pid, path, _ in _corpus_pdfs()]
    return MaterializeResult(
        metadata={"papers": len(rows),
                  "files": MetadataValue.md("\n".join(f"- `{pid}` {Path(p).name} `{sha[:12]}`" for pid, p, sha in rows))},
        data_version=DataVersion(content_version(rows)),
    )


@asset(group_name="ingest", deps=[papers], kinds={"pdf"},
       description="PDF → ordered text records with page numbers (a manuscript package blob) + a paper_ingested event.")
def manuscripts(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from ingest.manuscripts import ingest_pdf, latest_versions

    log = lake.event_log()
    versions = latest_versions(log)
    outcomes = [ingest_pdf(log, path, paper_id=pid, is_synthetic=synthetic, versions=versions)
                for pid, path, synthetic in _corpus_pdfs()]
    rejected = [o for o in outcomes if o.status == "rejected"]
    for o in rejected:
        context.log.warning(f"set aside {o.path}: {o.reason}")
    log.seal()
    latest = [versions[k] for k in sorted(versions)]
    return MaterializeResult(
        metadata={"ingested": sum(o.status == "ingested" for o in outcomes),
                  "unchanged": sum(o.status == "unchanged" for o in outcomes),
                  "rejected": len(rejected), "papers": len(latest)},
        data_version=DataVersion(content_version([(e.paper_id, e.package_sha256) for e in latest])),
    )


@asset(group_name="ingest", deps=[papers], kinds={"openreview"},
       description="Human reviews (OpenReview API v2 notes) for the corpus → human_review_imported events.")
def human_reviews(context: AssetExecutionContext, lake: LakeResource) -> MaterializeResult:
    from ingest.demo_corpus import demo_reviews
    from ingest.openreview import import_reviews

    log = lake.event_log()
    only = settings.demo_only()
    outcomes = [o for path in demo_reviews() if only is None or path.stem in only
                for o in import_reviews(log, path)]
    for o in outcomes:
        if o.status == "rejected":
            context.log.warning(f"set aside review from {getattr(o, 'path', '?')}: {o.reason}")
    log.seal()
    reviews = [(e.review_id, e.body_sha256) for e in log.iter_events("human_review_imported")]
    return MaterializeResult(
        metadata={"imported": sum(o.status == "imported" for o in outcomes), "reviews": len(reviews)},
        data_version=DataVersion(content_version(reviews)),
    )
