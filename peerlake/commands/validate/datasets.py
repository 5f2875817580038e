"""The four human-labelled datasets `validate-judges` knows: what each anchors, what its folder holds, where a
checkout keeps a copy, and the error that stops one dataset (never the others)."""

from pathlib import Path

STUDY = "substanreview-validation"  # the SubstanReview study's name (study_name("substanreview"))
# What each dataset anchors (docs/judges/human-labels.md); the label datasets' judges are also named by
# their mappings (prompts/label_mappings/<dataset>.toml), and a test holds the two equal.
ANCHORS = {"substanreview": ("depth",), "disapere": ("depth", "novelty"), "revutil": ("constructiveness",),
           "reviewcritique": ("flaws",)}
DATASETS = tuple(ANCHORS)
HOLDS = {"substanreview": "annotation_final/", "disapere": "final_dataset/ and extra_annotations/",
         "revutil": "all_human_annotations_processed.csv", "reviewcritique": "ReviewCritique_LLM.jsonl"}
# Beside a checkout, the shared data folder holds a copy of each (../shared/data/<dataset>).
_BESIDE_CHECKOUT = ("shared", "data")


class DatasetError(Exception):
    """One dataset cannot be validated; the message says what, where, why and what to do."""


def study_name(dataset: str) -> str:
    return f"{dataset}-validation"


def default_data_path(dataset: str) -> Path | None:
    """../shared/data/<dataset> beside a checkout; None when there is none."""
    from peerlake.warehouse import settings

    path = settings.REPO_ROOT.parent.joinpath(*_BESIDE_CHECKOUT, dataset)
    return path if settings.IN_CHECKOUT and path.is_dir() else None
