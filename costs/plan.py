"""A study run's calls, as the assets would make them, priced by the estimator (costs.estimate).

Used by `peerlake run STUDY --dry-run` (the whole run, dagster_run_id null) and by each model asset at
the start of a real run (its own calls, with its run id), so `cost_estimate_accuracy` can compare.
"""


import json

from peerlake.costs.estimate import DEFAULT_REVIEW_CHARS, Estimate, ToJudge, judge_rows, load_history, request_rows
from peerlake.judging import registry as judge_registry
from peerlake.reviewing.probes import decimal_config, probe_requests
from peerlake.reviewing.scoring import review_requests
from peerlake.studies import Study, resolve_papers, study_pdfs, with_study


def judge_modules(judges) -> dict:
    registry = judge_registry.judges()
    return {j: registry[j] for j in judges}


def judge_estimate(log, study: Study, gateway, judge: str, reviews, hist=None) -> list[dict]:
    """Rows for one judge over the reviews it will read (judging.reviews.JudgedReview or ToJudge), for each
    judge configuration of the study (a panel's members, the primary first; their rows carry its label)."""
    from peerlake.judging.base import JudgeConfig

    module = judge_modules([judge])[judge]
    to_judge = [r if isinstance(r, ToJudge) else ToJudge(r.review_key, len(r.text)) for r in reviews]
    hist = hist or load_history(log)
    rows = []
    for member in study.judging.members():
        cfg = JudgeConfig(**member.settings)
        rows += judge_rows(judge, module.TEMPLATES, cfg, cfg.identity(judge, module.TEMPLATES), to_judge, gateway,
                           hist, label=member.label)
    return rows


def study_estimate(log, study: Study, gateway, *, probes: bool = False, judged_reviews=()) -> Estimate:
    """Every call a run of the study would make now. `judged_reviews`: the reviews in the log its
    judges would read (orchestration's judged_reviews); the AI reviews this run would write are added."""
    hist = load_history(log)
    res = resolve_papers(log, study)
    est = Estimate(study=study.name, rows=[])
    configs = study.reviewer_configs()
    reviews = with_study([r for cfg in configs for p in res.manuscripts if cfg.covers(p.paper_id)
                         for r in review_requests(log, p, cfg)], study)
    reviews += with_study(_unread_requests(study, res, configs, est), study)
    review_rows = request_rows("ai_reviews", reviews, gateway, hist)
    est.rows += review_rows
    est.notes += reading_notes(log, configs, res.manuscripts)
    if study.system_configs():
        est.rows += _system_rows(log, study, res, gateway, hist, est)
    if probes and configs:
        cfg = configs[0]
        decimal = [r for p in res.manuscripts for r in review_requests(log, p, decimal_config(cfg))]
        est.rows += request_rows("ai_reviews_decimal", with_study(decimal, study), gateway, hist)
        probe = [r for p in res.manuscripts for r in probe_requests(log, p, cfg)]
        est.rows += request_rows("score_probes", with_study(probe, study), gateway, hist)
        est.notes.append("score_probes: a forced-10 continuation (made only when the probe cannot split 1 "
                         "from 10) is not estimated")
    if study.revision() is not None:
        est.rows += _revision_rows(log, study, res, gateway, hist, est)
    if "stress" in study.experiments:
        est.rows += _stress_rows(log, study, res, gateway, hist, est, list(zip(reviews, review_rows, strict=True)))
    if study.judges:
        _unread_human_note(study, res, est)
        to_judge = [ToJudge(r.review_key, len(r.text)) for r in judged_reviews]
        to_judge += _unwritten_reviews(study, configs, reviews, review_rows)
        for judge in study.judges:
            est.rows += judge_estimate(log, study, gateway, judge, to_judge, hist)
    if (note := wall_time_note(est.rows, gateway)) is not None:
        est.notes.append(note)
    return est


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def wall_time_note(rows: list[dict], gateway) -> str | None:
    """How long the new calls would take (llm_calls.throughput: this lake's own call times per model and
    template, else the stated prior), at the estimate's mean and high output; None when nothing is new."""
    from peerlake.llm_calls.throughput import Planned, wall_time_s
    from peerlake.llm_calls.tokens import CHARS_PER_TOKEN

    new = [r for r in rows if r["new"] and r["calls"]]
    if not new:
        return None
    throughput = gateway.throughput()

    def seconds(output: str) -> float:
        return wall_time_s(throughput, [Planned(r["provider"], r["model"], r["prompt_template"], r["calls"],
                                                round(r["est_input_tokens"] * CHARS_PER_TOKEN), round(r[output]))
                                        for r in new], gateway.max_concurrency)

    basis = {throughput.expected(r["provider"], r["model"], r["prompt_template"]).basis.split(":")[0] for r in new}
    how = ("this lake's own call times" if basis == {"history"} else "the stated prior per call (the embedded "
           "model's measured token rates; 5 s a hosted call)" if basis == {"prior"} else
           "this lake's call times where it has them, else the stated prior")
    mid, high = seconds("est_output_tokens"), seconds("est_output_tokens_hi")
    return (f"time: the {sum(r['calls'] for r in new):,.0f} new calls would take about {_duration(mid)} "
            f"(up to {_duration(high)} at the high output), from {how}"
            + ("; the embedded model answers one call at a time" if any(r["provider"] == "local" for r in new)
               else ""))


def reading_notes(log, configs, manuscripts) -> list[str]:
    """What each single-template reviewer reads of the study's papers, when it is cut to the provider's
    character budget (settings.review_max_chars: 9,000 on the embedded model): the share of each paper's
    text, so a run on the first pages of long papers is said before it runs, not discovered in its reviews."""
    import statistics

    from peerlake.ingest.manuscripts import load_package
    from peerlake.warehouse import settings

    notes, packages = [], {}
    for cfg in configs:
        budget = settings.review_max_chars(cfg.provider)
        shares = []
        for p in manuscripts:
            if not cfg.covers(p.paper_id):
                continue
            if p.package_sha256 not in packages:
                packages[p.package_sha256] = load_package(log.blobs, p.package_sha256)
            full = len(cfg.reading(packages[p.package_sha256]).review_text(10**12))
            shares.append((min(1.0, budget / full) if full else 1.0, p.paper_id, full))
        cut = [s for s in shares if s[0] < 1.0]
        if not cut:
            continue
        low = min(cut)
        notes.append(f"reviewer {cfg.template} on {cfg.provider}/{cfg.model} reads the first {budget:,} characters of "
                     f"each paper (PEERLAKE_REVIEW_MAX_CHARS): {len(cut)} of {len(shares)} papers are cut, to a median "
                     f"{statistics.median(s[0] for s in shares):.0%} of their text (least: {low[0]:.0%} of "
                     f"{low[1]}, {low[2]:,} characters)")
    return notes


def _system_rows(log, study: Study, res, gateway, hist, est: Estimate) -> list[dict]:
    """The study's reviewer systems on the manuscripts in the lake (costs.systems: per run and step)."""
    from peerlake.costs.systems import system_rows
    from peerlake.reviewing.systems.runs import system_runs

    unread = [pid for pid, _, _ in study_pdfs(study) if pid not in res.reviewable]
    if unread:
        est.notes.append(f"reviewer systems: {len(unread)} PDFs the run will ingest first are not in their estimate")
    est.notes.append("reviewer systems: each step at its planned maximum (every reflection round); judges reading "
                     "the systems' new reviews are not estimated")
    return system_rows(system_runs(log, res.manuscripts, study.system_configs(), study=study.name), gateway, hist)


def _revision_rows(log, study: Study, res, gateway, hist, est: Estimate) -> list[dict]:
    """The revision crossover's calls (reviewing.revision.crossover.planned_requests): exact where the
    answers they depend on are in the log, stand-ins of the same shape (as new calls) where not."""
    from peerlake.ingest.variants import recorded_variants
    from peerlake.reviewing.revision.crossover import planned_requests

    spec = study.revision()
    variants = {v.variant_id for v in recorded_variants(log).values()}
    papers = [p for p in res.manuscripts if p.paper_id not in variants and spec.covers(p.paper_id)]
    exact, standins = planned_requests(log, gateway.logged, papers, spec)
    if standins:
        est.notes.append(f"revision: {len(standins)} calls depend on answers not made yet and are estimated from "
                         "stand-ins of the same shape, as an upper bound (a Writer that changes nothing needs no "
                         "Selector and no final-side Scorer; identical final manuscripts are scored once)")
    rows = []
    for asset, purposes in (("revision_manuscripts", ("revision_writer", "revision_selector")),
                            ("revision_scores", ("review",))):
        reqs = [r for r in exact + standins if r.purpose in purposes]
        rows += request_rows(asset, with_study(reqs, study), gateway, hist)
    return rows


def _stress_rows(log, study: Study, res, gateway, hist, est: Estimate, written: list) -> list[dict]:
    """The stress suite's calls: its paraphrase's rewrites and validations (judging.stress.plan: exact where
    the log answers what they depend on, stand-ins where not) and the mention judge on every review of a
    soundness variant (`written`: the review requests and their rows, so a review this run writes counts)."""
    from peerlake.ingest.package import load_package
    from peerlake.ingest.stress import EDITS
    from peerlake.ingest.variants import recorded_variants
    from peerlake.judging.stress.plan import planned_requests
    from peerlake.judging.stress_mention import JUDGE, TEMPLATES, problems
    from peerlake.studies.experiments import experiments, study_reviews

    exp = next(e for e in experiments(study) if e.name == "stress")
    spec, rows = exp.builder_spec, []
    recorded = list(recorded_variants(log).values())
    variant_ids = {v.variant_id for v in recorded}
    bases = [p for p in res.manuscripts if p.paper_id not in variant_ids
             and (spec.papers is None or p.paper_id in spec.papers)]
    if "paraphrase" in spec.edits:
        papers = []
        for p in bases:
            try:
                papers.append((p.paper_id, load_package(log.blobs, p.package_sha256, check_images=False)))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # the builder records it not built (base_unreadable): no call
        exact, standins = planned_requests(exp.builder_config(study), gateway.logged, papers,
                                           spec.paraphrase_max_sections)
        rows += request_rows("paper_variants", with_study(exact + standins, study), gateway, hist)
        if standins:
            est.notes.append(f"stress: {len(standins)} paraphrase validation calls depend on rewrites not made yet "
                             "and are estimated from stand-ins of the same shape, as an upper bound (a rewrite "
                             "that loses a number is refused with no validation call)")
    # the mention judge reads every review of a built soundness variant, `repeats` times
    ids, in_study = {p.paper_id for p in bases}, set(res.paper_ids)
    found = {vid for vid, p in problems(log).items() if p.base_paper_id in ids and vid in in_study}
    to_judge = [ToJudge(r.review_key, len(r.text)) for r in study_reviews(log, study, res)[1] if r.paper_id in found]
    to_judge += [ToJudge(f"peerlake:{row['request_key']}", DEFAULT_REVIEW_CHARS) for req, row in written
                 if row["new"] and req.subject_id in found]
    # variants this run's builder will record (counted as built: an upper bound) or has recorded and will
    # add to the study: their reviews are not planned yet, so each covering reviewer's samples stand in
    config = spec.experiment_config()
    soundness = [e for e in spec.edits if EDITS[e].family == "soundness" and EDITS[e].make is not None]
    mine = {(v.base_paper_id, json.loads(v.details_json).get("edit")): v for v in recorded
            if v.kind == "stress" and v.experiment_config == config}
    unmade = [(b, e) for b in sorted(ids) for e in soundness if (b, e) not in mine]
    coming = unmade + [(b, e) for b in sorted(ids) for e in soundness
                       if (v := mine.get((b, e))) is not None and v.built and v.variant_id not in in_study]
    configs = study.reviewer_configs()
    to_judge += [ToJudge(f"planned:{b}:{e}:{c.code_version()}:{k}", DEFAULT_REVIEW_CHARS)
                 for b, e in coming for c in configs if c.covers(b) for k in range(c.samples)]
    if unmade:
        est.notes.append(f"stress: {len(unmade)} soundness variants not made yet are counted as built (an upper "
                         "bound), for the mention judge's calls on their reviews; the reviews of variants not made "
                         "yet, and the mention judge on reviewer systems' reviews, are not estimated")
    if to_judge:
        cfg = exp.judge_config(study)
        rows += judge_rows(JUDGE, TEMPLATES, cfg, exp.judge_config_id(cfg), to_judge, gateway, hist)
    return rows


def _unread_requests(study: Study, res, configs, est: Estimate) -> list:
    """Review requests for the study's PDFs the lake has not ingested yet, packaged in memory exactly as
    the run's ingest will (nothing is written); a PDF that cannot be read is left out, with a note."""
    from peerlake.ingest.manuscripts import ManuscriptError, extract_package
    from peerlake.reviewing.scoring import package_review_requests
    from peerlake.warehouse import settings

    out, unreadable = [], []
    for pid, path, _ in study_pdfs(study):
        if pid in res.reviewable:
            continue
        try:
            package, _ = extract_package(path.read_bytes(), max_pages=settings.ingest_max_pages(),
                                         max_images=settings.ingest_max_images())
        except (OSError, ManuscriptError) as exc:
            unreadable.append(f"{path.name} ({exc})")
            continue
        out += [r for cfg in configs if cfg.covers(pid)
                for r in package_review_requests(pid, package.title, package, cfg)]
    if out:
        est.notes.append(f"{len(out)} review calls are for PDFs the run will ingest first (packaged in memory "
                         "for this estimate)")
    if unreadable:
        est.notes.append(f"{len(unreadable)} PDFs could not be read and are not in this estimate (the run would "
                         f"set them aside): {'; '.join(unreadable[:5])}")
    return out


def _unread_human_note(study: Study, res, est: Estimate) -> None:
    """The human reviews of papers the run will ingest first are not in the log yet, so no judge call on
    them is estimated: say so rather than let a fresh lake's dry run read $0 for a judges-only study."""
    spec = study.judging
    if "human" not in spec.sources:
        return
    unread = [pid for pid, _, _ in study_pdfs(study)
              if pid not in res.reviewable and (not spec.papers or pid in spec.papers)]
    if unread:
        est.notes.append(f"judges: the human reviews of {len(unread)} papers the run will ingest first "
                         f"({', '.join(unread[:3])}{', …' if len(unread) > 3 else ''}) are not in this estimate; "
                         "the run records its own estimate once they are in (cost_estimate_accuracy)")


def _unwritten_reviews(study: Study, configs, requests, rows) -> list[ToJudge]:
    """The AI reviews this run would write that the judges would then read ([judging] narrows them)."""
    spec = study.judging
    if "peerlake" not in spec.sources:
        return []
    limit = {(c.provider, c.model, c.template): min(c.samples, spec.peerlake_samples or c.samples) for c in configs}
    out = []
    for req, row in zip(requests, rows, strict=True):
        if not row["new"] or (spec.papers and req.subject_id not in spec.papers):
            continue
        if req.sample_index < limit.get((req.provider, req.model, req.prompt_template), 0):
            out.append(ToJudge(f"peerlake:{row['request_key']}", DEFAULT_REVIEW_CHARS))
    return out
