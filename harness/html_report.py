"""report.html: the report document as one self-contained page for people.

The page is built by concept in harness/html/ (page, overview, run details and timeline,
fuzz aggregates, fidelity); this module keeps the names the rest of the harness imports.
"""

from __future__ import annotations

from .html.common import VERDICTS
from .html.page import html_page, write_html
from .html.runs import BINLOG_EXCERPT_LINES, DETAILED_CONSISTENT_RUNS, DETAILED_RUNS, binlog_excerpt

__all__ = ["BINLOG_EXCERPT_LINES", "DETAILED_CONSISTENT_RUNS", "DETAILED_RUNS", "VERDICTS", "binlog_excerpt", "html_page", "write_html"]
