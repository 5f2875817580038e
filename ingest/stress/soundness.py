"""Soundness-critical edits: after each, a careful reviewer's score should fall, and the review should
name the problem (the sentence each returns as `problem`, read by the judge judging.stress_mention).

  remove_main_table     the table with the most numbers, its caption and the sentences that cite it
  remove_ablation       the section whose heading says ablation (and its numbered subsections)
  overclaim_abstract    one sentence appended to the abstract claiming more than any result shows
  significance_overlap  a claim of statistical significance for two reported values whose ± intervals overlap
"""

import random
import re

from peerlake.ingest.package import ManuscriptPackage, TextRecord
from peerlake.ingest.stress.records import (
    Edited,
    check,
    edited,
    hidden_ids,
    not_built,
    nothing_else,
    numbers,
    prose,
    sentences,
)

TABLE_KINDS = ("table", "preformatted")
_CAPTION = re.compile(r"^\s*(?:Table|Tab\.)\s*([0-9]+|[IVXLC]+)\b", re.I)
_ABLATION = re.compile(r"ablat", re.I)
_SECTION_NUMBER = re.compile(r"^\s*([0-9]+|[A-Z])(?:\.|\s)")
# (sentence appended, the claim as the problem sentence names it). Each claims a universality or
# certainty no finite set of experiments shows, so it over-claims whatever the paper's results are.
OVERCLAIMS = (
    ("These results prove that our method is better than every existing approach on every task and at every "
     "scale.", "the method is better than every existing approach on every task and at every scale"),
    ("The gains are statistically significant on all benchmarks and hold for any model, dataset and domain.",
     "the gains are significant on all benchmarks and hold for any model, dataset and domain"),
    ("Our approach solves the problem completely, with no failure case in any setting.",
     "the approach solves the problem completely, with no failure case in any setting"),
    ("We show that these improvements carry over unchanged to every language, modality and data regime.",
     "the improvements carry over unchanged to every language, modality and data regime"),
)
_PLUS_MINUS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:±|\+/-|\+-)\s*(\d+(?:\.\d+)?)")


def _body_tables(package: ManuscriptPackage) -> list[TextRecord]:
    gone = hidden_ids(package)
    return [r for r in package.records if r.kind in TABLE_KINDS and r.part == "body" and r.id not in gone
            and numbers(r.text)]


def _caption_of(package: ManuscriptPackage, table: TextRecord) -> TextRecord | None:
    """The caption beside the table: the nearest caption record after it, else before it, with no other
    table or heading between (page markers aside)."""
    recs = [r for r in package.records if r.kind not in ("page_marker", "image")]
    at = next(i for i, r in enumerate(recs) if r.id == table.id)
    for step in (1, -1):
        i = at + step
        while 0 <= i < len(recs) and recs[i].kind not in (*TABLE_KINDS, "heading"):
            if recs[i].kind == "caption" and _CAPTION.match(recs[i].text):
                return recs[i]
            if recs[i].kind == "paragraph" and step == 1:
                break  # the caption sits right below its table, or above it
            i += step
    return None


def remove_main_table(package: ManuscriptPackage, rng: random.Random) -> Edited:
    tables = _body_tables(package)
    if not tables:
        return not_built("no_table")
    main = max(tables, key=lambda r: len(numbers(r.text)))  # the first of equals
    caption = _caption_of(package, main)
    label = _CAPTION.match(caption.text).group(1) if caption else None
    drop = {main.id} | ({caption.id} if caption else set())
    texts: dict[str, str] = {}
    n_cut = 0
    if label is not None:
        cites = re.compile(rf"\b(?:Table|Tab\.)\s*{re.escape(label)}\b", re.I)
        for r in prose(package, ("front", "body", "appendix")):
            parts = sentences(r.text)
            kept = [s for s in parts if not cites.search(s)]
            if len(kept) == len(parts):
                continue
            n_cut += len(parts) - len(kept)
            if kept:
                texts[r.id] = " ".join(kept)
            else:
                drop.add(r.id)
    new = edited(package, texts, drop)
    name = f"Table {label}" if label else "the main table"
    left = [r.id for r in new.records if r.text == main.text]
    checks = {"table_gone": check(not left, f"{main.id} ({len(numbers(main.text))} numbers) removed"),
              "caption_gone": check(caption is None or all(r.text != caption.text for r in new.records),
                                    f"caption {caption.id}" if caption else "no caption found"),
              "nothing_else_changed": nothing_else(package, new, drop | set(texts))}
    if label is not None:
        still = [r.id for r in new.records if r.id not in hidden_ids(new) and r.kind != "reference"
                 and re.search(rf"\b(?:Table|Tab\.)\s*{re.escape(label)}\b", r.text, re.I)]
        checks["citations_gone"] = check(not still, f"{n_cut} citing sentences removed"
                                         + (f"; still cited in {', '.join(still)}" if still else ""))
    return Edited(new, params={"record_id": main.id, "label": name, "n_numbers": len(numbers(main.text)),
                               "caption_record_id": caption.id if caption else None, "sentences_removed": n_cut,
                               "records_dropped": sorted(drop)},
                  problem=f"{name}, the paper's main table of results, was removed with its caption and the "
                          "sentences citing it, so the claims built on it rest on results the paper no longer reports.",
                  checks=checks)


def _subsections(package: ManuscriptPackage, heading: TextRecord) -> set[str]:
    """The section the heading opens and its numbered subsections (5 → 5.1, 5.2 …)."""
    names = {heading.section or heading.text}
    m = _SECTION_NUMBER.match(heading.text)
    if m:
        prefix = f"{m.group(1)}."
        names |= {r.section for r in package.records if r.section and r.section.strip().startswith(prefix)}
    return names


def remove_ablation(package: ManuscriptPackage, rng: random.Random) -> Edited:
    heads = [r for r in package.records if r.kind == "heading" and r.part == "body" and _ABLATION.search(r.text)]
    if not heads:
        return not_built("no_ablation_section")
    head = heads[0]
    names = _subsections(package, head)
    drop = {r.id for r in package.records if r.part == "body" and r.section in names and r.kind != "page_marker"}
    new = edited(package, drop=drop)
    left = [r.id for r in new.records if r.section in names and r.kind != "page_marker"]
    return Edited(new, params={"heading": head.text, "heading_record_id": head.id, "records_dropped": sorted(drop)},
                  problem=f"The ablation section ('{head.text}') was removed, so the paper no longer shows which of "
                          "its components cause the gains it reports.",
                  checks={"section_gone": check(not left, f"{len(drop)} records removed"),
                          "nothing_else_changed": nothing_else(package, new, drop)})


def abstract_records(package: ManuscriptPackage) -> list[TextRecord]:
    return [r for r in prose(package, ("front", "body")) if (r.section or "").strip().lower().startswith("abstract")]


def overclaim_abstract(package: ManuscriptPackage, rng: random.Random) -> Edited:
    abstract = abstract_records(package)
    if not abstract:
        return not_built("no_abstract")
    target = abstract[-1]
    template = rng.randrange(len(OVERCLAIMS))
    sentence, claim = OVERCLAIMS[template]
    new = edited(package, {target.id: f"{target.text.rstrip()} {sentence}"})
    holders = [r.id for r in new.records if sentence in r.text]
    return Edited(new, params={"template": template, "sentence": sentence, "record_id": target.id},
                  problem=f"The abstract claims that {claim}, which the paper's results do not show.",
                  checks={"in_abstract_only": check(holders == [target.id], f"the sentence is in {holders}"),
                          "abstract_kept": check(new.records[package.records.index(target)].text.startswith(
                              target.text.rstrip()), "the original abstract text comes first, unchanged"),
                          "nothing_else_changed": nothing_else(package, new, {target.id})})


def _columns(text: str) -> tuple[list[str], list[list[str]]]:
    """A preformatted table's header cells and rows, split on runs of 2+ spaces (or |)."""
    rows = [[c.strip() for c in re.split(r"\s{2,}|\s*\|\s*", line.strip()) if c.strip()]
            for line in text.splitlines() if line.strip()]
    return (rows[0], rows[1:]) if rows else ([], [])


def _overlapping_pairs(package: ManuscriptPackage) -> list[dict]:
    """Every pair of `mean ± spread` values on one table row whose intervals overlap and whose means
    differ, with the row's and columns' names when the table's header lines up."""
    out = []
    for table in _body_tables(package):
        header, rows = _columns(table.text)
        for cells in rows:
            values = [(i, _PLUS_MINUS.search(c)) for i, c in enumerate(cells)]
            values = [(i, m) for i, m in values if m]
            named = len(cells) == len(header)
            for a in range(len(values)):
                for b in range(a + 1, len(values)):
                    (i, x), (j, y) = values[a], values[b]
                    mx, sx, my, sy = (float(v) for v in (*x.groups(), *y.groups()))
                    if mx == my or abs(mx - my) > sx + sy:
                        continue
                    hi, lo = ((i, x), (j, y)) if mx > my else ((j, y), (i, x))
                    out.append({"table_record_id": table.id, "row": cells[0] if named and not
                                _PLUS_MINUS.search(cells[0]) else None,
                                "higher": header[hi[0]] if named else None, "higher_value": hi[1].group(0),
                                "lower": header[lo[0]] if named else None, "lower_value": lo[1].group(0)})
    return out


def significance_overlap(package: ManuscriptPackage, rng: random.Random) -> Edited:
    pairs = _overlapping_pairs(package)
    if not pairs:
        return not_built("no_overlapping_intervals")
    pair = pairs[rng.randrange(len(pairs))]
    table = next(r for r in package.records if r.id == pair["table_record_id"])
    if pair["higher"] and pair["lower"]:
        where = f" in the {pair['row']} setting" if pair["row"] else ""
        claim = (f"The improvement of {pair['higher']} ({pair['higher_value']}) over {pair['lower']} "
                 f"({pair['lower_value']}){where} is statistically significant (p < 0.01).")
    else:
        claim = (f"The difference between {pair['higher_value']} and {pair['lower_value']} is statistically "
                 "significant (p < 0.01).")
    # the claim goes at the end of the first paragraph after the table, in its section (else before it)
    recs = prose(package, ("body",))
    after = [r for r in recs if package.records.index(r) > package.records.index(table)
             and r.section == table.section]
    before = [r for r in recs if package.records.index(r) < package.records.index(table)
              and r.section == table.section]
    target = after[0] if after else (before[-1] if before else None)
    if target is None:
        return not_built("no_paragraph_beside_table", **pair)
    new = edited(package, {target.id: f"{target.text.rstrip()} {claim}"})
    holders = [r.id for r in new.records if claim in r.text]
    (mh, sh), (ml, sl) = (tuple(float(v) for v in _PLUS_MINUS.search(pair[k]).groups())
                          for k in ("higher_value", "lower_value"))
    return Edited(new, params={**pair, "sentence": claim, "record_id": target.id},
                  problem=f"The paper claims a statistically significant difference between {pair['higher_value']} "
                          f"and {pair['lower_value']}, whose reported intervals overlap.",
                  checks={"intervals_overlap": check(abs(mh - ml) <= sh + sl,
                                                     f"[{mh - sh:g}, {mh + sh:g}] and [{ml - sl:g}, {ml + sl:g}]"),
                          "claim_once": check(holders == [target.id], f"the claim is in {holders}"),
                          "nothing_else_changed": nothing_else(package, new, {target.id})})
