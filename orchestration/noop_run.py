"""A `peerlake run` with nothing to do, decided before Dagster is imported (its definitions and the dbt
project took ~10 s to load on the demo lake, for a run that then made no call and built nothing).

Nothing to do means all of:
- the study's last run with this study text completed (`completed`, written after a successful run), so
  every step of it recorded what it covers at least once;
- its ingest would write nothing: every PDF it reads is in the log with the same bytes, and importing its
  review files again appends no event (the real importers, on a log that keeps what they would append);
- it resolves to the papers and reviewers its newest `study_resolved` names;
- every call it would make is in the log (the dry run's planning, costs.plan: no row new);
- the build plan (orchestration.build_plan, from the dbt manifest as last parsed) finds nothing to build in
  the log sealed as a build seals it (a dry run's run_estimated, say, is a run record: it waits).
Then the run would only replay, and its tallies (calls_replayed, run_estimated) wait for the next build
anyway. It is decided only for studies whose model work the dry run plans exactly and whose results are
the calls themselves: single-template reviewers. Judges, reviewer systems, experiments, revision,
probes, a provider batch, --no-build, another executor or a remote lake take the normal path, as does
any doubt (a manifest older than a dbt file, a check that raises)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from peerlake.orchestration.build_plan import AUTO, STUDY_FIELDS, STUDY_TYPE, plan_as_parsed
from peerlake.warehouse import settings
from peerlake.warehouse.blobs import sha256_hex

RUN_ASSET = "ai_reviews"  # the step whose study_resolved names the study's papers and reviewers


@dataclass
class SkippedRun:
    """What a Dagster run reports, for a run that made none (orchestration.runner.PipelineRun's fields)."""

    success: bool = True
    run_id: str = ""
    failed_checks: list = field(default_factory=list)
    failed_steps: list = field(default_factory=list)
    asset_metadata: dict = field(default_factory=dict)
    plan_summary: str = ""
    skipped: bool = True


@dataclass
class NoopStudyRun:
    """orchestration.studies.StudyRun's fields, for a run that needed no Dagster run."""

    study: SkippedRun
    build: SkippedRun
    build_skipped: bool = False
    success: bool = True


def nothing_new(log, study, gateway, *, probes: bool = False, build: bool = True,
                executor: str = "in_process") -> tuple[NoopStudyRun | None, str]:
    """(the run's outcome, "") when a run of the study now would make no call and build nothing, else
    (None, why the normal path is taken). `gateway`: an llm_calls Gateway on the log (its replay cache)."""
    why = _shape(study, probes, build, executor)
    if why:
        return None, why
    try:
        return _decide(log, study, gateway)
    except Exception as exc:  # any doubt: the normal path says what is wrong, with Dagster's context
        return None, f"could not decide ({type(exc).__name__}: {exc})"


def _shape(study, probes: bool, build: bool, executor: str) -> str:
    if not build:
        return "--no-build"
    if executor != "in_process" or settings.lake_url():
        return "steps elsewhere, or a remote lake"
    if probes:
        return "probes (a forced-10 continuation is not planned)"
    if study.judges or study.system_configs() or study.experiments or study.revision() is not None:
        return "judges, reviewer systems, experiments or revision: results besides the calls"
    if study.costs.batch:
        return "a provider batch"
    return ""


def _decide(log, study, gateway) -> tuple[NoopStudyRun | None, str]:
    from peerlake.costs.plan import study_estimate
    from peerlake.studies import resolve_papers

    if completed(log.lake, study.name) != study.sha256:
        return None, "no completed run of this study text"
    if why := _ingest_would_write(log, study):
        return None, why
    res = resolve_papers(log, study)
    configs = study.reviewer_configs()
    if why := _resolution_changed(log, study, res, configs):
        return None, why
    est = study_estimate(log, study, gateway)
    if new := sum(1 for r in est.rows if r["new"]):
        return None, f"{new} new calls"
    log.seal()  # what the runs wrote, as plan_for_lake seals it: the plan compares committed segments
    build = plan_as_parsed(log.lake, log, AUTO)
    if build is None:
        return None, "the dbt project changed since it was parsed"
    if not build.empty:
        return None, build.summary()
    reviews = sum(1 for r in est.rows if r["asset"] == RUN_ASSET)
    meta = {"study": study.name, "study_sha256": study.sha256, "papers": len(res.paper_ids), "reviews": reviews,
            "model_calls_made": 0, "failed": 0, "replayed": reviews,
            "reviewer_configs": ", ".join(c.code_version() for c in configs)}
    return NoopStudyRun(SkippedRun(asset_metadata={RUN_ASSET: meta} if configs else {}),
                        SkippedRun(plan_summary=build.summary())), ""


class _WouldWrite(Exception):
    """A blob the dry run of an ingest would write: the importer then rejects its item, which is kept."""


class _ReadOnlyBlobs:
    def __init__(self, blobs):
        self._blobs = blobs

    def __getattr__(self, name):
        return getattr(self._blobs, name)

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        if not self._blobs.exists(sha):
            raise _WouldWrite(f"blob {sha[:12]}")
        return sha

    def put_text(self, text: str) -> str:
        return self.put(text.encode("utf-8"))


class _DryLog:
    """The lake's log for reading; what an importer appends is kept here instead (the dry run of an ingest)."""

    def __init__(self, log):
        self._log, self.appended = log, []
        self.blobs = _ReadOnlyBlobs(log.blobs)

    def __getattr__(self, name):
        return getattr(self._log, name)

    def append(self, event):
        self.appended.append(event)
        return event

    def append_many(self, events) -> None:
        self.appended.extend(events)


def _ingest_would_write(log, study) -> str:
    """Why the study's ingest steps (orchestration.assets.ingest) would append an event, or ""."""
    from peerlake.ingest.manuscripts import ingest_pdf, latest_versions
    from peerlake.ingest.openreview import import_reviews
    from peerlake.studies import study_pdfs, study_review_files

    dry = _DryLog(log)
    versions = latest_versions(log)
    for pid, path, synthetic in study_pdfs(study):
        known = versions.get(pid)
        # only a PDF the log has byte for byte is imported dry: another one would be read and extracted
        if known is None or known.pdf_sha256 != sha256_hex(Path(path).read_bytes()):
            return f"{path} is new or changed"
        ingest_pdf(dry, path, paper_id=pid, is_synthetic=synthetic, versions=dict(versions))
    for path in study_review_files(study):
        import_reviews(dry, path)
    if dry.appended:
        return f"the ingest would append {len(dry.appended)} events ({dry.appended[0].event_type} first)"
    return ""


def _resolution_changed(log, study, res, configs) -> str:
    """Why the study's newest study_resolved of its review step differs from what a run would record, or ""."""
    from peerlake.studies.events import record_resolution

    newest = None
    for ev in log.iter_events(STUDY_TYPE):
        if ev.study_id == study.name and ev.asset == RUN_ASSET and (
                newest is None or (ev.occurred_at, ev.event_id) >= (newest.occurred_at, newest.event_id)):
            newest = ev
    dry = _DryLog(log)
    want = record_resolution(dry, study, list(res.paper_ids), configs, asset=RUN_ASSET)
    if newest is None or any(getattr(newest, f, None) != getattr(want, f, None) for f in STUDY_FIELDS):
        return "the study resolves to other papers or reviewers"
    return ""


# ---- the record of a completed run ---------------------------------------------------------------------
def _completed_path(lake, study: str) -> Path:
    return lake.root / "runs" / f"{study}.json"


def completed(lake, study: str) -> str | None:
    """The study text (SHA-256) of the study's last completed run in this lake, if one is recorded."""
    try:
        body = json.loads(_completed_path(lake, study).read_text())
    except (OSError, ValueError):
        return None
    return body.get("study_sha256") if isinstance(body, dict) else None


def record_completed(lake, study: str, study_sha256: str, run_id: str) -> None:
    """After a run of the study that ended without a failure or a stop: every step ran for this text."""
    from peerlake.warehouse.fsutil import atomic_write

    path = _completed_path(lake, study)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"study_sha256": study_sha256, "dagster_run_id": run_id}).encode())


def forget_completed(lake, study: str) -> None:
    """Before a run: until it completes, the last completed run may not be the last run."""
    _completed_path(lake, study).unlink(missing_ok=True)
