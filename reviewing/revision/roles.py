"""The Writer's and the Selector's requests, and the checks on their answers ("Can We Believe AI Peer Review?").

Each answer is checked before anything is built from it; a failed check names what was wrong, and
the outcome of that paper and condition is blocked with that reason (a validator is a gate).
"""

import dataclasses
import json

from peerlake.llm_calls.types import LlmRequest
from peerlake.prompts import load_template
from peerlake.reviewing.revision.manuscript import Diff, Edit
from peerlake.reviewing.revision.spec import RevisionSpec, RoleModel

WRITER = "revision_writer"
SELECTOR = "revision_selector"


class RoleAnswerError(ValueError):
    """An answer the validators refuse; `reason` is the blocked_reason recorded on the outcome."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def review_as_text(answer: dict | None, raw: str) -> str:
    """The feedback review as the Writer reads it: the scoring review's fields as plain lines (a
    review that did not parse is passed as its raw text: the Writer still gets what was said)."""
    if not isinstance(answer, dict):
        return raw.strip()
    lines = []
    for key, value in answer.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"- {v}" for v in value]
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines)


def _request(template_name: str, m: RoleModel, spec: RevisionSpec, max_tokens: int, schema: dict,
             subject_id: str, purpose: str, **variables) -> LlmRequest:
    t = load_template(template_name)
    return LlmRequest(provider=m.provider, model=m.model, messages=tuple(t.render(**variables)),
                      params={"temperature": spec.temperature, "max_tokens": max_tokens, "seed": 0},
                      response_schema=schema, prompt_template=t.name, prompt_hash=t.hash, purpose=purpose,
                      subject_id=subject_id, base_url=m.base_url, prompt_source=t.source)


def writer_request(paper_id: str, title: str | None, records, feedback: str, m: RoleModel,
                   spec: RevisionSpec) -> LlmRequest:
    """One Writer call: the editable records (ids, pages, text) and the feedback review. The schema
    narrows record_id to the records shown and maxItems to max_edits (enforced by llama.cpp's grammar;
    checked again by `parse_edits` for providers that do not enforce schemas)."""
    schema = json.loads(json.dumps(load_template(WRITER).output_schema))
    edits = schema["properties"]["edits"]
    edits["maxItems"] = spec.max_edits
    edits["items"]["properties"]["record_id"] = {"type": "string", "enum": [r.id for r in records]}
    return _request(WRITER, m, spec, spec.writer_max_output_tokens, schema, paper_id, "revision_writer",
                    title=title, review=feedback, max_edits=spec.max_edits,
                    records=[{"id": r.id, "page": r.page, "kind": r.kind, "text": r.text} for r in records])


def parse_edits(answer, editable_ids: set[str], known_ids: set[str], max_edits: int) -> list[Edit]:
    """The Writer's edits, or RoleAnswerError: not the schema, an unknown record, a protected one, a
    record edited twice, too many edits."""
    if not isinstance(answer, dict) or not isinstance(answer.get("edits"), list):
        raise RoleAnswerError("writer_unparseable", "the answer is not {\"edits\": [...]}")
    edits = []
    for i, e in enumerate(answer["edits"]):
        if not isinstance(e, dict) or not isinstance(e.get("record_id"), str) or not isinstance(e.get("new_text"), str):
            raise RoleAnswerError("writer_unparseable", f"edit {i} is not {{record_id, new_text}}")
        edits.append(Edit(e["record_id"], e["new_text"]))
    ids = [e.record_id for e in edits]
    if unknown := sorted(set(ids) - known_ids):
        raise RoleAnswerError("writer_unknown_record", f"unknown record ids {unknown[:5]}")
    if protected := sorted(set(ids) - editable_ids):
        raise RoleAnswerError("writer_protected_record", f"protected or unseen records {protected[:5]}")
    if len(set(ids)) < len(ids):
        raise RoleAnswerError("writer_duplicate_record", "a record is edited twice")
    if len(edits) > max_edits:
        raise RoleAnswerError("writer_too_many_edits", f"{len(edits)} edits > max_edits {max_edits}")
    return edits


def selector_request(paper_id: str, title: str | None, paper_text: str, diffs: list[Diff], m: RoleModel,
                     spec: RevisionSpec, writer: str) -> LlmRequest:
    """One Selector call: the original (as the Writer saw it) and every diff. Both Selectors of one
    Writer get the same diffs (the same candidate), so only the Selector varies between them."""
    schema = json.loads(json.dumps(load_template(SELECTOR).output_schema))
    decisions = schema["properties"]["decisions"]
    decisions["minItems"] = decisions["maxItems"] = len(diffs)
    decisions["items"]["properties"]["diff_id"] = {"type": "string", "enum": [d.diff_id for d in diffs]}
    req = _request(SELECTOR, m, spec, spec.selector_max_output_tokens, schema, paper_id, "revision_selector",
                   title=title, paper_text=paper_text,
                   diffs=[{"diff_id": d.diff_id, "page": d.page, "original": d.original, "revised": d.revised}
                          for d in diffs])
    # The Writer is in the subject: two Writers' candidates of one paper are different questions even
    # when their diffs happen to coincide.
    return dataclasses.replace(req, subject_id=f"{paper_id}|writer={writer}")


def parse_decisions(answer, diffs: list[Diff], reason_chars: int) -> list[dict]:
    """Exactly one decision per diff, in diff order: [{diff_id, accept, reason, reason_truncated}], or
    RoleAnswerError. A reason longer than `reason_chars` is cut to it and the cut is recorded."""
    if not isinstance(answer, dict) or not isinstance(answer.get("decisions"), list):
        raise RoleAnswerError("selector_unparseable", "the answer is not {\"decisions\": [...]}")
    wanted = [d.diff_id for d in diffs]
    got: dict[str, dict] = {}
    for i, d in enumerate(answer["decisions"]):
        if not isinstance(d, dict) or not isinstance(d.get("diff_id"), str) or not isinstance(d.get("accept"), bool):
            raise RoleAnswerError("selector_unparseable", f"decision {i} is not {{diff_id, accept, reason}}")
        if d["diff_id"] not in wanted:
            raise RoleAnswerError("selector_unknown_diff", f"unknown diff id {d['diff_id']!r}")
        if d["diff_id"] in got:
            raise RoleAnswerError("selector_duplicate_decision", f"{d['diff_id']} decided twice")
        reason = str(d.get("reason") or "")
        got[d["diff_id"]] = {"diff_id": d["diff_id"], "accept": d["accept"], "reason": reason[:reason_chars],
                             "reason_truncated": len(reason) > reason_chars}
    if missing := [w for w in wanted if w not in got]:
        raise RoleAnswerError("selector_missing_decision", f"no decision for {missing[:5]}")
    return [got[w] for w in wanted]
