"""report.html: the counts and the legend, the heatmap or the fuzz aggregates, findings, fidelity,
run details with their timeline, escaped, self-contained and bounded in size."""

from __future__ import annotations

import copy
import html
import re
from html.parser import HTMLParser
from pathlib import Path

from harness.html.common import VERDICTS, percent
from harness.html.page import html_page, write_html
from harness.html.runs import BINLOG_EXCERPT_LINES, DETAILED_CONSISTENT_RUNS, DETAILED_RUNS, binlog_excerpt
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


def _section(text: str, pattern: str) -> str:
    found = re.search(pattern, text, re.S)
    assert found, pattern
    return found.group(0)


def _table(text: str, table_id: str) -> list[list[str]]:
    """The cells' text of a table, row by row, tags stripped and entities kept."""
    table = _section(text, f'<table id="{table_id}">.*?</table>')
    return [[re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)] for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table)]


def test_counts_per_verdict(made_report: dict[str, object]) -> None:
    page = _Page(html_page(made_report))
    assert page.counts == {"consistent": "1", "divergent": "2", "slave_stopped": "1", "finding": "1", "unsupported": "1", "error": "1"}
    assert list(page.counts) == list(VERDICTS)


def test_everything_is_escaped_and_nothing_is_fetched(made_report: dict[str, object], made_fuzz_report: dict[str, object]) -> None:
    for report in (made_report, made_fuzz_report):
        text = html_page(report)
        page = _Page(text)
        assert [tag for tag, _ in page.tags if tag in ("script", "img", "b", "i", "link", "iframe")] == ["script"]
        assert "&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt;" in text
        assert not re.search(r"(src|href)=\"(?!#)|url\(|@import", text)
    text = html_page(made_report)
    assert "&lt;img src=x onerror=document.title=&#x27;owned&#x27;&gt;" in text and "&lt;b&gt;broken&lt;/b&gt;" in text
    assert "error 1064 &lt;script&gt;alert(1)&lt;/script&gt;" in text and "10.11.18-MariaDB-&lt;b&gt;log&lt;/b&gt;" in text
    assert "UPDATE t SET a = &#x27;&lt;i&gt;y&lt;/i&gt;&#x27;" in text and "near &#x27;&lt;script&gt;&#x27;" in text
    assert "&lt;b&gt;gone&lt;/b&gt; [binlog_format=ROW]" in text


def test_legend_says_what_verdicts_and_marks_mean(made_report: dict[str, object]) -> None:
    legend = _section(html_page(made_report), r'<section id="legend">.*?</section>')
    assert re.findall(r'<dt><span class="badge v-(\w+)">', legend) == list(VERDICTS)
    assert "an unsafe statement was logged as a statement" in legend and "no such reason explains" in legend
    assert "refused a statement (1235) or could not parse it (1064)" in legend and "the simulator itself failed" in legend
    assert 'class="r v-divergent unmet"' in legend and "an expectation (expect entry) or an error check of the run failed" in legend
    assert "a linked square has its run detail" in legend


def test_a_fuzz_legend_has_no_squares_to_explain(made_fuzz_report: dict[str, object]) -> None:
    legend = _section(html_page(made_fuzz_report), r'<section id="legend">.*?</section>')
    assert re.findall(r'<dt><span class="badge v-(\w+)">', legend) == list(VERDICTS) and 'class="r ' not in legend


def test_heatmap_has_a_column_per_format_and_row_image(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    head = re.search(r'<table class="heatmap"><tr>(.*?)</tr>', text).group(1)
    assert re.findall(r"<th>(.*?)</th>", head) == ["scenario", "STATEMENT", "MIXED", "ROW", "ROW · MINIMAL"]
    heatmap = _section(text, r'<table class="heatmap">.*?</table>')
    assert sorted(re.findall(r'class="(r [^"]*)"', heatmap)) == [
        "r v-consistent", "r v-divergent", "r v-divergent unmet", "r v-error", "r v-finding", "r v-slave_stopped unmet", "r v-unsupported unmet",
    ]


def test_a_run_no_expectation_covers_is_dashed(made_report: dict[str, object]) -> None:
    locks = made_report["runs"][6]
    locks["error_checks"][0]["held"] = True
    heatmap = _section(html_page(made_report), r'<table class="heatmap">.*?</table>')
    assert 'class="r v-slave_stopped unchecked"' in heatmap
    detail = _section(html_page(made_report), r'<details class="run" id="run-locks__binlog_format_ROW".*?</details>')
    assert "No expect entry asserts the verdict slave_stopped: this run is not covered." in detail


def test_findings_show_the_statement_and_the_shrunk_scenario(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    finding = re.search(r'<article class="finding">.*?</article>', text).group(0)
    assert "<h3>divergence under ROW with identical schemas</h3>" in finding
    assert 'href="#run-hunted__binlog_format_ROW_binlog_row_image_MINIMAL"' in finding
    assert "Caused by step 1 (con1): <code>INSERT INTO t VALUES (&#x27;&lt;script&gt;" in finding
    assert "<code>out/shrunk/hunted.yaml</code>" in finding and "<code>out/shrunk/test_hunted.py</code>" in finding


def test_without_findings_fidelity_or_the_newer_keys(made_report: dict[str, object]) -> None:
    """An older document: no findings, no fidelity, no flavor, passed, covered or error checks per run."""
    del made_report["findings"], made_report["fidelity"], made_report["command"]
    for run in made_report["runs"]:
        for key in ("flavor", "passed", "covered", "error_checks"):
            del run[key]
        for step in run["steps"]:
            step.pop("expected_error", None)
    text = html_page(made_report)
    _Page(text)
    assert "Findings" not in text and "Exploration" not in text and "Fidelity" not in text and "Error checks" not in text
    assert '<table class="heatmap">' in text and "expected error" not in text


def test_run_details_show_steps_explanation_and_diff(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    detail = _section(text, r'<details class="run" id="run-plain__binlog_format_STATEMENT".*?</details>')
    assert "<td>con1</td>" in detail and "<td>STATEMENT</td>" in detail and "<td>SYSTEM_FUNCTION</td>" in detail
    assert "Note 1592: Unsafe statement written to the binary log" in detail
    assert '<span class="failed">unsafe (SYSTEM_FUNCTION), logged as STATEMENT</span>' in _section(detail, r'<table class="timeline">.*?</table>')
    assert "<li>tables that differ: t</li>" in detail
    assert "rows only on the master 1, only on the slave 1" in detail
    assert "Traceback (most recent call last):" in text


def test_diff_headers_are_the_column_names(made_report: dict[str, object]) -> None:
    made_report["runs"][1]["diff"][0] |= {"columns": ["id", "a"], "master_samples": [{"id": 1, "a": "x"}], "slave_samples": [{"id": 1, "a": "y"}]}
    diff = _section(html_page(made_report), r'<table class="diff">.*?</table>')
    assert re.findall(r"<th>(.*?)</th>", re.search(r"<tr>(.*?)</tr>", diff).group(1)) == ["only on", "id", "a"]


def test_error_checks_are_listed_failed_first(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    unsupported = _section(text, r'<details class="run" id="run-unparsable__binlog_format_ROW".*?</details>')
    assert "flavor mariadb-10.11" in unsupported and "did not pass" in unsupported
    rows = re.findall(r'<tr class="failed">(.*?)</tr>', _section(unsupported, r'<table class="error-checks">.*?</table>'))
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td>(.*?)</td>", rows[0])]
    assert cells == [
        "step 1 (con1)", "SELECT &lt;script&gt;", "none declared", "1064 ER_PARSE_ERROR: You have an error in your SQL syntax near &#x27;&lt;script&gt;&#x27;",
        "failed: error 1064 ER_PARSE_ERROR, and no error was declared",
    ]
    locks = _section(text, r'<details class="run" id="run-locks__binlog_format_ROW".*?</details>')
    assert "<td>1062</td><td>success</td><td>failed: expected error 1062, got success</td>" in locks
    assert "<th>expected error</th>" in locks and "flavor mysql-8.0" in locks


def test_the_timeline_puts_a_blocked_step_after_the_step_it_ran_after(made_report: dict[str, object]) -> None:
    locks = _section(html_page(made_report), r'<details class="run" id="run-locks__binlog_format_ROW".*?</details>')
    timeline = _section(locks, r'<table class="timeline">.*?</table>')
    assert re.findall(r"<th>(.*?)</th>", timeline) == ["#", "con1", "con2", "con3"]
    order = re.findall(r'<tr data-step="(\d+)" data-kind="(\w+)">', timeline)
    assert order == [
        ("1", "ran"), ("2", "ran"), ("3", "wait"), ("4", "queued"), ("5", "ran"), ("3", "late"), ("4", "late"), ("6", "wait"), ("7", "ran"), ("8", "queued"),
    ]
    assert "waits for con1</span>" in timeline and "ran after step 5 (waited for con1)" in timeline
    assert "queued behind step 3</span>" in timeline and "ran after step 5 (was queued behind step 3)" in timeline
    assert "waits for con2 — never ran" in timeline and "queued behind step 6 — never ran" in timeline


def test_the_fidelity_rates_are_exact(made_report: dict[str, object]) -> None:
    rates = _table(html_page(made_report), "fidelity-rates")
    assert rates == [
        ["category", "agreed", "compared", "agreement"],
        ["steps", "2147", "2148", "99.95 %"],
        ["diagnostics", "0", "0", "n/a"],
        ["blocking", "12", "12", "100.00 %"],
        ["overall", "2158", "2160", "99.90 %"],
        ["runs", "1", "3", "33.33 %"],
    ]


def test_percent_floors_and_says_na() -> None:
    assert percent(2147, 2148) == "99.95 %" and percent(19999, 20000) == "99.99 %" and percent(1, 1) == "100.00 %"
    assert percent(0, 0) == "n/a" and percent(0, 0, None) == "n/a" and percent(None, None, None) == "n/a"
    assert percent(None, None, 0.99999) == "99.99 %" and percent(None, None, 1.0) == "100.00 %" and percent(0, 3) == "0.00 %"


def test_disagreements_side_by_side_unexplained_first(made_report: dict[str, object]) -> None:
    text = html_page(made_report)
    assert "<h3>Disagreements (1 unexplained, 1 known)</h3>" in text
    rows = _table(text, "disagreements")
    assert rows[1] == ["plain", "binlog_format=STATEMENT", "steps", "step 1 (con1)", "ok", "error 1064 &lt;script&gt;alert(1)&lt;/script&gt;", "unexplained"]
    assert rows[2] == ["locks", "binlog_format=ROW", "blocking", "step 3 (con2)", "blocked", "ran at once", "the server&#x27;s gap locks differ"]
    assert "<li>&lt;b&gt;gone&lt;/b&gt; [binlog_format=ROW]: no recording" in text


def test_fuzz_reports_aggregate_before_the_runs(made_fuzz_report: dict[str, object]) -> None:
    text = html_page(made_fuzz_report)
    _Page(text)
    assert '<table class="heatmap">' not in text
    assert text.index('id="fuzz-verdicts"') < text.index('id="slave-stops"') < text.index('class="finding-group"') < text.index('<details id="run-details">')
    rows = _table(text, "fuzz-verdicts")
    assert rows[0] == ["binlog_format", "binlog_row_image", "flavor", *VERDICTS, "runs"]
    combinations = rows[1:-1]
    assert [row[:3] for row in combinations] == [
        ["STATEMENT", "—", "mariadb-10.11"], ["STATEMENT", "—", "mysql-8.0"], ["MIXED", "—", "mariadb-10.11"], ["MIXED", "—", "mysql-8.0"],
        ["ROW", "FULL", "mariadb-10.11"], ["ROW", "FULL", "mysql-8.0"], ["ROW", "MINIMAL", "mariadb-10.11"], ["ROW", "MINIMAL", "mysql-8.0"],
    ]
    assert all(sum(map(int, row[3:-1])) == int(row[-1]) for row in combinations)
    assert rows[-1][0] == "all" and sum(map(int, rows[-1][1:-1])) == int(rows[-1][-1])
    assert sum(int(row[-1]) for row in combinations) == int(rows[-1][-1]) == len(made_fuzz_report["runs"])
    assert rows[-1][1:-1] == [str(made_fuzz_report["summary"][verdict]) for verdict in VERDICTS]
    assert [row[:3] for row in _table(text, "slave-stops")[1:]] == [["1032", "ER_KEY_NOT_FOUND", "4"], ["1062", "ER_DUP_ENTRY", "4"]]


def test_finding_groups_show_the_whole_shrunk_scenario(made_fuzz_report: dict[str, object]) -> None:
    text = html_page(made_fuzz_report)
    group = _section(text, r'<section class="finding-group" id="group-1">.*?</section>')
    assert "<h3>ROW divergence on a table without primary key after UPDATE &lt;i&gt;</h3>" in group
    assert '<span class="group-count">5</span> findings' in group
    assert "<dt>table shape</dt><dd>no primary key</dd>" in group and "<dt>flavor</dt><dd>mysql-8.0</dd>" in group
    scenario = made_fuzz_report["finding_groups"][0]["example"]["shrunk"]["scenario_yaml"]
    assert len(scenario) > 4000 and f'<pre class="scenario">{html.escape(scenario)}</pre>' in group
    assert "<code>out/findings/w0-i4__binlog_format_STATEMENT.yaml</code>" in group
    second = _section(text, r'<section class="finding-group" id="group-2">.*?</section>')
    assert "<dt>unsafe</dt><dd>LIMIT, SYSTEM_FUNCTION</dd>" in second and "<dt>error</dt><dd>1032</dd>" in second
    assert "Findings by group (2 groups, 8 findings)" in text and "8 findings in all; report.json lists each" in text


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
    assert "134 more runs that are not consistent or did not pass have no detail here" in text
    assert '<tr class="quiet" id="more-consistent"><th>2970 more scenarios, every run consistent' in text
    assert _Page(text).counts["divergent"] == "334"


def test_a_large_fuzz_report_stays_small(made_fuzz_report: dict[str, object]) -> None:
    """10 000 fuzz runs: aggregates of a few rows, and a bounded, collapsed list of details."""
    runs = []
    for number in range(10_000):
        run = copy.deepcopy(made_fuzz_report["runs"][number % 48])
        run["scenario"], run["run_id"] = f"w{number // 6}-i{number % 6}", f"fuzz-{number}"
        runs.append(run)
    made_fuzz_report["runs"] = runs
    text = html_page(made_fuzz_report)
    assert len(text.encode()) < 2_000_000
    assert text.count('<details class="run"') == DETAILED_RUNS + DETAILED_CONSISTENT_RUNS
    assert f"Detail of {DETAILED_RUNS + DETAILED_CONSISTENT_RUNS} of the 10000 runs" in text
    rows = _table(text, "fuzz-verdicts")
    assert len(rows) == 10 and rows[-1][-1] == "10000"
    assert _Page(text).counts["consistent"] == "3334"


def test_binlog_excerpt_ends_where_the_slave_stopped(real_report: dict[str, object]) -> None:
    run = next(run for run in real_report["runs"] if run["verdict"] == "slave_stopped")
    position = run["slave"]["error_position"]
    excerpt = binlog_excerpt(run["binlog"], position)
    lines = excerpt.splitlines()
    assert lines[0] == "# at 4" and len(lines) <= BINLOG_EXCERPT_LINES
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
    assert {verdict: int(count) for verdict, count in page.counts.items()} == {verdict: summary.get(verdict, 0) for verdict in VERDICTS}
    assert "<h4>Binlog</h4><pre># at 4" in text and "### UPDATE `test`.`t`" in text
    assert "&lt;script&gt;document.title=1&lt;/script&gt;" in text and "<script>document.title" not in text
    assert f"<code>{real_report['input_errors'][0]['file']}</code>" in text
