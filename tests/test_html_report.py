"""report.html: the counts, the heatmap, findings and run details, escaped, self-contained and
bounded in size."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from pathlib import Path

from harness.html_report import BINLOG_EXCERPT_LINES, DETAILED_CONSISTENT_RUNS, DETAILED_RUNS, binlog_excerpt, html_page, write_html
from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import BinlogWriter
from server_sim.flavor import MYSQL_80

VOID = {"meta", "br", "input", "img", "link", "hr"}


class _Page(HTMLParser):
    """Checks that every element is closed in order, and collects what the tests read."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.open: list[str] = []
        self.counts: dict[str, str] = {}
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._count: str | None = None
        self.feed(text)
        self.close()
        assert self.open == [], f"unclosed elements {self.open}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.open.append(tag)
        self._count = dict(attrs).get("data-verdict") if ("class", "count") in attrs else None

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        if self._count is not None:
            self.counts[self._count] = data
            self._count = None


def test_counts_per_verdict(made_report: dict[str, object]) -> None:
    page = _Page(html_page(made_report))
    assert page.counts == {"consistent": "1", "divergent": "2", "slave_stopped": "0", "finding": "1", "error": "1"}


def test_everything_is_escaped_and_nothing_is_fetched(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    page = _Page(text)
    assert [tag for tag, _ in page.tags if tag in ("script", "img", "b", "link", "iframe")] == ["script"]
    assert "&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=document.title=&#x27;owned&#x27;&gt;" in text and "&lt;b&gt;broken&lt;/b&gt;" in text
    assert not re.search(r"(src|href)=\"(?!#)|url\(|@import", text)


def test_heatmap_has_a_column_per_format_and_row_image(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    head = re.search(r'<table class="heatmap"><tr>(.*?)</tr>', text).group(1)
    assert re.findall(r"<th>(.*?)</th>", head) == ["scenario", "STATEMENT", "MIXED", "ROW", "ROW · MINIMAL"]
    assert sorted(re.findall(r'class="(r [^"]*)"', text)) == ["r v-consistent", "r v-divergent", "r v-divergent unmet", "r v-error", "r v-finding"]


def test_findings_show_the_statement_and_the_shrunk_scenario(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    finding = re.search(r'<article class="finding">.*?</article>', text).group(0)
    assert "<h3>divergence under ROW with identical schemas</h3>" in finding
    assert 'href="#run-hunted__binlog_format_ROW_binlog_row_image_MINIMAL"' in finding
    assert "Caused by step 1 (con1): <code>INSERT INTO t VALUES (&#x27;&lt;script&gt;" in finding
    assert "<code>out/shrunk/hunted.yaml</code>" in finding and "<code>out/shrunk/test_hunted.py</code>" in finding
    assert "<h2>Exploration</h2>" in text and "distinct master states" in text


def test_without_findings_or_exploration(made_report: dict[str, object]) -> None:
    del made_report["findings"], made_report["exploration"]
    text = html_page(made_report)
    _Page(text)
    assert "Findings" not in text and "Exploration" not in text


def test_run_details_show_steps_explanation_and_diff(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    detail = re.search(r'<details class="run" id="run-plain__binlog_format_STATEMENT".*?</details>', text).group(0)
    assert "<td>con1</td>" in detail and "<td>STATEMENT</td>" in detail and "<td>SYSTEM_FUNCTION</td>" in detail
    assert "Note 1592: Unsafe statement written to the binary log" in detail
    assert "<li>tables that differ: t</li>" in detail
    assert "rows only on the master 1, only on the slave 1" in detail
    assert "Traceback (most recent call last):" in text


def test_diff_headers_are_the_column_names(made_report: dict[str, object]) -> None:
    made_report["runs"][1]["diff"][0] |= {"columns": ["id", "a"], "master_samples": [{"id": 1, "a": "x"}], "slave_samples": [{"id": 1, "a": "y"}]}
    text = html_page(made_report)
    head = re.search(r"<table><tr><th>only on</th>(.*?)</tr>", text).group(1)
    assert re.findall(r"<th>(.*?)</th>", head) == ["id", "a"]


def test_a_large_report_stays_small(made_report: dict[str, object]) -> None:
    """10 000 runs, one scenario in ten with a divergence: consistent scenarios beyond a few
    collapse into one counts row, details are bounded."""
    consistent, divergent = made_report["runs"][0], made_report["runs"][1]
    runs = []
    for number in range(10_000):
        run = copy.deepcopy(divergent if number % 30 == 1 else consistent)
        run["scenario"], run["run_id"] = f"fuzz-{number // 3}", f"fuzz-{number}"
        runs.append(run)
    made_report["runs"] = runs
    text = html_page(made_report)
    assert len(text.encode()) < 5_000_000
    assert text.count('<details class="run"') == DETAILED_RUNS + DETAILED_CONSISTENT_RUNS
    assert "134 more runs that are not consistent have no detail here" in text
    assert '<tr class="quiet" id="more-consistent"><th>2970 more scenarios, every run consistent' in text
    assert _Page(text).counts["divergent"] == "334"


def test_binlog_excerpt_ends_where_the_slave_stopped(real_report: dict[str, object]) -> None:
    run = next(run for run in real_report["runs"] if run["verdict"] == "slave_stopped")
    position = run["slave"]["error_position"]
    excerpt = binlog_excerpt(run["binlog"], position)
    lines = excerpt.splitlines()
    assert lines[0] == "# at 0" and len(lines) <= BINLOG_EXCERPT_LINES
    assert [line for line in lines if line.startswith("# at ")][-1] == f"# at {position}"
    assert binlog_excerpt(run["binlog"] + ".gone") is None and binlog_excerpt(None) is None


def test_binlog_excerpt_of_a_long_corrupt_binlog_is_its_end(tmp_path: Path) -> None:
    path = tmp_path / "long.binlog"
    writer = BinlogWriter(path, MYSQL_80.server_version, MYSQL_80.name, 1, 1_767_268_800)
    last = [writer.write(Query_log_event(query=f"INSERT INTO t VALUES ({n})")) for n in range(100)][-1]
    writer.close()
    with path.open("a") as file:
        file.write("not an event\n")
    lines = binlog_excerpt(str(path)).splitlines()
    assert lines[0].startswith("# … ") and lines[0].endswith(f" earlier events: rplharness binlog show {path}")
    assert len(lines) <= BINLOG_EXCERPT_LINES + 2
    assert "INSERT INTO t VALUES (99)" in lines and f"# at {last}" in lines
    assert lines[-1].startswith(f"{path}: corrupt binlog event at position ")


def test_real_report(real_report: dict[str, object], tmp_path: Path) -> None:
    path = write_html(real_report, tmp_path / "report.html")
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    text = path.read_text(encoding="utf-8")
    page = _Page(text)
    summary = real_report["summary"]
    assert {verdict: int(count) for verdict, count in page.counts.items() if verdict != "finding"} == {
        verdict: summary[verdict] for verdict in ("consistent", "divergent", "slave_stopped", "error")
    }
    assert "<h4>Binlog</h4><pre># at 0" in text and "### UPDATE `test`.`t`" in text
    assert "&lt;script&gt;document.title=1&lt;/script&gt;" in text and "<script>document.title" not in text
    assert f"<code>{real_report['input_errors'][0]['file']}</code>" in text
