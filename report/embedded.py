"""The page's warning when a study ran on an embedded local model: such a model (1.5B or 0.5B
parameters, warehouse.settings.LOCAL_MODELS) is there to test the machinery without a key, and its
scores and judgments say nothing about AI peer review; a reader of the page must not take them for
findings."""

import html
import re

from peerlake.report.data import ReportData
from peerlake.warehouse.settings import LOCAL_MODELS


def embedded_models(data: ReportData) -> list[str]:
    """The embedded models any reviewer, system or judge on the page ran on (a `model` or `*_model`
    column of the loaded marts, already cut to the page's study)."""
    used = set()
    for df in data.tables.values():
        for col in (c for c in df.columns if c == "model" or c.endswith("_model")):
            used |= set(df[col].dropna().astype(str)) & set(LOCAL_MODELS)
    return sorted(used)


def _size(name: str) -> str:
    m = re.search(r"(\d+(?:\.\d+)?)b\b", name)
    return f"a {m.group(1)}B-parameter model" if m else "a small model"


def embedded_note(data: ReportData) -> str:
    models = embedded_models(data)
    if not models:
        return ""
    which = "; ".join(f"<code>{html.escape(m)}</code> ({_size(m)})" for m in models)
    return ("<p class='note'><b>Test numbers, not findings.</b> This study's reviewers or judges ran on the "
            f"embedded local model {which}, which is there to test the machinery without an API key: what this "
            "page shows says nothing about AI peer review. For numbers that mean something, run the study on a "
            "hosted model (<code>peerlake run STUDY --model openai/gpt-4.1</code>, or "
            "<code>PEERLAKE_PROVIDER</code> / <code>PEERLAKE_MODEL</code>).</p>")
