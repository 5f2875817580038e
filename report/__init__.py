"""`peerlake report`: one self-contained HTML page (tables + inline PNG plots) over the marts."""

from peerlake.report.build import render_report, write_report

__all__ = ["render_report", "write_report"]
