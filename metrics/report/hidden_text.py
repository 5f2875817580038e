"""The report's hidden_text section (issue #11). Placeholder until its marts land: renders nothing."""

from metrics.report.data import ReportData

NEEDS: dict[str, list[str]] = {}  # table → columns this section reads (merged into data.all_needs)


def section(data: ReportData, labels: dict) -> str:
    return ""
