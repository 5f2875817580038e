"""PDF → manuscript package, in one import for the callers outside `ingest/`.

The work lives in modules named for their job: `package` (the contract: ManuscriptPackage,
load_package), `classification` (what a block is, which part and section it sits in),
`extraction` and `anonymization` (PDF bytes → package), `papers` (files → `paper_ingested`
events). New code inside `ingest/` imports those directly.
"""

from peerlake.ingest.batch import Outcome
from peerlake.ingest.extraction import EXTRACTOR, extract_package, extract_records
from peerlake.ingest.package import (
    PACKAGE_VERSION,
    TRUNCATION_NOTE,
    ManuscriptError,
    ManuscriptPackage,
    TextRecord,
    image_bytes,
    load_package,
)
from peerlake.ingest.papers import ingest_pdf, iter_pdfs, latest_versions

__all__ = [
    "EXTRACTOR", "PACKAGE_VERSION", "TRUNCATION_NOTE", "ManuscriptError",
    "ManuscriptPackage", "Outcome", "TextRecord", "extract_package", "extract_records",
    "image_bytes", "ingest_pdf", "iter_pdfs", "latest_versions", "load_package",
]
