"""The contradiction benchmark builder (the Multi-Layered Review paper): per paper a knowledge graph, distances from its
main claims, one node per distance, its paragraph rewritten to contradict it, the PDF re-rendered
with that paragraph replaced, and the result recorded as a `paper_variant` (built or not, with why).

Steps, each batched over all subjects (one progress bar each), each a `judgment_recorded` of judge
"contradiction":
  graph    subject `paper:<paper_id>`              one call per paper (contradiction_graph)
  rewrite  subject `item:<paper_id>:<distance>`    one call per item (contradiction_rewrite)
  validate subject `variant:<variant_id>`          one call per built variant, when spec.validate
Deviation from the source paper, recorded here and in the README: the source paper edits the LaTeX source and
recompiles (dropping variants that fail to compile); we edit the PDF (ingest/rewrite_pdf.py) and
re-extract it, and a variant whose modified paragraph does not come back from the new PDF is not
built (`render_lost_text`), nor one where other text of the page was lost (`render_damaged_text`).

A call that failed is not an answer: nothing is recorded for it (no judgment, no variant), so the
next run retries it. A replayed build makes no new call and writes nothing (every key is known).
"""

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from peerlake.ingest.package import ManuscriptPackage, TextRecord, fit_text, load_package
from peerlake.ingest.rewrite_pdf import RENDERER, contains_text, normalized, replace_text, rewritable, same_text
from peerlake.ingest.variants import record_variant, recorded_variants, variant_key
from peerlake.judging.base import JudgeContext, Judgment, Recorder, answer, judge_request, judgment_key
from peerlake.judging.benchmark.distances import distances, unreachable
from peerlake.judging.benchmark.graph import Graph, answer_tokens, graph_units, narrowed_schema, parse_graph
from peerlake.judging.benchmark.insertion import EDITABLE_PARTS, Item, editable, plan
from peerlake.judging.benchmark.spec import JUDGE, PARSER_VERSION, Spec
from peerlake.llm_calls.types import canonical_json
from peerlake.warehouse import settings
from peerlake.warehouse.blobs import BlobCorrupted
from peerlake.warehouse.events import PaperIngested, PaperVariantRecorded

KIND = "contradiction"
CONTEXT_CHARS = 600  # each neighbouring paragraph the validation judge sees (ours: the paper does not say)
# The rewrite may run to 1.5 x the paragraph + 80 characters ("keep the length"); at ~3 characters a
# token that is the answer budget too, so a 1,200-character paragraph needs ~650 tokens. An answer
# that reaches the limit was cut mid-sentence by the grammar: not built (`rewrite_truncated`).
LENGTH_FACTOR = 1.5
LENGTH_SLACK = 80


def paragraph_limit(spec: Spec, provider: str) -> int:
    """The longest paragraph a rewrite may take: max_paragraph_chars, and on the embedded model no more
    than its grammar can bound the answer to (llm_calls.providers.local.GRAMMAR_MAX_STRING): an
    answer the grammar cut short would not be seen as cut."""
    if provider != "local":
        return spec.max_paragraph_chars
    from peerlake.llm_calls.providers.local import GRAMMAR_MAX_STRING

    return min(spec.max_paragraph_chars, int((GRAMMAR_MAX_STRING - LENGTH_SLACK) / LENGTH_FACTOR))
_TAGS = re.compile(r"^\s*<paragraph>|</paragraph>\s*$")  # small models echo the prompt's delimiters


@dataclass
class BuildReport:
    """Every variant event of this build (built or not, new or recorded before) and its counts."""

    variants: list[PaperVariantRecorded] = field(default_factory=list)
    experiment_config: str = ""
    papers: int = 0
    papers_not_in_study: int = 0  # ids in spec.papers that were not among the papers given
    papers_unreadable: int = 0
    graphs: int = 0  # graph judgments ok
    graphs_null: int = 0
    graphs_failed: int = 0  # calls that failed: nothing recorded, retried next run
    nodes: int = 0
    quotes_kept: int = 0
    quotes_dropped: int = 0
    edges: int = 0
    edges_rejected: int = 0
    unreachable_nodes: int = 0
    papers_without_main_claim: int = 0
    items: int = 0
    built: int = 0
    not_built: int = 0
    rewrites_failed: int = 0
    validated: int = 0
    validations_failed: int = 0


@dataclass
class _Paper:
    base: PaperIngested
    judgment: Judgment
    package: ManuscriptPackage | None = None
    text: str = ""
    pdf: bytes | None = None
    graph: Graph | None = None
    dist: dict[str, int] = field(default_factory=dict)
    graph_key: str | None = None


@dataclass
class _Item:
    paper: _Paper
    item: Item
    judgment: Judgment | None = None
    request_keys: list[str] = field(default_factory=list)
    judgment_key: str | None = None  # the rewrite judgment's
    max_chars: int = 0  # the rewrite's length limit
    event: PaperVariantRecorded | None = None


def experiment_config(ctx: JudgeContext, spec: Spec, manuscript_chars: int) -> str:
    """16 hex: everything that decides a variant apart from its paper (the validation judge does not).
    max_nodes is the cap in force on the builder's provider (on the embedded model the 8 it always had)."""
    ident = {"builder": ctx.judge_config, "seed": spec.seed, "manuscript_chars": manuscript_chars,
             "max_nodes": spec.nodes_cap(ctx.cfg.provider), "max_paragraph_chars": spec.max_paragraph_chars,
             "renderer": RENDERER, "parser": PARSER_VERSION}
    return hashlib.sha256(canonical_json(ident).encode()).hexdigest()[:16]


def build(ctx: JudgeContext, papers: Sequence[PaperIngested], spec: Spec) -> BuildReport:
    """Build the benchmark's variants of `papers` (only spec.papers when set)."""
    max_chars = spec.manuscript_chars or settings.judge_max_chars(ctx.cfg.provider)
    report = BuildReport(experiment_config=experiment_config(ctx, spec, max_chars))
    if spec.papers is not None:
        given = {p.paper_id for p in papers}
        report.papers_not_in_study = sum(1 for p in spec.papers if p not in given)
        papers = [p for p in papers if p.paper_id in spec.papers]
    recorder = Recorder(ctx.log, ctx.judge_config, PARSER_VERSION, study=ctx.study)
    todo = _read_papers(ctx, papers, max_chars, report)
    _graphs(ctx, todo, spec, recorder, report)
    items = _rewrites(ctx, todo, spec, recorder, report)
    _variants(ctx, items, spec, report)
    if spec.validate:
        _validate(ctx, [i for i in items if i.event is not None and i.event.built], recorder, report)
    report.variants = [i.event for i in items if i.event is not None]
    report.built = sum(1 for e in report.variants if e.built)
    report.not_built = len(report.variants) - report.built
    return report


def _read_papers(ctx: JudgeContext, papers: Sequence[PaperIngested], max_chars: int,
                 report: BuildReport) -> list[_Paper]:
    out = []
    for base in sorted(papers, key=lambda p: p.paper_id):
        report.papers += 1
        p = _Paper(base, Judgment(judge=JUDGE, step="graph", subject_key=f"paper:{base.paper_id}",
                                  paper_id=base.paper_id, repeat=0))
        try:
            # the visible text only: hidden text never reaches the generator, nor gets edited
            p.package = load_package(ctx.log.blobs, base.package_sha256, check_images=False).without_hidden()
        except (OSError, ValueError, BlobCorrupted):  # a missing or corrupt blob: no graph, say so
            report.papers_unreadable += 1
            continue
        body = "\n".join(r.text for r in p.package.part_records(*EDITABLE_PARTS))
        p.text = fit_text(body, max_chars)
        p.pdf = ctx.log.blobs.get(base.pdf_sha256) if base.pdf_sha256 and ctx.log.blobs.exists(base.pdf_sha256) \
            else None
        p.judgment.inputs = {"package_sha256": base.package_sha256, "chars": len(body), "chars_seen": len(p.text)}
        out.append(p)
    return out


def lenient_answer(result) -> dict | None:
    """`judging.base.answer`, and else the outermost {...} read leniently: llama.cpp's JSON grammar lets
    a model put a raw newline inside a string, which strict JSON refuses (seen on the embedded model)."""
    doc = answer(result)
    text = getattr(result, "text", None) if doc is None and not isinstance(result, BaseException) else None
    if text:
        start, end = text.find("{"), text.rfind("}")
        try:
            doc = json.loads(text[start:end + 1], strict=False) if 0 <= start < end else None
        except ValueError:
            doc = None
    return doc if isinstance(doc, dict) else None


def _record(recorder: Recorder, j: Judgment) -> str | None:
    """Record `j` once; its judgment key (also when recorded before), None when its call failed."""
    if j.failed_call is not None:
        return None
    recorder.record(j)
    keys = [r.request_key for r in j.results if r is not None and not isinstance(r, BaseException)]
    return judgment_key(j.judge, j.step, recorder.judge_config, j.subject_key, j.repeat, keys,
                        recorder.parser_version)


def _graphs(ctx: JudgeContext, papers: list[_Paper], spec: Spec, recorder: Recorder, report: BuildReport) -> None:
    cap = spec.nodes_cap(ctx.cfg.provider)  # None: every node the model finds (hosted builders)
    # The graph call gets its answer's budget even when the builder's max_output_tokens is lower; without a
    # cap a higher max_output_tokens of the study's is kept too.
    cfg = dataclasses.replace(ctx.cfg, max_output_tokens=max(ctx.cfg.max_output_tokens, answer_tokens(cap)))
    budget = answer_tokens(cap) if cap is not None else cfg.max_output_tokens
    reqs = []
    for p in papers:
        req = judge_request(cfg, JUDGE, "graph", "contradiction_graph", subject_id=f"paper:{p.base.paper_id}",
                            max_tokens=budget, paper_text=p.text, max_nodes=cap,
                            title=p.base.title or p.package.title)
        reqs.append(dataclasses.replace(req, response_schema=narrowed_schema(req.response_schema, cap)))
        p.judgment.inputs["max_nodes"] = cap
    for p, res in zip(papers, ctx.call_many(reqs, "contradictions: graphs"), strict=True):
        j = p.judgment
        if isinstance(res, BaseException):
            j.failed_call = f"{type(res).__name__}: {res}"
            report.graphs_failed += 1
            continue
        j.results.append(res)
        g = parse_graph(answer(res), p.text, j, cap)
        if g is None:
            j.null_reason = "unparseable:graph"
        elif not g.nodes:
            j.null_reason = "no_nodes"
        else:
            p.graph = g
            p.dist = distances([n.id for n in g.nodes], [(a, b) for a, b, _ in g.edges], g.main_claims)
            j.units = graph_units(g, p.dist)
            lost = unreachable([n.id for n in g.nodes], p.dist)
            report.nodes += len(g.nodes)
            report.quotes_kept += sum(len(n.quotes) for n in g.nodes)
            report.edges += len(g.edges)
            report.unreachable_nodes += len(lost)
            report.papers_without_main_claim += not g.main_claims
        report.quotes_dropped += j.dropped.get("quote_not_verbatim", 0) + j.dropped.get("quote_too_short", 0)
        report.edges_rejected += sum(v for k, v in j.dropped.items() if k.startswith("edge_"))
        if j.null_reason is None:
            report.graphs += 1
        else:
            report.graphs_null += 1
        p.graph_key = _record(recorder, j)


def _rewrites(ctx: JudgeContext, papers: list[_Paper], spec: Spec, recorder: Recorder,
              report: BuildReport) -> list[_Item]:
    items: list[_Item] = []
    for p in papers:
        if p.graph is None:
            continue
        records = p.package.part_records(*EDITABLE_PARTS)
        # Only what the PDF can rewrite in place may hold an item (a paragraph joined across a page
        # break cannot); without the source PDF nothing can.
        ids = rewritable(p.pdf, [r for r in records if editable(r, paragraph_limit(spec, ctx.cfg.provider))]) \
            if p.pdf is not None else set()
        planned = plan(p.base.paper_id, p.graph, p.dist, spec.seed, records, lambda r, ids=ids: r.id in ids)
        planned = planned[:spec.max_items]  # in distance order: the most severe kept (None keeps all)
        items += [_Item(p, it) for it in planned]
    report.items = len(items)
    todo, reqs = [], []
    for it in items:
        if it.item.record is None:
            continue
        node, text = it.item.node, it.item.record.text
        it.max_chars = max_len = int(len(text) * LENGTH_FACTOR) + LENGTH_SLACK
        req = judge_request(ctx.cfg, JUDGE, "rewrite", "contradiction_rewrite", subject_id=it.item.item_id,
                            max_tokens=max_len // 3 + 20, node_type=node.type, node_level=node.level or "",
                            description=node.description, quotes=list(node.quotes), paragraph=text)
        schema = json.loads(json.dumps(req.response_schema))
        schema["properties"]["modified_paragraph"]["maxLength"] = max_len
        reqs.append(dataclasses.replace(req, response_schema=schema))
        it.judgment = Judgment(judge=JUDGE, step="rewrite", subject_key=f"item:{it.item.paper_id}:{it.item.distance}",
                               paper_id=it.item.paper_id, repeat=0,
                               inputs={"item_id": it.item.item_id, "node_id": node.id, "record_id": it.item.record.id,
                                       "chars": len(text)})
        todo.append(it)
    for it, res in zip(todo, ctx.call_many(reqs, "contradictions: rewrites"), strict=True):
        j = it.judgment
        if isinstance(res, BaseException):
            j.failed_call = f"{type(res).__name__}: {res}"
            report.rewrites_failed += 1
            continue
        j.results.append(res)
        it.request_keys = [res.request_key]
        doc = lenient_answer(res)
        modified = doc.get("modified_paragraph") if isinstance(doc, dict) else None
        original = it.item.record.text
        if isinstance(modified, str):
            modified = " ".join(_TAGS.sub("", modified).split())
        if not isinstance(modified, str) or not modified:
            j.null_reason = "unparseable:rewrite"
        elif len(doc["modified_paragraph"]) >= it.max_chars:
            j.null_reason = "rewrite_truncated"
        elif same_text(modified, original):
            j.null_reason = "rewrite_unchanged"
        else:
            j.units = [{"item_id": it.item.item_id, "node_id": it.item.node.id, "record_id": it.item.record.id,
                        "distance": it.item.distance, "original_chars": len(original),
                        "modified_chars": len(modified), "modified_paragraph": modified}]
        it.judgment_key = _record(recorder, j)
    return items


def details(item: Item, seed: int, modified: str | None) -> dict:
    """A variant's details_json (the marts rely on these keys)."""
    r = item.record
    return {"item_id": item.item_id, "node_id": item.node.id, "node_type": item.node.type,
            "node_level": item.node.level, "distance": item.distance,
            "original_paragraph": r.text if r is not None else None, "modified_paragraph": modified,
            "record_id": r.id if r is not None else None, "page": r.page if r is not None else None, "seed": seed}


def _variants(ctx: JudgeContext, items: list[_Item], spec: Spec, report: BuildReport) -> None:
    known = recorded_variants(ctx.log)
    for it in items:
        if it.judgment is not None and it.judgment.failed_call is not None:
            continue  # not answered: retried next run, nothing recorded
        p, item = it.paper, it.item
        modified, reason = None, None
        if item.record is None:
            reason = "no_source_pdf" if p.pdf is None else "paragraph_not_found"
        elif it.judgment.null_reason is not None:
            why = it.judgment.null_reason
            reason = "rewrite_unparseable" if why.startswith("unparseable") else why  # rewrite_unchanged | _truncated
        else:
            modified = it.judgment.units[0]["modified_paragraph"]
        d = details(item, spec.seed, modified)
        judgment_keys = [k for k in (p.graph_key, it.judgment_key) if k]
        key = variant_key(KIND, p.base.package_sha256, report.experiment_config, d, it.request_keys)
        if key in known:  # a replayed build: neither re-render nor re-ingest
            it.event = known[key]
            continue
        pdf = None
        if reason is None:
            try:
                pdf = replace_text(p.pdf, item.record.page, item.record.bbox, modified)
            except Exception:  # the text does not fit, or MuPDF failed (it raises several types)
                reason = "render_failed"
        it.event, _ = record_variant(
            ctx.log, p.base, kind=KIND, experiment_config=report.experiment_config, details=d, pdf_bytes=pdf,
            reason=reason, verify=_verifier(p.package, item.record, modified), judgment_keys=judgment_keys,
            request_keys=it.request_keys, study=ctx.study, known=known)


def _verifier(base: ManuscriptPackage, record: TextRecord | None, modified: str | None):
    """verify(package) for record_variant: None when the re-rendered PDF gives the modified paragraph
    back and every other text record of the base paper is still there; else the reason."""
    def verify(package: ManuscriptPackage) -> str | None:
        text = normalized(" ".join(r.text for r in package.records if r.kind not in ("page_marker", "image")))
        if not contains_text(text, modified or ""):
            return "render_lost_text"
        for r in base.records:
            if r.kind in ("page_marker", "image") or r.id == record.id:
                continue
            if normalized(r.text) not in text:
                return "render_damaged_text"
        return None

    return verify


def _neighbours(package: ManuscriptPackage, record_id: str) -> tuple[str, str]:
    """The paragraphs before and after a record (front matter and body), each cut for the validator."""
    paras = [r for r in package.part_records(*EDITABLE_PARTS) if r.kind == "paragraph"]
    at = next((i for i, r in enumerate(paras) if r.id == record_id), None)
    if at is None:
        return "", ""
    before = paras[at - 1].text if at > 0 else ""
    after = paras[at + 1].text if at + 1 < len(paras) else ""
    return fit_text(before, CONTEXT_CHARS), fit_text(after, CONTEXT_CHARS)


def _validate(ctx: JudgeContext, items: list[_Item], recorder: Recorder, report: BuildReport) -> None:
    reqs, jobs = [], []
    for it in items:
        ev = it.event
        d = json.loads(ev.details_json)
        before, after = _neighbours(it.paper.package, d["record_id"])
        node = it.item.node
        reqs.append(judge_request(ctx.cfg, JUDGE, "validate", "contradiction_validate",
                                  subject_id=f"variant:{ev.variant_id}", max_tokens=160, node_type=node.type,
                                  node_level=node.level or "", description=node.description,
                                  original=d["original_paragraph"], modified=d["modified_paragraph"],
                                  before=before, after=after))
        jobs.append(Judgment(judge=JUDGE, step="validate", subject_key=f"variant:{ev.variant_id}",
                             paper_id=ev.variant_id, repeat=0,
                             inputs={"item_id": d["item_id"], "base_paper_id": ev.base_paper_id}))
    for j, res in zip(jobs, ctx.call_many(reqs, "contradictions: validation"), strict=True):
        if isinstance(res, BaseException):
            j.failed_call = f"{type(res).__name__}: {res}"
            report.validations_failed += 1
            continue
        j.results.append(res)
        doc = lenient_answer(res)
        if not isinstance(doc, dict) or not isinstance(doc.get("contradicts"), bool) \
                or not isinstance(doc.get("locally_detectable"), bool):
            j.null_reason = "unparseable:validate"
        else:
            rationale = doc.get("rationale")
            j.units = [{"contradicts": doc["contradicts"], "locally_detectable": doc["locally_detectable"],
                        "rationale": rationale.strip() if isinstance(rationale, str) else ""}]
            report.validated += 1
        _record(recorder, j)
