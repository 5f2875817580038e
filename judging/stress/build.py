"""The stress suite's builder: every edit of the study's `[stress] edits` on every base paper, each a
`paper_variant` (kind "stress") with details {family, edit, params, problem, checks, text_level}. A
built one is ingested as a text-level paper (its package, the base's PDF named as its bytes), so every
reviewer reads it like any paper; one that could not be made is recorded not built with the reason.

Deterministic edits (ingest.stress) are seeded from the variant's identity (base package, the suite's
configuration, the edit), so a rerun finds every variant recorded and writes nothing; the paraphrase's
calls replay from the log, so its variant's key (which names them) is found too.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from peerlake.ingest.package import ManuscriptPackage, load_package
from peerlake.ingest.stress import EDITS, Edited, apply_edit, edit_seed
from peerlake.ingest.variants import record_variant, recorded_variants
from peerlake.judging.base import JudgeContext
from peerlake.judging.stress.paraphrase import paraphrase
from peerlake.judging.stress.spec import EXPERIMENT, Spec
from peerlake.warehouse.blobs import BlobCorrupted
from peerlake.warehouse.events import PaperIngested, PaperVariantRecorded

KIND = "stress"


@dataclass
class BuildReport:
    """Every variant event of this build (built or not, new or recorded before) and its counts."""

    variants: list[PaperVariantRecorded] = field(default_factory=list)
    experiment_config: str = ""
    papers: int = 0
    papers_not_in_study: int = 0  # ids in spec.papers that were not among the papers given
    papers_unreadable: int = 0
    built: int = 0
    not_built: int = 0
    new: int = 0
    paraphrases_failed: int = 0  # a call failed: nothing recorded, retried next run


def details(edit: str, out: Edited) -> dict:
    """A variant's details_json (the stress marts read these keys)."""
    return {"family": EDITS[edit].family, "edit": edit, "params": out.params, "problem": out.problem,
            "checks": out.checks, "text_level": True}


def _make(edit: str, package: ManuscriptPackage, seed: int) -> Edited:
    """One deterministic edit; any error of a hostile package is that variant's reason, never the suite's."""
    try:
        return apply_edit(edit, package, seed)
    except Exception as exc:  # an edit meets a package shape nobody foresaw: say so, and go on
        return Edited(None, reason=f"edit_failed: {type(exc).__name__}: {exc}"[:300])


def build(ctx: JudgeContext, papers: Sequence[PaperIngested], spec: Spec) -> BuildReport:
    """Build the suite's variants of `papers` (only spec.papers when set)."""
    config = spec.experiment_config()
    report = BuildReport(experiment_config=config)
    if spec.papers is not None:
        given = {p.paper_id for p in papers}
        report.papers_not_in_study = sum(1 for p in spec.papers if p not in given)
        papers = [p for p in papers if p.paper_id in spec.papers]
    known = recorded_variants(ctx.log)
    before = len(known)

    def record(base: PaperIngested, edit: str, out: Edited, request_keys=()) -> None:
        event, _ = record_variant(ctx.log, base, kind=KIND, experiment_config=config, details=details(edit, out),
                                  pdf_bytes=None, reason=out.reason, package=out.package, request_keys=request_keys,
                                  study=ctx.study, known=known)
        report.variants.append(event)

    readable: list[tuple[PaperIngested, ManuscriptPackage]] = []
    for base in sorted(papers, key=lambda p: p.paper_id):
        report.papers += 1
        try:
            package = load_package(ctx.log.blobs, base.package_sha256, check_images=False)
        except (OSError, ValueError, KeyError, TypeError, BlobCorrupted) as exc:
            report.papers_unreadable += 1
            for edit in spec.edits:
                record(base, edit, Edited(None, reason=f"base_unreadable: {type(exc).__name__}"))
            continue
        readable.append((base, package))
        for edit in spec.edits:
            if EDITS[edit].make is not None:
                record(base, edit, _make(edit, package, edit_seed(base.package_sha256, config, edit)))
    if "paraphrase" in spec.edits and readable:
        bases = {b.paper_id: b for b, _ in readable}
        for job in paraphrase(ctx, [(b.paper_id, p) for b, p in readable], spec.paraphrase_max_sections):
            if job.failed_call is not None:
                report.paraphrases_failed += 1
                continue
            record(bases[job.paper_id], "paraphrase", job.result, job.request_keys)
    report.built = sum(1 for e in report.variants if e.built)
    report.not_built = len(report.variants) - report.built
    report.new = len(known) - before
    return report


__all__ = ["EXPERIMENT", "KIND", "BuildReport", "build", "details"]
