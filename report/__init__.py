"""`peerlake report`: one self-contained HTML page (tables + inline PNG plots) over the marts.

The page's builder (pandas, matplotlib) loads on first use, so importing a small part of the package
(report.summary for the terminal's tables) costs nothing of it."""

__all__ = ["render_report", "write_report"]


def __getattr__(name: str):
    if name in __all__:
        from peerlake.report import build

        return getattr(build, name)
    raise AttributeError(f"module 'peerlake.report' has no attribute {name!r}")
