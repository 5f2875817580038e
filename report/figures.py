"""Matplotlib figures as base64 PNG data URIs, so the page needs no other file."""

import base64
import io
import math

import matplotlib

matplotlib.use("Agg")  # headless: no display on a server or in CI
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

STYLE = {"figure.dpi": 100, "axes.spines.top": False, "axes.spines.right": False, "font.size": 9}


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def score_histograms(scores: pd.DataFrame, labels: dict[str, str]) -> str:
    """One panel per configuration: share of parsed scores per bin (0.5-wide, so decimals show)."""
    configs = sorted(scores["reviewer_config"].unique())
    cols = min(3, len(configs))
    rows = math.ceil(len(configs) / cols)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.4 * rows), squeeze=False)
        bins = np.arange(0.75, 10.76, 0.5)
        for ax, cfg in zip(axes.flat, configs, strict=False):
            s = scores.loc[(scores["reviewer_config"] == cfg) & scores["is_parsed"].astype(bool), "overall_score"]
            s = s.astype(float).dropna()
            if len(s):
                ax.hist(s, bins=bins, weights=np.full(len(s), 100 / len(s)), color="#4C72B0", edgecolor="white")
            ax.set_title(f"{labels.get(cfg, cfg)}\n{len(s)} scores", fontsize=8)
            ax.set_xticks(range(1, 11))
            ax.set_xlim(0.5, 10.5)
            ax.set_ylabel("% of scores")
        for ax in list(axes.flat)[len(configs):]:
            ax.axis("off")
        fig.tight_layout()
        return _png(fig)


def within_sd_bars(rep: pd.DataFrame, labels: dict[str, str]) -> str:
    rep = rep.dropna(subset=["within_paper_sd"]).sort_values("within_paper_sd")
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7, 0.45 * len(rep) + 0.9))
        y = np.arange(len(rep))
        ax.barh(y, rep["within_paper_sd"], color="#55A868")
        ax.set_yticks(y, [labels.get(c, c[:8]) for c in rep["reviewer_config"]])
        for yi, v in zip(y, rep["within_paper_sd"], strict=True):
            ax.text(v, yi, f" {v:.2f}", va="center")
        ax.set_xlabel("within-paper SD (score points)")
        fig.tight_layout()
        return _png(fig)


def rank_curves(rank: pd.DataFrame, labels: dict[str, str]) -> str:
    """same / tie / reverse (%) against block size k: one panel per configuration."""
    lines = {"pct_same": ("same", "#4C72B0"), "pct_tie": ("tie", "#8C8C8C"), "pct_reverse": ("reverse", "#C44E52")}
    configs = sorted(rank["reviewer_config"].unique())
    cols = min(3, len(configs))
    rows = math.ceil(len(configs) / cols)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.6 * rows), squeeze=False, sharey=True)
        for ax, cfg in zip(axes.flat, configs, strict=False):
            g = rank[rank["reviewer_config"] == cfg].sort_values("k")
            for col, (name, color) in lines.items():
                ax.plot(g["k"], g[col], "-o", color=color, ms=4, label=name)
                last = g.iloc[-1]
                ax.annotate(f"{last[col]:.0f}%", (last["k"], last[col]), xytext=(4, 0), textcoords="offset points",
                            va="center", fontsize=7, color=color)
            ax.set_title(labels.get(cfg, cfg[:8]), fontsize=8)
            ax.set_xlabel("reviews per block, k")
            ax.set_ylim(0, 100)
            ax.set_xticks(sorted(g["k"].unique()))
            ax.set_xlim(g["k"].min() - 0.3, g["k"].max() + 0.6)
        axes.flat[0].set_ylabel("% of paper pairs")
        axes.flat[0].legend(fontsize=7, frameon=False)
        for ax in list(axes.flat)[len(configs):]:
            ax.axis("off")
        fig.tight_layout()
        return _png(fig)


def budget_curves(budgets: pd.DataFrame, labels: dict[str, str], eps: float = 0.5, beta: float = 0.05) -> str:
    """Chebyshev lower bound on the success rate, 1 − V/(kε²) clipped at 0: dashed from V̂, solid from U.
    k runs (log scale) far enough that the bound from the largest U reaches 1 − β."""
    rows = budgets.drop_duplicates("reviewer_config").sort_values("reviewer_config")
    k_max = int(min(10_000, max(20, np.ceil(rows["variance_upper"].max() / (beta * eps ** 2) * 1.5))))
    k = np.unique(np.round(np.geomspace(1, k_max, 400)).astype(int))
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7.5, 3.4))
        for i, r in enumerate(rows.itertuples(index=False)):
            color = f"C{i % 10}"
            name = labels.get(r.reviewer_config, r.reviewer_config[:8])
            ax.plot(k, np.clip(1 - r.variance_hat / (k * eps ** 2), 0, None), "--", color=color,
                    label=f"from V̂ = {r.variance_hat:.2f} · {name}")
            ax.plot(k, np.clip(1 - r.variance_upper / (k * eps ** 2), 0, None), "-", color=color,
                    label=f"from U = {r.variance_upper:.2f} · {name}")
        ax.axhline(1 - beta, color="#999", lw=0.8)
        ax.text(1, 1 - beta + 0.01, f"{1 - beta:.2f}", va="bottom", fontsize=7, color="#666")
        ax.set_xscale("log")
        ax.set_xlabel(f"new reviews per paper, k (log scale; ε = {eps})")
        ax.set_ylabel("lower bound on success rate")
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
        fig.tight_layout()
        return _png(fig)


def risk_bars(dist: pd.DataFrame) -> str:
    """Held-out risk E‖q − p‖² with 95% paper-bootstrap intervals, per method and configuration pair."""
    order = ["quick", "standard", "direct_1", "direct_2", "direct_3", "direct_5"]
    pairs = sorted(dist.groupby(["probe_config", "review_config"]).groups)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7, 3.2))
        width = 0.8 / max(1, len(pairs))
        for i, pair in enumerate(pairs):
            g = dist[(dist["probe_config"] == pair[0]) & (dist["review_config"] == pair[1])]
            g = g.set_index("method").reindex([m for m in order if m in set(g["method"])])
            x = np.arange(len(g)) + i * width
            err = np.vstack([g["risk"] - g["risk_ci_low"], g["risk_ci_high"] - g["risk"]]).clip(min=0)
            ax.bar(x, g["risk"], width=width, yerr=err, capsize=3, color=f"C{i}",
                   label=f"probe {pair[0][:8]} vs reviews {pair[1][:8]}")
            ax.set_xticks(np.arange(len(g)) + (len(pairs) - 1) * width / 2, g.index)
        ax.axhline(0, color="#333", lw=0.6)
        ax.set_ylabel("held-out risk  E‖q − p‖²")
        ax.legend(fontsize=7, frameon=False)
        fig.tight_layout()
        return _png(fig)


def quality_profile(rows: pd.DataFrame, panels: list[tuple[str, str]], labels: dict[str, str]) -> str:
    """One panel per quality metric (all on [0, 1]); per system a row: its mean (colour) and the paired
    humans' mean (grey) with their 95% bootstrap intervals. Hollow markers: fewer than 10 pairs, no
    interval. `rows`: quality_comparison rows; `panels`: (metric, title)."""
    systems = sorted(rows["system"].unique())
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(panels), figsize=(2.3 * len(panels), 0.5 * len(systems) + 1.3),
                                 sharey=True, squeeze=False)
        for ax, (metric, title) in zip(axes.flat, panels, strict=True):
            m = rows[rows["metric"] == metric].set_index("system")
            for y, system in enumerate(systems):
                if system not in m.index:
                    continue
                r = m.loc[system]
                for side, dy, color in (("system", -0.14, f"C{y % 10}"), ("human", 0.14, "#8C8C8C")):
                    est, lo, hi = r[f"mean_{side}"], r[f"mean_{side}_ci_low"], r[f"mean_{side}_ci_high"]
                    if pd.isna(est):
                        continue
                    tested = pd.notna(lo)
                    err = [[est - lo], [hi - est]] if tested else None
                    ax.errorbar(est, y + dy, xerr=err, fmt="o", ms=5, capsize=2, color=color,
                                mfc=color if tested else "white")
            ax.set_title(title, fontsize=8)
            ax.set_xlim(-0.05, 1.05)
            ax.grid(axis="x", color="#eee")
        axes.flat[0].set_yticks(range(len(systems)), [labels.get(s, s[:12]) for s in systems])
        axes.flat[0].set_ylim(len(systems) - 0.5, -0.5)
        fig.text(0.01, -0.02, "colour: system · grey: its paired humans · hollow: < 10 pairs, no interval",
                 fontsize=7, color="#555")
        fig.tight_layout()
        return _png(fig)
