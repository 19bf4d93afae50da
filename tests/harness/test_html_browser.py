"""report.html in a real browser: Debian's headless chromium loads the page, runs its script and
dumps the DOM, from which the tests read what a person sees: the verdict counts and the total
the script writes, the legend, the diff's headers, the fidelity rates, the fuzz aggregates,
the finding groups and the order of a run's timeline.

Outside CI the test skips when chromium is missing; under CI it must run
(.ci/install-chromium installs chromium).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.html.common import VERDICTS
from harness.html.page import write_html


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/install-chromium installs it")
        pytest.skip("chromium is not installed (.ci/install-chromium installs it; under CI this test runs)")
    return path


def _render(chromium: str, page: Path, profile: Path, fragment: str = "") -> str:
    """The DOM after the page's script ran, as chromium serializes it."""
    command = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", "--dump-dom", page.as_uri() + fragment,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout


class _Rendered(HTMLParser):
    """What a person sees: the counts, the total, the title, the scripts, which details are open."""

    def __init__(self, dom: str) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}
        self.total = ""
        self.title = ""
        self.scripts = 0
        self.open_details: list[str] = []
        self._reading: tuple[str, str] | None = None
        self.feed(dom)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.scripts += tag == "script"
        if tag == "details" and "open" in attributes:
            self.open_details.append(attributes["id"] or "")
        if attributes.get("class") == "count":
            self._reading = ("count", attributes["data-verdict"] or "")
        elif attributes.get("id") == "total-runs":
            self._reading = ("total", "")
        elif tag == "title":
            self._reading = ("title", "")

    def handle_data(self, data: str) -> None:
        if self._reading is None:
            return
        kind, verdict = self._reading
        if kind == "count":
            self.counts[verdict] = int(data)
        elif kind == "total":
            self.total = data
        else:
            self.title = data
        self._reading = None


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    children: list[_Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text() for child in self.children)

    def all(self, tag: str | None = None, css: str | None = None) -> list[_Node]:
        """Descendants with that tag and class, in document order."""
        found = []
        for child in self.children:
            if isinstance(child, _Node):
                if (tag is None or child.tag == tag) and (css is None or css in child.attrs.get("class", "").split()):
                    found.append(child)
                found.extend(child.all(tag, css))
        return found

    def by_id(self, id_: str) -> _Node:
        return next(node for node in self.all() if node.attrs.get("id") == id_)

    def rows(self) -> list[list[str]]:
        """A table's cells' text, row by row."""
        return [[cell.text() for cell in row.children if isinstance(cell, _Node)] for row in self.all("tr")]


class _Tree(HTMLParser):
    """The rendered DOM as a tree of nodes (chromium's dump closes every element)."""

    def __init__(self, dom: str) -> None:
        super().__init__()
        self.root = _Node("#document", {})
        self._stack = [self.root]
        self.feed(dom)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {name: value or "" for name, value in attrs})
        self._stack[-1].children.append(node)
        if tag not in VOID:
            self._stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        while len(self._stack) > 1:
            if self._stack.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        self._stack[-1].children.append(data)


def test_chromium_shows_the_counts_of_a_real_report(chromium: str, real_report: dict[str, object], tmp_path: Path) -> None:
    page = write_html(real_report, tmp_path / "report.html")
    rendered = _Rendered(_render(chromium, page, tmp_path / "profile"))
    summary = real_report["summary"]
    assert rendered.counts == {verdict: summary.get(verdict, 0) for verdict in VERDICTS}
    assert rendered.total == f"{summary['runs']} runs"
    assert rendered.title == "rplharness report — mysql-8.0" and rendered.scripts == 1
    assert rendered.open_details == []


def test_chromium_opens_the_linked_run_and_runs_no_script_of_the_report(chromium: str, made_report: dict[str, object], tmp_path: Path) -> None:
    page = write_html(made_report, tmp_path / "report.html")
    rendered = _Rendered(_render(chromium, page, tmp_path / "profile", "#run-plain__binlog_format_MIXED"))
    assert rendered.counts == {"consistent": 1, "divergent": 2, "slave_stopped": 1, "finding": 1, "unsupported": 1, "error": 1}
    assert rendered.total == "7 runs"
    assert rendered.open_details == ["run-plain__binlog_format_MIXED"]
    assert rendered.title == "rplharness report — mysql-8.0" and rendered.scripts == 1


def test_chromium_shows_the_legend_diff_headers_fidelity_and_timeline(chromium: str, made_report: dict[str, object], tmp_path: Path) -> None:
    made_report["runs"][1]["diff"][0] |= {"columns": ["id", "a"], "master_samples": [{"id": 1, "a": "x"}], "slave_samples": [{"id": 1, "a": "y"}]}
    page = write_html(made_report, tmp_path / "report.html")
    dom = _Tree(_render(chromium, page, tmp_path / "profile")).root
    legend = dom.by_id("legend")
    assert [badge.text() for badge in legend.all("span", "badge")] == list(VERDICTS)
    assert "no such reason explains" in legend.text() and "an expectation (expect entry) or an error check of the run failed" in legend.text()
    diff = dom.by_id("run-plain__binlog_format_STATEMENT").all("table", "diff")[0]
    assert diff.rows()[0] == ["only on", "id", "a"] and diff.rows()[1:] == [["master", "1", "x"], ["slave", "1", "y"]]
    rates = {row[0]: row[1:] for row in dom.by_id("fidelity-rates").rows()[1:]}
    assert rates["steps"] == ["2147", "2148", "99.95 %"] and rates["diagnostics"] == ["0", "0", "n/a"]
    assert rates["blocking"][2] == "100.00 %" and rates["overall"][2] == "99.90 %"
    assert all(rate != "100.00 %" for agreed, compared, rate in rates.values() if agreed != compared)
    disagreement = dom.by_id("disagreements").rows()[1]
    assert disagreement[3:] == ["step 1 (con1)", "ok", "error 1064 <script>alert(1)</script>", "unexplained"]
    timeline = dom.by_id("run-locks__binlog_format_ROW").all("table", "timeline")[0]
    steps = [(row.attrs["data-step"], row.attrs["data-kind"]) for row in timeline.all("tr") if "data-step" in row.attrs]
    assert steps.index(("3", "late")) == steps.index(("5", "ran")) + 1 and steps.index(("3", "wait")) < steps.index(("5", "ran"))
    late = timeline.all("td", "late")[0].text()
    assert late.startswith("3 UPDATE t SET a = '<i>y</i>'") and late.endswith("ran after step 5 (waited for con1)")
    grid = timeline.rows()
    assert grid[0] == ["#", "con1", "con2", "con3"]
    assert [(row[0], *(f"{session}: {cell.split(' ')[0]}" for session, cell in zip(grid[0][1:], row[1:]) if cell)) for row in grid[1:]] == [
        ("1", "con1: 1"), ("2", "con1: 2"), ("3", "con2: 3"), ("4", "con2: 4"), ("5", "con1: 5"), ("6", "con2: 3"), ("7", "con2: 4"),
        ("8", "con3: 6"), ("9", "con2: 7"), ("10", "con3: 8"),
    ]
    assert grid[3][2] == "3 UPDATE t SET a = '<i>y</i>' WHERE id = 1 waits for con1" and grid[4][2].endswith("queued behind step 3")
    assert grid[7][2] == "4 INSERT INTO t VALUES (3, 'q') ran after step 5 (was queued behind step 3)"
    assert grid[8][3].endswith("waits for con2 — never ran")


def test_chromium_shows_the_fuzz_aggregates_and_finding_groups(chromium: str, made_fuzz_report: dict[str, object], tmp_path: Path) -> None:
    page = write_html(made_fuzz_report, tmp_path / "report.html")
    dom = _Tree(_render(chromium, page, tmp_path / "profile", "#run-w0-i4__binlog_format_STATEMENT")).root
    rows = dom.by_id("fuzz-verdicts").rows()
    assert rows[0] == ["binlog_format", "binlog_row_image", "flavor", *VERDICTS, "runs"]
    combinations, totals = rows[1:-1], rows[-1]
    assert len(combinations) == 8 and all(sum(map(int, row[3:-1])) == int(row[-1]) for row in combinations)
    assert sum(int(row[-1]) for row in combinations) == int(totals[-1]) == len(made_fuzz_report["runs"]) == 48
    assert totals[1:-1] == [str(made_fuzz_report["summary"][verdict]) for verdict in VERDICTS]
    assert {row[0]: row[2] for row in dom.by_id("slave-stops").rows()[1:]} == {"1032": "4", "1062": "4"}
    group = dom.by_id("group-1")
    assert group.all("span", "group-count")[0].text() == "5"
    assert group.all("pre", "scenario")[0].text() == made_fuzz_report["finding_groups"][0]["example"]["shrunk"]["scenario_yaml"]
    # The group links its runs; following a link opens the collapsed run list and the run.
    assert group.all("a")[0].attrs["href"] == "#run-w0-i4__binlog_format_STATEMENT"
    assert [node.attrs.get("id") for node in dom.all("details") if "open" in node.attrs] == ["run-details", "run-w0-i4__binlog_format_STATEMENT"]
