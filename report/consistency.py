"""The report's semantic-consistency section: how alike two AI reviews' strengths
and concerns are, within one reviewer configuration and across two. A table and a bar chart of the
within and cross means with their bootstrap intervals per polarity; the embedding model is named, with
its deviation from the source paper's all-mpnet-base-v2."""

import html

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from peerlake.report import figures, notes
from peerlake.report.audit_links import audit_block
from peerlake.report.data import ReportData

HEADING = "<h2>Semantic consistency: do two reviews make the same points?</h2>"
MART = "review_consistency"
NEEDS: dict[str, list[str]] = {
    MART: ["study_id", "review_consistency_id", "polarity", "kind", "config_a", "config_b", "label_a", "label_b",
           "n_papers", "n_pairs", "s_mean", "s_ci_low", "s_ci_high", "n_resamples", "embedding_model",
           "embedding_model_hash", "n_embeddings_computed", "n_embeddings_cached"],
}
POLARITIES = ("strength", "concern")
PLURAL = {"strength": "strengths", "concern": "concerns"}


def _pair_name(r) -> str:
    if r["config_a"] == "*":
        return "all configurations"
    a = f"{r['label_a']} · {str(r['config_a'])[:8]}"
    return a if r["kind"] == "within" else f"{a} vs {r['label_b']} · {str(r['config_b'])[:8]}"


def bars(df: pd.DataFrame) -> str:
    """Per polarity, the overall within and cross means with their 95% intervals as whiskers."""
    overall = df[df["config_a"] == "*"]
    with plt.rc_context(figures.STYLE):
        fig, ax = plt.subplots(figsize=(6, 3))
        x = np.arange(len(POLARITIES))
        for offset, kind, colour in ((-0.18, "within", "#4c72b0"), (0.18, "cross", "#dd8452")):
            means, lo, hi = [], [], []
            for pol in POLARITIES:
                hit = overall[(overall["polarity"] == pol) & (overall["kind"] == kind)]
                m = float(hit["s_mean"].iloc[0]) if len(hit) else np.nan
                means.append(m)
                lo.append(m - float(hit["s_ci_low"].iloc[0]) if len(hit) else 0.0)
                hi.append(float(hit["s_ci_high"].iloc[0]) - m if len(hit) else 0.0)
            ax.bar(x + offset, means, width=0.34, color=colour, label=f"{kind}-configuration pairs",
                   yerr=[lo, hi], capsize=4)
        ax.set_xticks(x, [PLURAL[p] for p in POLARITIES])
        ax.set_ylabel("mean S (matched cosine)")
        ax.axhline(0, color="#999", linewidth=0.8)
        ax.legend(fontsize=8, frameon=False)
        fig.tight_layout()
        return figures._png(fig)


def _table(df: pd.DataFrame) -> str:
    head = ("<tr><th>polarity</th><th>kind</th><th>configurations</th><th>papers</th><th>pairs</th>"
            "<th>mean S [95% CI]</th></tr>")
    body = []
    for r in df.sort_values(["polarity", "kind", "config_a", "config_b"], ascending=[False, False, True, True]) \
            .to_dict("records"):
        body.append(f"<tr><td>{PLURAL.get(r['polarity'], r['polarity'])}</td><td>{r['kind']}</td>"
                    f"<td>{html.escape(_pair_name(r))}</td><td>{r['n_papers']}</td><td>{r['n_pairs']}</td>"
                    f"<td>{r['s_mean']:.3f} [{r['s_ci_low']:.3f}, {r['s_ci_high']:.3f}]</td></tr>")
    return "<table>" + head + "".join(body) + "</table>"


def section(data: ReportData, labels: dict) -> str:
    """The bars and the table; a note when the mart is missing or has no pairs."""
    df = data.get(MART)
    if df is None:
        return HEADING + notes.missing("Consistency", MART, data.missing.get(MART, "is not there"))
    if df.empty:
        return HEADING + ("<p>Consistency <span class='nm'>not measured: no paper has two AI reviews with strength "
                          "or concern lists in this study</span>.</p>")
    first = df.iloc[0]
    model_hash = html.escape(str(first["embedding_model_hash"])[:12])
    model = (f"{html.escape(str(first['embedding_model']))} (hash {model_hash}…; "
             f"{int(first['n_embeddings_computed'])} item texts embedded in this build, "
             f"{int(first['n_embeddings_cached'])} read from the vector store)")
    return (HEADING + "<p class='how'>Each strength and each concern is embedded; for two reviews of one paper, "
            "S = the best one-to-one matching of their items by cosine (Hungarian), summed and divided by the "
            "longer list. Within: pairs of reviews by one configuration; cross: pairs by two. Averaged per paper,"
            f" then over papers, with a {int(first['n_resamples'])}-resample paper bootstrap. No threshold: S is a"
            f" mean cosine, not an agreement rate.</p><p class='note'>Embedding model: {model}. This deviates "
            "from the source paper's all-mpnet-base-v2 (768-d): the smaller packaged all-MiniLM-L6-v2 (384-d) runs in "
            "numpy without torch; values are not comparable with the paper's.</p>"
            + f'<img src="{bars(df)}" alt="within vs cross consistency">' + _table(df)
            + audit_block(MART, df, "the consistency values"))
