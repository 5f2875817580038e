"""`peerlake ingest pdf|openreview|asap|reviews|prism|judgments|related-work` and `peerlake sample`: bring
papers, reviews and judgments made elsewhere into the lake. Every set-aside input is printed with its reason
and kept as `ingest_rejected`."""

from pathlib import Path

import typer

from peerlake.commands import command_group

ingest_app = typer.Typer(no_args_is_help=True, add_completion=False,
                         help="Bring papers, human reviews and other systems' reviews into the lake.")


def _log():
    from peerlake.warehouse import EventLog

    return EventLog()


def _say_rejected(reason: str, severity: str = "error") -> None:
    typer.secho(f"{'WARNING' if severity == 'warning' else 'REJECTED'} {reason}", err=True,
                fg=typer.colors.YELLOW if severity == "warning" else typer.colors.RED)


def skipped_not_pdfs(files: list[Path]) -> str:
    """ "3 files skipped: not PDFs (a.txt, b.docx, c.png, …)", or "" for none: a folder's other files
    are named in the tally, so a paper saved as .docx is not missed without a word."""
    if not files:
        return ""
    names = ", ".join(f.name for f in files[:3]) + (", …" if len(files) > 3 else "")
    return f"{len(files)} file{'s' if len(files) != 1 else ''} skipped: not PDFs ({names})"


def _finish(log, outcomes: list, statuses: tuple[str, ...], strict: bool, extra: str = "") -> None:
    """Name every set-aside item, print the tally, seal the log; --strict fails on any rejection."""
    from peerlake.ingest.batch import counts

    for o in outcomes:
        if o.status == "rejected":
            _say_rejected(o.reason, o.severity)
    tally = counts(outcomes, statuses)
    typer.echo(" · ".join([f"{k} {v}" for k, v in tally.items()] + ([extra] if extra else [])))
    log.seal()
    log.close()
    if tally["rejected"] and strict:
        raise typer.Exit(1)


def _existing(paths: list[Path]) -> None:
    """Refuse (exit 2) a path that names no file or folder, with the closest name beside it, so a typo
    never reaches the log as an `ingest_rejected` event."""
    import difflib

    missing = [p for p in paths if not p.exists()]
    for p in missing:
        siblings = [q.name for q in p.parent.iterdir()] if p.parent.is_dir() else []
        close = difflib.get_close_matches(p.name, siblings, n=1)
        hint = f"; did you mean {str(p.parent / close[0])!r}?" if close else ""
        typer.echo(f"error: no such file or folder: {str(p)!r}{hint}", err=True)
    if missing:
        raise typer.Exit(2)


@ingest_app.command("pdf")
def ingest_pdf_cmd(
    paths: list[Path] = typer.Argument(..., help="PDF files or folders of PDFs"),
    venue: str = typer.Option(None, help="venue id to record on the papers"),
    paper_id: str = typer.Option(None, "--paper-id", help="paper id (one file only; default: file stem)"),
    strict: bool = typer.Option(False, help="exit 1 when any file was rejected"),
) -> None:
    """PDFs → manuscript packages (reading order, sections, images, anonymized view)."""
    from peerlake.ingest.papers import ingest_pdf, iter_pdfs, latest_versions, not_pdfs

    _existing(paths)  # a typo is refused here, before the permanent log records anything
    files = iter_pdfs(paths)
    if paper_id and len(files) != 1:
        raise typer.BadParameter("--paper-id needs exactly one PDF")
    log = _log()
    versions = latest_versions(log)
    outcomes = []
    for path in files:
        o = ingest_pdf(log, path, paper_id=paper_id, venue=venue, versions=versions)
        outcomes.append(o)
        if o.status != "rejected":
            ev = o.event
            typer.echo(f"{o.status:11} {o.paper_id}: {ev.n_pages} pages, {ev.n_chars} chars "
                       f"(body {ev.body_chars}, appendix {ev.appendix_chars}), {ev.n_images} images, "
                       f"{ev.n_references} references")
    _finish(log, outcomes, ("ingested", "new_version", "unchanged", "rejected"), strict,
            extra=skipped_not_pdfs(not_pdfs(paths)))


@ingest_app.command("openreview")
def ingest_openreview_cmd(
    paths: list[Path] = typer.Argument(None, help="exported note JSON files or folders"),
    venue: str = typer.Option(None, help="venue id, e.g. ICLR.cc/2025/Conference"),
    rating_scale: str = typer.Option(None, "--rating-scale", help="NAME:v1,v2,… for a venue peerlake does not know"),
    live: bool = typer.Option(False, help="fetch --venue with openreview-py instead of reading files"),
    strict: bool = typer.Option(False, help="exit 1 when any note was rejected"),
) -> None:
    """OpenReview notes (API v1/v2, openreview-py dumps) → human reviews and paper statuses."""
    from peerlake.ingest.openreview import import_reviews, iter_note_files

    log = _log()
    outcomes = []
    if live:
        from peerlake.ingest.openreview_live import LiveUnavailable, import_live

        if not venue:
            raise typer.BadParameter("--live needs --venue")
        try:
            dump, outcomes = import_live(log, venue, rating_scale=rating_scale)
        except LiveUnavailable as exc:
            typer.secho(str(exc), err=True, fg=typer.colors.RED)
            raise typer.Exit(2) from None
        typer.echo(f"fetched {venue} → {dump}")
    elif not paths:
        raise typer.BadParameter("give files/folders, or --venue V --live")
    for path in iter_note_files(paths or []):
        outcomes += import_reviews(log, path, venue=venue, rating_scale=rating_scale)
    _finish(log, outcomes, ("imported", "status_recorded", "skipped", "ignored", "rejected"), strict)


@ingest_app.command("asap")
def ingest_asap_cmd(folder: Path = typer.Argument(..., help="ASAP-Review folder (sample or extracted tarball)"),
                    strict: bool = typer.Option(False)) -> None:
    """ASAP-Review papers: parsed full text, reviews with rating strings, decisions."""
    from peerlake.ingest.asap import import_asap

    log = _log()
    _finish(log, import_asap(log, folder),
            ("ingested", "new_version", "unchanged", "imported", "status_recorded", "skipped", "rejected"), strict)


@ingest_app.command("reviews")
def ingest_reviews_cmd(
    path: Path = typer.Argument(..., help="JSONL file, one review per line (see ingest/README.md)"),
    system: str = typer.Option(..., help="name of the system that wrote the reviews (its reviewer_config)"),
    strict: bool = typer.Option(False),
) -> None:
    """Reviews made by another system → external_review_imported (compared in the same marts)."""
    from peerlake.ingest.external_reviews import import_external_reviews

    log = _log()
    try:
        outcomes = import_external_reviews(log, path, system)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    _finish(log, outcomes, ("imported", "skipped", "rejected"), strict)


@ingest_app.command("prism")
def ingest_prism_cmd(
    folder: Path = typer.Argument(..., help="PRISM's data root (ICLR2024/ … Neurlps2025/), a folder holding "
                                            "data/, or one venue folder"),
    study: str = typer.Option(None, "--study", help="also write a study (if absent) whose reviewers are the "
                                                    "imported systems, on every judge"),
    strict: bool = typer.Option(False, help="exit 1 when any file was rejected"),
) -> None:
    """PRISM's released papers (text), human reviews, decisions and its five systems' reviews."""
    from peerlake.ingest.prism import STATUSES, import_prism

    log = _log()
    found = import_prism(log, folder)
    systems, venues = sorted(found.systems or _prism_systems(log)), sorted(found.venues)
    name = study or "prism"
    command = (f"peerlake study new {name} --no-reviewers --judges all "
               + " ".join(f"--venue {v}" for v in venues) + " " + " ".join(f"--external {s}" for s in systems))
    if study:
        _prism_study(log, study, venues, systems, command)
    else:
        typer.echo(f"to judge them: {command}\n  then: peerlake run {name}")
    _finish(log, found.outcomes, STATUSES, strict)


def _prism_systems(log) -> set[str]:
    from peerlake.ingest.prism_reviews import SYSTEMS

    return {e.system for e in log.iter_events("external_review_imported")} & set(SYSTEMS.values())


def _prism_study(log, name: str, venues: list[str], systems: list[str], command: str) -> None:
    from peerlake.studies import JUDGES, StudyError, save_study, study_text
    from peerlake.warehouse.studies import StudyFiles

    if StudyFiles(log.lake).exists(name):
        typer.echo(f"study {name} exists; left as it is (to write it anew: {command} --force)")
        return
    try:
        text = study_text(name, description="PRISM's released reviews: humans and five reviewer systems",
                          venues=venues, external_systems=systems, reviewers=False, judges=list(JUDGES))
        path = save_study(log, name, text)
    except (StudyError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(f"study {name} written to {path}\nrun it with: peerlake run {name}")


@ingest_app.command("judgments")
def ingest_judgments_cmd(
    path: Path = typer.Argument(..., help="a judge output file, or a folder of them (PRISM's data_demo/<aspect>/…)"),
    judge: str = typer.Option(..., "--judge",
                              help="the judge the outputs stand for: depth | constructiveness | flaws | novelty"),
    label: str = typer.Option("prism-released", "--label", help="names the judge config (<label>:<judge>)"),
    study: str = typer.Option(None, "--study", help="add the imported judge config to this study's judging scope, "
                                                    "so its quality marts count them"),
    strict: bool = typer.Option(False),
) -> None:
    """Judge outputs made elsewhere (PRISM's released units, atomic comments) → judgment_recorded."""
    from peerlake.ingest.judgment_scope import add_to_study, check_study, scope_row
    from peerlake.ingest.judgments import STATUSES, import_judgments, judge_config

    log = _log()
    try:
        if study:
            check_study(log, study)
        outcomes = import_judgments(log, path, judge, label)
    except ValueError as exc:
        log.close()
        raise typer.BadParameter(str(exc)) from None
    if study:
        row = scope_row(log, judge, judge_config(judge, label))
        papers = {e.paper_id for e in log.iter_events("judgment_recorded")
                  if e.judge_config == row["judge_config"] and e.paper_id}
        try:
            add_to_study(log, study, [row], papers)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        typer.echo(f"study {study}: {row['judge_config']} covers {len(row['review_keys'])} reviews")
    _finish(log, outcomes, STATUSES, strict)


@ingest_app.command("related-work")
def ingest_related_work_cmd(
    path: Path = typer.Argument(..., help="JSONL file, one work per line: title, abstract, year, venue, id"),
    strict: bool = typer.Option(False),
) -> None:
    """Related work (title, abstract, year, venue) → the offline literature index of the novelty judge."""
    from peerlake.ingest.related_work import import_related_work

    log = _log()
    _finish(log, import_related_work(log, path), ("imported", "skipped", "rejected"), strict)


@ingest_app.command("withdrawals")
def ingest_withdrawals_cmd(
    paths: list[Path] = typer.Argument(..., help="arXiv comments as .jsonl (paper_id, comment, arxiv_id?, title?, "
                                                 "level?) or OpenReview note files / folders"),
    strict: bool = typer.Option(False),
) -> None:
    """Withdrawal comments (arXiv JSONL, OpenReview withdrawal notes) → what the withdrawal match judge reads."""
    from peerlake.ingest.openreview import iter_note_files
    from peerlake.ingest.withdrawals import STATUSES, import_withdrawals

    log = _log()
    outcomes = []
    for p in paths:
        for path in [p] if p.suffix.lower() == ".jsonl" else iter_note_files([p]):
            outcomes += import_withdrawals(log, path)
    _finish(log, outcomes, STATUSES, strict)


@ingest_app.command("labels")
def ingest_labels_cmd(
    path: Path = typer.Argument(..., help="JSONL file, one label per line: subject_key (or variant_id and "
                                          "review_key), the label (e.g. identified), labelled_by?; with "
                                          "--format, the dataset's folder"),
    dataset: str = typer.Option(None, help="what the labels are for, e.g. detection_verified (the detection "
                                           "judge's sensitivity)"),
    fmt: str = typer.Option(None, "--format", help="a human-labelled dataset: disapere | revutil | "
                                                   "reviewcritique (mapped by prompts/label_mappings/<name>.toml)"),
    strict: bool = typer.Option(False),
) -> None:
    """Human-verified labels a judge is audited against → reference_label_imported; with --format, a
    human-labelled dataset's reviews and labels → external_review_imported + human_label_imported."""
    from peerlake.ingest.reference_labels import STATUSES, import_reference_labels

    if fmt:
        if dataset:
            raise typer.BadParameter("give --format (a labelled dataset) or --dataset (a JSONL of labels), not both")
        _dataset_labels(path, fmt, strict)
        return
    log = _log()
    try:
        outcomes = import_reference_labels(log, path, dataset)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    _finish(log, outcomes, STATUSES, strict)


def _dataset_labels(path: Path, fmt: str, strict: bool) -> None:
    from peerlake.ingest.label_datasets import STATUSES, import_labels

    _existing([path])
    log = _log()
    try:
        found = import_labels(log, fmt, path)
    except ValueError as exc:
        log.close()
        raise typer.BadParameter(str(exc)) from None
    shown = tuple(s for s in STATUSES if s in ("imported", "skipped", "rejected")
                  or any(o.status == s for o in found.outcomes))
    _finish(log, found.outcomes, shown, strict, extra=found.totals())


def sample_cmd(
    per_venue: str = typer.Option(..., "--per-venue", help="sample size per venue; nested sizes as 1000,300,100"),
    strata: str = typer.Option("area,score_bin", help="comma-separated: area, score_bin, status"),
    seed: int = typer.Option(..., help="random seed (recorded with the sample)"),
    venue: list[str] = typer.Option(None, help="only these venues (default: every venue with reviews)"),
    bin_width: float = typer.Option(1.0, "--bin-width", help="width of a mean-human-score bin"),
) -> None:
    """Draw stratified paper samples (milp quotas, systematic within strata); records sample_drawn."""
    from peerlake.ingest.sampling import SamplingError, draw_nested, population_from_log

    try:
        sizes = [int(s) for s in per_venue.split(",") if s.strip()]
    except ValueError:
        raise typer.BadParameter(f"--per-venue {per_venue!r}: give integers, e.g. 300 or 1000,300,100") from None
    keys = tuple(s.strip() for s in strata.split(",") if s.strip())
    log = _log()
    papers = population_from_log(log)
    venues = venue if venue else sorted({p.venue or "unknown" for p in papers})
    failed = False
    for v in venues:
        pool = [p for p in papers if (p.venue or "unknown") == v]
        try:
            events = draw_nested(log, pool, sizes, keys, seed, venue=v, bin_width=bin_width)
        except SamplingError as exc:
            typer.secho(f"{v}: {exc}", err=True, fg=typer.colors.RED)
            failed = True
            continue
        for e in events:
            typer.echo(f"{v}: sample {e.sample_id} · {e.size} of {len(pool)} papers · strata {e.strata} · seed {seed}")
    log.seal()
    log.close()
    if failed:
        raise typer.Exit(1)


@command_group("ingest", listed=10)
def register(app: typer.Typer) -> None:
    app.add_typer(ingest_app, name="ingest", rich_help_panel="Your data")
    app.command("sample", rich_help_panel="Your data")(sample_cmd)
