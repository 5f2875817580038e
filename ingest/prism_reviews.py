"""The five reviewer systems PRISM benchmarks, as its project page publishes their reviews: which file
holds which review, the text PRISM's judges read, and that text cut into its sections.

Per system (`data/<venue>/<prefix>_<venue>/<paper>…`, PRISM's loaders in
`Aspects_benchmarking/constructiveness/src/utils.py`):
  sea          `<id>.txt`          SEA-E's review, `**Summary:**`-style headings
  tree         `<id>_review.json`  TreeReview: {"full_review": markdown}
  reviewer2    `<id>.txt`          "PAPER: …" header, an optional <think> block, then `# Section` headings
  deepreview   `<id>.json`         generated_review[0].reviews[] (simulated reviewers): reviewer_id 1's `text`
  cyclereview  `<id>.json`         generated_review.reviews[0], else the first `## Reviewer` block of `content`
PRISM judges one review per system and paper (DeepReview's reviewer 1, CycleReviewer's first); the others
stay in the source file, which the lake keeps as a blob.

Sections keep the source's headings, as snake_case keys ("Questions For The Authors" →
`questions_for_the_authors`); DeepReview's pre-parsed `weaknesses` field is not used, since its parser
stopped at the `####` sub-headings inside Weaknesses (it holds "#").
"""

import json
import re

# folder prefix (PRISM's source name in data_demo/) → the system name the lake records
SYSTEMS = {"sea": "sea-e", "tree": "treereview", "reviewer2": "reviewer2", "deepreview": "deepreview",
           "cyclereview": "cyclereviewer"}

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\*\*([^*\n]+?):\*\*\s*(.*)$|^\*\*([^*\n]+?)\*\*:\s*(.*)$")


class SystemReviewError(ValueError):
    """A system's file that holds no review PRISM would judge; the message says what is missing."""


def snake(title: str) -> str:
    """A heading as a field name: "Questions For The Authors" → "questions_for_the_authors"."""
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") or "section"


def split_sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) pairs in order. Markdown headings at the shallowest level used twice or more cut
    the text (deeper ones stay inside their section); without markdown headings, bold `**Name:**` lines.
    Text before the first heading is a `preamble` section when it holds anything."""
    lines = text.splitlines()
    levels = [len(m.group(1)) for line in lines if (m := _MD_HEADING.match(line.strip()))]
    level = next((n for n in sorted(set(levels)) if levels.count(n) >= 2), None)
    out: list[tuple[str, list[str]]] = [("preamble", [])]
    for line in lines:
        stripped = line.strip()
        m = _MD_HEADING.match(stripped) if level else None
        if m and len(m.group(1)) == level:
            out.append((m.group(2).strip(" *:"), []))
            continue
        b = None if level else _BOLD_HEADING.match(stripped)
        if b:
            title, rest = (b.group(1), b.group(2)) if b.group(1) else (b.group(3), b.group(4))
            out.append((title.strip(), [rest] if rest.strip() else []))
            continue
        out[-1][1].append(line)
    sections = []
    for title, body in out:
        # a `---` rule closes a section in Reviewer2's and some SEA files: not the section's text
        joined = re.sub(r"(\n\s*(-{3,}|\*{3,}|={3,})\s*)+$", "", "\n".join(body).rstrip()).strip()
        if joined:
            sections.append((title, joined))
    return sections


def fields_of(sections: list[tuple[str, str]]) -> tuple[dict[str, str], dict[str, str]]:
    """({field: body}, {field: heading as written}); a heading repeated gets `_2`, `_3` …"""
    fields: dict[str, str] = {}
    titles: dict[str, str] = {}
    for title, body in sections:
        key, n = snake(title), 2
        while key in fields:
            key, n = f"{snake(title)}_{n}", n + 1
        fields[key], titles[key] = body, title
    return fields, titles


def leading_score(text: str | None) -> float | None:
    """The score a section states: its leading number ("6: marginally above …"), else the first bold
    number ("I would rate it as **7 - Accept …**"), else None."""
    if not text:
        return None
    t = text.strip().lstrip("*").strip()
    if m := re.match(r"(?:score\s*:\s*)?(-?\d+(?:\.\d+)?)", t, re.I):
        return float(m.group(1))
    if m := re.search(r"\*\*\s*(?:score\s*:\s*)?(-?\d+(?:\.\d+)?)", text, re.I):
        return float(m.group(1))
    return None


def _json(raw: str) -> dict:
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SystemReviewError(f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    if not isinstance(doc, dict):
        raise SystemReviewError(f"top level is a {type(doc).__name__}, not an object")
    return doc


def _reviewer2(raw: str) -> str:
    end = raw.find("</think>")
    if end != -1:
        body = raw[end + len("</think>"):]
    else:
        # "PAPER: <the paper's text>" / "=====" / "REVIEW" / "-----" come before the review
        m = re.search(r"^REVIEW\s*\n-{10,}\s*\n", raw, re.M)
        body = raw[m.end():] if m else raw
    return re.sub(r"\n={40,}\s*$", "", body.strip()).strip()


def _deepreview(doc: dict) -> str:
    generated = doc.get("generated_review")
    if not isinstance(generated, list) or not generated or not isinstance(generated[0], dict):
        raise SystemReviewError("no generated_review[0] (DeepReview's output list)")
    reviews = [r for r in generated[0].get("reviews") or [] if isinstance(r, dict)]
    chosen = next((r for r in reviews if r.get("reviewer_id") == 1), reviews[0] if reviews else None)
    if chosen is None or not isinstance(chosen.get("text"), str):
        raise SystemReviewError("generated_review[0].reviews has no reviewer with a 'text'")
    return chosen["text"]


def _cyclereview(doc: dict) -> str:
    generated = doc.get("generated_review")
    if not isinstance(generated, dict):
        raise SystemReviewError("no generated_review object (CycleReviewer's output)")
    reviews = generated.get("reviews")
    if isinstance(reviews, list) and reviews and isinstance(reviews[0], str) and reviews[0].strip():
        return reviews[0]
    content = generated.get("content")
    if not isinstance(content, str):
        raise SystemReviewError("generated_review has neither reviews[0] nor a 'content' text")
    # The first simulated reviewer; the content can end in hundreds of repeated "(poster)" tokens.
    blocks = re.split(r"(?m)^##\s+Reviewer\b.*$", content)
    first = blocks[1] if len(blocks) >= 2 else blocks[0]
    return re.split(r"(?m)^\*{5,}\s*$|^##\s+(?:Meta Review|Paper Decision)\b", first)[0]


def review_text(prefix: str, raw: str) -> str:
    """The review text PRISM's judges read in one system file (decoded text); SystemReviewError if none."""
    if prefix == "sea":
        text = raw
    elif prefix == "reviewer2":
        text = _reviewer2(raw)
    elif prefix == "tree":
        text = _json(raw).get("full_review")
        if not isinstance(text, str):
            raise SystemReviewError("no 'full_review' text (TreeReview's output)")
    elif prefix == "deepreview":
        text = _deepreview(_json(raw))
    elif prefix == "cyclereview":
        text = _cyclereview(_json(raw))
    else:
        raise SystemReviewError(f"unknown system folder prefix {prefix!r}; known: {', '.join(SYSTEMS)}")
    if not text.strip():
        raise SystemReviewError("the review text is empty")
    return text.strip()


def system_review(prefix: str, raw: str) -> dict:
    """{"text", "fields", "field_titles", "score", "confidence"} of one system file."""
    text = review_text(prefix, raw)
    fields, titles = fields_of(split_sections(text))
    return {"text": text, "fields": fields, "field_titles": titles,
            "score": leading_score(fields.get("rating")), "confidence": leading_score(fields.get("confidence"))}
