"""What the command line tells the person at the terminal: its version, the modes of the
files it writes, progress, percentages."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
from importlib import metadata
from pathlib import Path

import pytest

import harness.version
from harness.cli import main
from harness.percent import percent
from harness.progress import Progress
from tests.support import ROOT, scenario_file

ORACLE_SUITE = ROOT / "scenarios" / "oracle"


def _pyproject_version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_version_prints_the_installed_packages_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"rplharness {metadata.version('rplharness')}\n"


def test_version_falls_back_to_pyproject_when_the_package_is_not_installed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(harness.version.metadata, "version", not_installed)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"rplharness {_pyproject_version()}\n"


# -- report files follow the umask ---------------------------------------------------------

TINY = """\
name: tiny
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, 10), (2, 20)"}
  - {session: con1, sql: "UPDATE t SET b = b + 1 WHERE a = 2"}
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A scenario whose three runs are consistent: exit 0 whatever the verdict rules."""
    return scenario_file(tmp_path, TINY, "tiny.yaml")


@pytest.fixture
def umask():
    """Set the process's umask for one test, and forget the one the writer read."""
    from scenarios.writer import process_umask

    saved = os.umask(0o022)
    process_umask.cache_clear()

    def set_mask(mask: int) -> None:
        os.umask(mask)
        process_umask.cache_clear()

    yield set_mask
    os.umask(saved)
    process_umask.cache_clear()


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_report_files_get_the_mode_the_umask_gives_new_files(tiny: Path, tmp_path: Path, umask, mask: int, mode: int, capsys: pytest.CaptureFixture[str]) -> None:
    umask(mask)
    out = tmp_path / "out"
    assert main(["run", str(tiny), "--compare", "python", "--out", str(out)]) == 0
    capsys.readouterr()
    for name in ("report.json", "junit.xml", "report.html"):
        assert stat.S_IMODE((out / name).stat().st_mode) == mode, name
    assert not list(out.glob(".*")), "a temporary file was left behind"


# -- progress ------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_says_estimating_until_five_percent_and_three_seconds() -> None:
    clock = Clock()
    progress = Progress(200, label="simulator", stream=io.StringIO(), clock=clock)
    progress.advance(5)  # 2.5 % done
    clock.now += 10
    assert progress.line(clock.now).endswith("estimating")
    progress.advance(5)  # 5 % done, but not yet...
    assert progress.line(clock.now).endswith("10s elapsed, 3m10s left")
    quick = Progress(200, stream=io.StringIO(), clock=clock)
    quick.advance(100)  # half done in 2 s: still too soon to tell
    clock.now += 2
    assert quick.line(clock.now).endswith("2s elapsed, estimating")
    clock.now += 1
    assert quick.line(clock.now).endswith("3s elapsed, 3s left")
    quick.advance(100)
    assert quick.line(clock.now) == "[##############################] 200/200 runs, 66.7/s, 3s elapsed"


def test_progress_of_workloads_counts_runs_and_findings() -> None:
    clock = Clock()
    progress = Progress(10, unit="workloads", stream=io.StringIO(), clock=clock)
    clock.now += 4
    progress.advance(runs=3, findings=1)
    assert progress.line(clock.now) == "[###...........................] 1/10 workloads, 3 runs (0.8/s), findings so far: 1, 4s elapsed, 36s left"


def test_progress_line_redraws_in_place_on_a_terminal_and_logs_lines_elsewhere() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    clock = Clock()
    terminal, log = Terminal(), io.StringIO()
    for stream in (terminal, log):
        progress = Progress(3, stream=stream, clock=clock)
        for _ in range(3):
            clock.now += 1
            progress.advance()
        progress.close()
        progress.close()
    drawn = terminal.getvalue()
    assert drawn.count("\r") == 3 and drawn.endswith("\n") and drawn.count("\n") == 1
    last = drawn.rsplit("\r", 1)[1]  # blanks over the longer line before it, then the line ends
    assert last == "[##############################] 3/3 runs, 1.0/s, 3s elapsed".ljust(len(drawn.split("\r")[2])) + "\n"
    # not a terminal: the first line, then one every 10 s, and the last
    assert log.getvalue().splitlines() == [
        "[##########....................] 1/3 runs, 1.0/s, 1s elapsed, estimating",
        "[##############################] 3/3 runs, 1.0/s, 3s elapsed",
    ]


def test_run_shows_its_progress_on_stderr_and_keeps_stdout_for_the_table(tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tiny), "--compare", "python", "--out", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0].startswith("simulator: [....") and "0/3 runs" in lines[0] and lines[0].endswith("estimating")
    assert lines[-1].startswith("simulator: [####") and "3/3 runs" in lines[-1] and "left" not in lines[-1]
    assert "simulator" not in out and "tiny" in out
    assert "Spark" not in err  # --compare python starts none


def test_spark_master_with_the_python_comparison_is_a_usage_error(tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With the local executor; with the Spark executor each task compares its runs."""
    with pytest.raises(SystemExit) as exit:
        main(["run", str(tiny), "--compare", "python", "--spark-master", "spark://host:7077", "--executor", "local", "--out", str(tmp_path / "out")])
    assert exit.value.code == 2
    assert "--spark-master" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# -- percentages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agreed", "compared", "text"),
    [(2147, 2148, "99.95 %"), (142, 143, "99.30 %"), (2, 3, "66.66 %"), (99999, 100000, "99.99 %"), (5, 5, "100.00 %"), (0, 7, "0.00 %"), (0, 0, "n/a")],
)
def test_percent_has_two_decimals_rounded_down(agreed: int, compared: int, text: str) -> None:
    assert percent(agreed, compared) == text


def test_check_fidelity_prints_rates_rounded_down_and_n_a_for_nothing_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite"
    (suite / "expected").mkdir(parents=True)
    name = "blocked-update-innodb"
    shutil.copy(ORACLE_SUITE / f"{name}.yaml", suite)
    for recorded in sorted((ORACLE_SUITE / "expected").glob(f"{name}__*.json")):
        document = json.loads(recorded.read_text())
        if "ROW" in recorded.name:
            document["verdict"] = "divergent"  # the server said otherwise in one run of three
        (suite / "expected" / recorded.name).write_text(json.dumps(document))
    assert main(["check-fidelity", str(suite), "--compare", "python", "--out", str(tmp_path / "out")]) == 1
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines() if line.startswith("  ") and not line.startswith("  DIS")}
    assert rows["verdict"] == ["2", "3", "66.66", "%"]
    assert rows["runs"] == ["2", "3", "66.66", "%"]
    assert rows["overall"][2:] != ["100.00", "%"]
    rates = json.loads((tmp_path / "out" / "report.json").read_text())["fidelity"]["rates"]
    assert rates["verdict"] == {"compared": 3, "agreed": 2, "rate": 2 / 3}

    (suite / "expected").rename(tmp_path / "elsewhere")  # no recording: nothing compared
    assert main(["check-fidelity", str(suite), "--compare", "python", "--out", str(tmp_path / "none")]) == 1
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines() if line.startswith("  ") and not line.startswith("  MIS")}
    assert rows["overall"] == ["0", "0", "n/a"]
    rates = json.loads((tmp_path / "none" / "report.json").read_text())["fidelity"]["rates"]
    assert {row["rate"] for row in rates.values()} == {None}


def _have_mariadb() -> bool:
    from harness.oracle.mariadb import ServerError, find_program

    try:
        find_program("mariadbd", "mysqld")
    except ServerError:
        return False
    return True


@pytest.mark.skipif(not _have_mariadb(), reason="MariaDB is not installed (.ci/install-mariadb installs it)")
def test_run_with_the_oracle_says_when_the_servers_start_and_shows_their_progress(tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--oracle", "mariadb", str(tiny), "--compare", "python", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    lines = err.splitlines()
    starting = lines.index("starting MariaDB master and replica ...")
    assert lines[starting + 1].startswith("MariaDB master and replica are up (10.11")
    assert any(line.startswith("simulator: [####") and "3/3 runs" in line for line in lines[:starting])
    assert lines[-1].startswith("server: [####") and "3/3 runs" in lines[-1]
    assert "fidelity of the simulator" in out


def test_fuzz_leaves_a_session_it_did_not_start_running(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fuzz starts Spark from a thread of its own, where the caller's session is not the
    active one: still, it must not stop a session it found."""
    assert main(["fuzz", "--count", "2", "--statements", "4", "--out", str(tmp_path / "fuzz")]) in (0, 1)
    capsys.readouterr()
    assert spark.range(3).count() == 3
