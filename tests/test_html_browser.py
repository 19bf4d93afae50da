"""report.html in a real browser: Debian's headless chromium loads the page, runs its script and
dumps the DOM, from which the test reads the verdict counts and the total the script writes.

Outside CI the test skips when chromium is missing; under CI it must run
(.ci/install-chromium installs chromium).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.html_report import VERDICTS, write_html


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
