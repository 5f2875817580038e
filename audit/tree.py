"""The audit as a rich tree: the row, the models it went through (each with its input rows), the
events behind it, and each model call with its request, response, template text and manuscript."""

import json
from pathlib import Path

from rich.markup import escape
from rich.tree import Tree

from peerlake.audit.trace import Audit, Step
from peerlake.warehouse.blobs import BlobStore
from peerlake.warehouse.ids import PaperIdError, check_paper_id, path_under


def _clip(text: str | None, full: bool, n: int = 400) -> str:
    if text is None:
        return "—"
    return text if full or len(text) <= n else text[:n] + f" … ({len(text):,} chars; --full shows all)"


def _blob(blobs: BlobStore, sha: str | None, full: bool) -> str:
    if not sha:
        return "—"
    if not blobs.exists(sha):
        return f"{sha[:16]}… [red](missing from the blob store)[/red]"
    return f"{sha[:16]}…\n" + escape(_clip(blobs.get_text(sha), full))


def _row_line(columns: list[str], row: tuple, width: int = 150) -> str:
    text = ", ".join(f"{c}={'—' if v is None else v}" for c, v in zip(columns, row, strict=True))
    return escape(text if len(text) <= width else text[:width] + " …")


def _model_node(parent: Tree, step: Step, audit: Audit) -> None:
    m = step.model
    reads = list(m.parents) + [f"events.{s}" for s in m.sources]
    node = parent.add(f"[bold]{m.name}[/bold]  [dim]{m.path}[/dim]" + (f"  ← {', '.join(reads)}" if reads else ""))
    if step.error:
        node.add(f"[yellow]{escape(step.error)}[/yellow]")
        return
    what = f"where {escape(step.where)}" if step.where else "all rows"
    more = f", first {len(step.rows)}" if step.n_rows and step.n_rows > len(step.rows) else ""
    rows = node.add(f"{step.n_rows} input row(s) {what}{more}" if m.depth else f"{step.n_rows} row(s) {what}")
    for r in step.rows if m.depth else []:  # the mart's own row is printed above
        rows.add(_row_line(step.columns, r))
    for src in m.sources:
        node.add(f"[cyan]events.{src}[/cyan]: {len(audit.selection.of_type(src))} event(s) behind this row")


def _manuscript(node: Tree, audit: Audit, call, bytes_dir: Path | None, blobs: BlobStore) -> None:
    versions = [e for e in audit.selection.of_type("paper_ingested")
                if e.paper_id == call.subject_id and e.occurred_at <= call.occurred_at]
    if not versions:
        return
    paper = max(versions, key=lambda e: (e.occurred_at, e.event_id))  # the version the call read
    m = node.add(f"manuscript [bold]{escape(paper.paper_id)}[/bold] {escape(paper.title)!s} "
                 f"(paper_ingested {paper.event_id})")
    for kind, sha in (("package", paper.package_sha256), ("pdf", paper.pdf_sha256)):
        where = ""
        if bytes_dir is not None and blobs.exists(sha):
            # The id comes from an event (maybe a forged one): it names a file only if it is a valid
            # id and the file stays inside bytes_dir.
            try:
                name = f"{check_paper_id(paper.paper_id)}.{'json' if kind == 'package' else 'pdf'}"
                bytes_dir.mkdir(parents=True, exist_ok=True)
                out = path_under(bytes_dir, name)
            except PaperIdError as exc:
                where = f" [red](not written: {escape(str(exc))})[/red]"
            else:
                out.write_bytes(blobs.get(sha))
                where = f" → {out}"
        elif not blobs.exists(sha):
            where = " [red](missing from the blob store)[/red]"
        m.add(f"{kind} sha256 {sha}{where}")


def _call_node(parent: Tree, audit: Audit, call, blobs: BlobStore, full: bool, bytes_dir: Path | None) -> None:
    node = parent.add(f"[bold magenta]llm_call[/bold magenta] {call.event_id}  {call.purpose} of "
                      f"{escape(str(call.subject_id))} sample {call.sample_index}  " + escape(f"[{call.status}]"))
    usage = {k: getattr(call, k) for k in ("input_tokens", "cached_input_tokens", "cache_write_tokens",
                                           "output_tokens", "reasoning_tokens")}
    node.add(f"request_key {call.request_key}\nprompt {call.prompt_template} hash {call.prompt_hash}\n"
             f"{call.provider} / {call.model}  params {escape(call.params_json)}\n"
             f"usage {json.dumps(usage)}\ncost_usd {call.cost_usd} ({call.cost_status}, prices "
             f"{call.price_table_version})  latency {call.latency_ms:.0f} ms  attempt {call.attempt}\n"
             f"Dagster run {call.dagster_run_id or '— (none recorded: a CLI call, or an older event)'}  "
             f"asset {call.asset or '—'}  "
             f"study {call.study or '—'}  at {call.occurred_at.isoformat()}")
    node.add("request (as sent) " + _blob(blobs, call.request_sha256, full))
    node.add("response (as received) " + _blob(blobs, call.response_sha256, full))
    stored = [e for e in audit.selection.of_type("prompt_template_stored") if e.prompt_hash == call.prompt_hash]
    if stored:
        node.add(f"template {stored[0].prompt_template} source " + _blob(blobs, stored[0].source_sha256, full))
    else:
        node.add("template source: [yellow]no prompt_template_stored event for this hash[/yellow]")
    _manuscript(node, audit, call, bytes_dir, blobs)


def render(audit: Audit, blobs: BlobStore, *, max_calls: int = 3, full: bool = False,
           bytes_dir: Path | None = None) -> Tree:
    shown_cols = {k: v for k, v in audit.row.items() if v is not None}
    root = Tree(f"[bold green]{audit.mart}[/bold green] [bold]{escape(audit.key)}[/bold]")
    root.add("row: " + escape(", ".join(f"{k}={v}" for k, v in shown_cols.items())))
    shared = [c for c in ("study_id", "reviewer_config", "paper_id", "sample_index") if audit.row.get(c) is not None]
    models = root.add("[bold]lineage[/bold] (dbt manifest" + (
        f"; input rows filtered by the row's {' / '.join(shared)})" if shared else "; every input row)"))
    for step in audit.steps:  # breadth-first: the mart, what it reads, what that reads …
        _model_node(models, step, audit)
    sel = audit.selection
    counts = {}
    for e in sel.events:
        counts[e.event_type] = counts.get(e.event_type, 0) + 1
    ev = root.add(f"[bold]events behind the row[/bold]: {len(sel.events)} "
                  f"(study {sel.study or 'any'}, {len(sel.papers) if sel.papers is not None else 'all'} paper(s))")
    for t, n in sorted(counts.items()):
        ev.add(f"{t}: {n}" + ("  (not scoped: kept whole)" if t in sel.unscoped else ""))
    by_id = sel.by_id()
    calls = [by_id[i] for i in audit.call_ids if i in by_id]
    node = root.add(f"[bold]model calls[/bold] whose answers the row used: {len(calls)}")
    for call in calls[:max_calls]:
        _call_node(node, audit, call, blobs, full, bytes_dir)
    if len(calls) > max_calls:
        node.add(f"… {len(calls) - max_calls} more (--calls N shows more; every one is in --bundle)")
    return root
