"""Presentation-only edits: a sound reviewer's score should not move beyond its own noise. Each keeps
every number and citation marker of the visible text (checked) and adds no claim.

  padding               neutral sentences (no number, no claim) at the end of the first paragraph of sections
  hype                  hype adjectives put before nouns the paper already uses ("our method" → "our remarkable method")
  typos                 two neighbouring letters swapped inside a share of the words; never in a word with a digit
  reorder_related_work  the related-work section's paragraphs in another order (its sentences, with one paragraph)
  paraphrase            a model's rewrite of up to N sections (judging.stress makes the calls); here: which sections,
                        and the deterministic check that each keeps its numbers and citation markers
"""

import difflib
import random
import re
from dataclasses import dataclass

from peerlake.ingest.package import ManuscriptPackage, TextRecord
from peerlake.ingest.stress.records import (
    Edited,
    check,
    edited,
    marker_difference,
    markers_kept,
    not_built,
    nothing_else,
    prose,
    sentences,
)

PADDING = (
    "We describe each part in turn below.",
    "The following paragraphs give the details.",
    "We keep the notation introduced earlier in the paper.",
    "This part of the paper is organised as follows.",
    "The remainder of this section gives further detail.",
    "We return to this point later in the paper.",
)
MAX_PADDING = 4  # sentences per paper: about one per section of a short paper
HYPE = ("remarkable", "groundbreaking", "striking", "powerful", "compelling", "superb", "brilliant")
_HYPE_TARGET = re.compile(r"\b(the|our|this|these|its)\s+(method|approach|model|results|framework|module|analysis|"
                          r"technique|algorithm|improvements?|gains|performance|design|contribution)\b", re.I)
HYPE_SHARE = 0.5  # of the places a hype adjective fits, at most MAX_HYPE
MAX_HYPE = 8
TYPO_SHARE = 0.05  # of the letters-only words of four letters or more, at least one
_TYPO_WORD = re.compile(r"(?<![\w.-])[A-Za-z]{4,}(?![\w-])")
_RELATED = re.compile(r"related work|prior work|previous work|background", re.I)


def _body_sections(package: ManuscriptPackage) -> list[tuple[str, list[TextRecord]]]:
    """(section, its visible prose records) for the main body's sections, in reading order."""
    out: dict[str, list[TextRecord]] = {}
    for r in prose(package, ("body",)):
        if r.section:
            out.setdefault(r.section, []).append(r)
    return list(out.items())


def padding(package: ManuscriptPackage, rng: random.Random) -> Edited:
    sections = _body_sections(package)[:MAX_PADDING]
    if not sections:
        return not_built("no_body_text")
    texts, added = {}, []
    for _, recs in sections:
        s = rng.choice(PADDING)
        texts[recs[0].id] = f"{recs[0].text.rstrip()} {s}"
        added.append({"record_id": recs[0].id, "sentence": s})
    new = edited(package, texts)
    kept = all(texts[a["record_id"]] == f"{next(r for r in package.records if r.id == a['record_id']).text.rstrip()} "
                                       f"{a['sentence']}" for a in added)
    return Edited(new, params={"sentences": added},
                  checks={"markers_kept": markers_kept(package, new),
                          "only_sentences_added": check(kept, f"{len(added)} sentences appended"),
                          "nothing_else_changed": nothing_else(package, new, set(texts))})


def hype(package: ManuscriptPackage, rng: random.Random) -> Edited:
    places = [(r, m) for r in prose(package) for m in _HYPE_TARGET.finditer(r.text)]
    if not places:
        return not_built("no_hype_target")
    n = min(MAX_HYPE, max(1, round(len(places) * HYPE_SHARE)))
    chosen = sorted(rng.sample(range(len(places)), n))
    by_record: dict[str, list[tuple[int, str]]] = {}
    added = []
    for k in chosen:
        r, m = places[k]
        word = rng.choice(HYPE)
        by_record.setdefault(r.id, []).append((m.end(1), word))
        added.append({"record_id": r.id, "adjective": word, "before": m.group(2)})
    texts = {}
    for r in prose(package):
        if r.id in by_record:
            t = r.text
            for at, word in sorted(by_record[r.id], reverse=True):  # from the end: earlier offsets stay valid
                t = f"{t[:at]} {word}{t[at:]}"
            texts[r.id] = t
    new = edited(package, texts)
    old = {r.id: r.text for r in package.records}
    only_added = all(_only_inserted(old[i], t, set(HYPE)) for i, t in texts.items())
    return Edited(new, params={"adjectives": added},
                  checks={"markers_kept": markers_kept(package, new),
                          "only_adjectives_added": check(only_added,
                                                                 f"{len(added)} adjectives in {len(texts)} records"),
                          "nothing_else_changed": nothing_else(package, new, set(texts))})


def _only_inserted(old: str, new: str, allowed: set[str]) -> bool:
    """Whether `new` is `old` with only words from `allowed` inserted."""
    a, b = old.split(), new.split()
    for op, _, _, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op != "insert" or not all(w in allowed for w in b[j1:j2]):
            return False
    return True


def typos(package: ManuscriptPackage, rng: random.Random) -> Edited:
    places = [(r, m) for r in prose(package) for m in _TYPO_WORD.finditer(r.text)
              if len(set(m.group(0)[1:-1])) > 1]  # a swap inside the word must change it
    if not places:
        return not_built("no_words")
    n = max(1, round(len(places) * TYPO_SHARE))
    chosen = sorted(rng.sample(range(len(places)), n))
    by_record: dict[str, list[tuple[int, int]]] = {}
    for k in chosen:
        r, m = places[k]
        word = m.group(0)
        # swap two neighbouring inner letters that differ: first and last letters stay (words stay readable)
        spots = [i for i in range(1, len(word) - 2) if word[i] != word[i + 1]]
        if spots:
            by_record.setdefault(r.id, []).append((m.start(), rng.choice(spots)))
    texts = {}
    for r in prose(package):
        if r.id in by_record:
            chars = list(r.text)
            for start, i in by_record[r.id]:
                chars[start + i], chars[start + i + 1] = chars[start + i + 1], chars[start + i]
            texts[r.id] = "".join(chars)
    new = edited(package, texts)
    old = {r.id: r.text for r in package.records}
    bad = [i for i, t in texts.items() if not _letters_swapped_only(old[i], t)]
    return Edited(new, params={"share": TYPO_SHARE, "words_changed": sum(len(v) for v in by_record.values()),
                               "words_eligible": len(places)},
                  checks={"markers_kept": markers_kept(package, new),
                          "letters_only_swapped": check(not bad, f"{len(bad)} records with another change"),
                          "nothing_else_changed": nothing_else(package, new, set(texts))})


def _letters_swapped_only(old: str, new: str) -> bool:
    """Same tokens in the same places, each changed one a letters-only anagram of the original."""
    a, b = old.split(" "), new.split(" ")
    return len(a) == len(b) and all(x == y or (sorted(x) == sorted(y) and not any(c.isdigit() for c in x + y))
                                    for x, y in zip(a, b, strict=True))


def reorder_related_work(package: ManuscriptPackage, rng: random.Random) -> Edited:
    heads = [r for r in package.records if r.kind == "heading" and r.part == "body" and _RELATED.search(r.text)]
    if not heads:
        return not_built("no_related_work_section")
    section = heads[0].section
    recs = [r for r in prose(package, ("body",)) if r.section == section]
    if len(recs) >= 2:
        unit, pieces = "paragraphs", [r.text for r in recs]
    elif len(recs) == 1 and len(sentences(recs[0].text)) >= 2:
        unit, pieces = "sentences", sentences(recs[0].text)
    else:
        return not_built("related_work_too_short", heading=heads[0].text)
    order = list(range(len(pieces)))
    rng.shuffle(order)
    if order == sorted(order):  # a shuffle may give the same order back: then the next rotation
        order = order[1:] + order[:1]
    moved = [pieces[i] for i in order]
    texts = {r.id: moved[k] for k, r in enumerate(recs)} if unit == "paragraphs" else {recs[0].id: " ".join(moved)}
    new = edited(package, texts)
    after = [r.text for r in new.records if r.id in texts]
    got = after if unit == "paragraphs" else sentences(after[0])
    return Edited(new, params={"heading": heads[0].text, "unit": unit, "order": order},
                  checks={"same_pieces": check(sorted(got) == sorted(pieces), f"{len(pieces)} {unit}"),
                          "order_changed": check(got != pieces, f"order {order}"),
                          "markers_kept": markers_kept(package, new),
                          "nothing_else_changed": nothing_else(package, new, set(texts))})


@dataclass(frozen=True)
class Section:
    """A section a paraphrase rewrites: its name and visible paragraphs."""

    name: str
    records: tuple[TextRecord, ...]


def paraphrase_sections(package: ManuscriptPackage, max_sections: int) -> list[Section]:
    """The first `max_sections` sections of the main body with visible paragraphs."""
    return [Section(name, tuple(recs)) for name, recs in _body_sections(package)[:max_sections]]


def paraphrase_difference(section: Section, rewritten: list[str]) -> list[str]:
    """The numbers and citation markers the rewrite of a section lost or added (empty: all kept)."""
    return marker_difference("\n".join(r.text for r in section.records), "\n".join(rewritten))


def apply_paraphrase(package: ManuscriptPackage, sections: list[Section],
                     rewrites: list[list[str]]) -> Edited:
    """The package with each section's paragraphs replaced by its rewrite (paragraph for paragraph), and
    the deterministic checks; the validation call's verdict is judging.stress's."""
    texts = {r.id: " ".join(t.split()) for s, new in zip(sections, rewrites, strict=True)
             for r, t in zip(s.records, new, strict=True)}
    new = edited(package, texts)
    diffs = {s.name: d for s, new_texts in zip(sections, rewrites, strict=True)
             if (d := paraphrase_difference(s, new_texts))}
    detail = "; ".join(f"{name}: {', '.join(d[:10])}" for name, d in diffs.items())
    return Edited(new, params={"sections": [s.name for s in sections], "records": sorted(texts)},
                  checks={"markers_kept": check(not diffs, detail or "numbers and citation markers unchanged"),
                          "nothing_else_changed": nothing_else(package, new, set(texts))})
