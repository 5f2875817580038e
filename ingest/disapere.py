"""DISAPERE (Kennard et al., NAACL 2022): ICLR reviews labelled sentence by sentence (review action,
aspect, polarity) → the depth judge's argument units and aspects, the novelty judge's stances.

`final_dataset/<split>/<review_id>.json` holds `{metadata: {review_id, forum_id, annotator, …},
review_sentences: [{sentence_index, text, suffix, review_action, fine_review_action, aspect, polarity}]}`;
`extra_annotations/<split>/<review_id>.anno<N>.json` the same review labelled by another annotator.
The review is its sentences joined (text + suffix), imported once as an external review of system
"disapere" under paper id = the OpenReview forum id; each sentence of each file is one label row
(item "<review_id>#<sentence_index>", the file's annotator; the final file's row is the reference).
An extra file whose sentences are not the final file's is set aside whole: its labels would not be of
the same items. Mapping: prompts/label_mappings/disapere.toml.
"""

import json
import re
from pathlib import Path

from peerlake.ingest.batch import TOO_DEEP
from peerlake.ingest.label_mapping import LabelMapping, load
from peerlake.ingest.labelled_reviews import Imported, LabelImport, inside
from peerlake.warehouse.ids import PaperIdError, check_paper_id
from peerlake.warehouse.log import EventLog

DATASET = "disapere"
SPLITS = ("train", "dev", "test")
LABEL_FIELDS = ("review_action", "fine_review_action", "aspect", "polarity")
MAX_FILE_BYTES = 5_000_000  # the largest real file is ~100 kB (a review with its rebuttal)
_EXTRA = re.compile(r"^(?P<review>[^.]+)\.(?P<annotator>anno\d+)\.json$")


class ReviewFileError(ValueError):
    pass


def parse_review(doc) -> dict:
    """A review file's JSON → {review_id, forum_id, annotator, sentences: [(text, suffix, labels)], metadata,
    rating};
    ReviewFileError says what is wrong. A sentence whose labels are not text has labels None."""
    if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict):
        raise ReviewFileError("not a DISAPERE review: no 'metadata' object")
    meta, sentences = doc["metadata"], doc.get("review_sentences")
    for name in ("review_id", "forum_id", "annotator"):
        if not isinstance(meta.get(name), str) or not meta[name].strip():
            raise ReviewFileError(f"metadata.{name} must be a non-empty string, got {meta.get(name)!r}")
    try:
        check_paper_id(meta["forum_id"], "metadata.forum_id")
        check_paper_id(meta["review_id"], "metadata.review_id")
    except PaperIdError as exc:
        raise ReviewFileError(str(exc)) from None
    if not isinstance(sentences, list) or not sentences:
        raise ReviewFileError("'review_sentences' must be a non-empty list")
    out = []
    for k, s in enumerate(sentences):
        if not isinstance(s, dict) or not isinstance(s.get("text"), str) or not isinstance(s.get("suffix", ""), str):
            raise ReviewFileError(f"sentence {k} has no text: the review cannot be put together")
        if s.get("sentence_index", k) != k:
            raise ReviewFileError(f"sentence {k} says sentence_index {s.get('sentence_index')!r}: out of order")
        labels = {f: s.get(f) for f in LABEL_FIELDS}
        out.append((s["text"], s.get("suffix", ""), labels if all(isinstance(v, str) for v in labels.values())
                    else None))
    rating = meta.get("rating")
    return {"review_id": meta["review_id"], "forum_id": meta["forum_id"], "annotator": meta["annotator"],
            "sentences": out, "metadata": meta,
            "rating": float(rating) if isinstance(rating, int | float) and not isinstance(rating, bool) else None}


def _files(imp: LabelImport, root: Path, part: str) -> list[tuple[str, Path]]:
    """(split, file) of one part's split folders; a link out of the folder or an oversized file rejected."""
    out = []
    for split in SPLITS:
        folder = root / part / split
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.json")):
            if not inside(root, path):
                imp.batch.reject(path, f"points outside {root} (a link); refused")
            elif not path.is_file():
                imp.batch.reject(path, "is not a regular file")
            elif path.stat().st_size > MAX_FILE_BYTES:
                imp.batch.reject(path, f"is {path.stat().st_size} bytes, more than a DISAPERE review file "
                                       f"holds ({MAX_FILE_BYTES}); refused")
            else:
                out.append((split, path))
    return out


def _read(imp: LabelImport, path: Path) -> dict | None:
    text = imp.batch.read_utf8(path)
    if text is None:
        return None
    try:
        return parse_review(json.loads(text))
    except json.JSONDecodeError as exc:
        imp.batch.reject(path, f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})")
    except RecursionError:
        imp.batch.reject(path, TOO_DEEP)
    except ReviewFileError as exc:
        imp.batch.reject(path, str(exc))
    return None


def _labels(imp: LabelImport, path: Path, split: str, review: dict, review_key: str, text: str,
            is_reference: bool) -> None:
    offset = 0
    for k, (sentence, suffix, labels) in enumerate(review["sentences"]):
        where = f"{path} sentence {k}"
        if labels is None:
            imp.batch.reject(path, f"labels {', '.join(LABEL_FIELDS)} must all be text", where=where,
                             item=f"{review['review_id']}#{k}", paper_id=review["forum_id"])
        else:
            imp.label(path, where=where, item_key=f"{review['review_id']}#{k}", review_key=review_key,
                      review_text=text, item_text=sentence, start=offset, labels=labels,
                      annotator=review["annotator"], is_reference=is_reference, paper_id=review["forum_id"],
                      split=split)
        offset += len(sentence) + len(suffix)


def import_disapere(log: EventLog, root: Path, mapping: LabelMapping | None = None) -> Imported:
    """Import a DISAPERE folder (holding final_dataset/, and extra_annotations/ when there). ValueError
    when it is not one; a bad file or sentence is set aside by name and the rest go on."""
    root = Path(root)
    if not (root / "final_dataset").is_dir():
        raise ValueError(f"{root} is not a DISAPERE folder: it has no final_dataset/ (give the folder holding "
                         "final_dataset/ and extra_annotations/)")
    imp = LabelImport(log, mapping or load(DATASET))
    texts: dict[str, str] = {}
    for part, is_reference in (("final_dataset", True), ("extra_annotations", False)):
        for split, path in _files(imp, root, part):
            with imp.batch.guard(path):
                review = _read(imp, path)
                if review is None:
                    continue
                rid = review["review_id"]
                text = "".join(s + suffix for s, suffix, _ in review["sentences"])
                if is_reference:
                    if path.stem != rid:
                        imp.batch.reject(path, f"holds review {rid!r}, not the {path.stem!r} its name says")
                        continue
                    texts.setdefault(rid, text)
                else:
                    m = _EXTRA.match(path.name)
                    if not m or m["review"] != rid or m["annotator"] != review["annotator"]:
                        imp.batch.reject(path, f"holds review {rid!r} by {review['annotator']!r}: its name should "
                                               f"be {rid}.{review['annotator']}.json")
                        continue
                    if texts.get(rid) != text:
                        imp.batch.reject(path, f"its sentences are not those of final_dataset's review {rid}"
                                         if rid in texts else f"final_dataset/ has no review {rid}")
                        continue
                # the first file read of a review (its final_dataset/ file) is the one kept: its metadata
                # (title, reviewer, ICLR rating, permalink) in the body blob, the rating as the review's score
                review_key = imp.review(path, review["forum_id"], rid, text, {"metadata": review["metadata"]}, 0,
                                        score=review["rating"])
                _labels(imp, path, split, review, review_key, text, is_reference)
    return imp.commit()
