"""Bad harness inputs are clear errors, never a traceback, a hang or a wrong verdict:
colliding and overlong run ids, a slave_schema statement the simulator cannot run, an
--out that is a file, suite files that are not regular files, and a command killed after
an earlier one left its report in OUT."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import harness.fuzz
from harness.cli import main
from tests.support import read_report, run_command, scenario_file

SCENARIO = """\
name: {name}
matrix:
  binlog_format: [ROW]
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB
steps:
  - {{session: con1, sql: "INSERT INTO t VALUES ({value})"}}
"""


def test_two_scenarios_whose_names_give_one_run_id_are_refused_by_name(tmp_path, capsys) -> None:
    first = scenario_file(tmp_path / "suite", SCENARIO.format(name="x/y", value=1), "a.yaml")
    scenario_file(tmp_path / "suite", SCENARIO.format(name="x_y", value=2), "b.yaml")
    code, report = run_command(tmp_path / "out", str(tmp_path / "suite"), "--compare", "python")
    assert code == 2
    [error] = report["input_errors"]
    assert error["file"].endswith("b.yaml") and "run id 'x_y__binlog_format_ROW' is already that of scenario 'x/y'" in error["message"] and str(first) in error["message"]
    assert {run["scenario"] for run in report["runs"]} == {"x/y"}
    assert sorted(path.name for path in (tmp_path / "out" / "binlogs").iterdir()) == ["x_y__binlog_format_ROW.binlog"]


def test_a_300_character_scenario_name_runs_with_a_bounded_run_id(tmp_path) -> None:
    name = "long-" + "n" * 295
    scenario_file(tmp_path, SCENARIO.format(name=name, value=1))
    code, report = run_command(tmp_path / "out", str(tmp_path / "scenario.yaml"), "--compare", "python")
    assert code == 0, report
    [run] = report["runs"]
    assert run["scenario"] == name and run["verdict"] == "consistent"
    assert len(run["run_id"]) <= 160 and run["run_id"].startswith("long-nnnn")
    [binlog] = (tmp_path / "out" / "binlogs").iterdir()
    assert binlog.name == f"{run['run_id']}.binlog"


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        ("INSERT INTO t VALUES (1", 1064),
        ("CREATE TABLE u (a INT) PARTITION BY HASH(a) PARTITIONS 2", 1235),
    ],
    ids=["unparsable", "refused"],
)
def test_a_slave_schema_statement_the_simulator_cannot_run_is_an_error_verdict_naming_it(tmp_path, statement, code) -> None:
    text = SCENARIO.format(name="bad-slave-schema", value=1) + f"slave_schema:\n  - {json.dumps(statement)}\n"
    scenario_file(tmp_path, text)
    exit_code, report = run_command(tmp_path / "out", str(tmp_path / "scenario.yaml"), "--compare", "python")
    assert exit_code == 1
    [run] = report["runs"]
    assert run["verdict"] == "error"
    assert "Traceback" not in json.dumps(report)
    assert f"slave_schema[0]: error {code} " in run["explanation"][0] and statement in run["explanation"][0]
    assert run["slave_schema"] == [{"sql": statement, "error": {**run["slave_schema"][0]["error"], "code": code}}]


@pytest.mark.parametrize("command", ["run", "fuzz", "check-workload", "import"])
def test_an_out_that_names_a_file_is_refused_before_any_work(tmp_path, capsys, command) -> None:
    scenario = scenario_file(tmp_path, SCENARIO.format(name="s", value=1))
    out = tmp_path / "taken"
    out.write_text("mine\n")
    arguments = {
        "run": ["run", str(scenario), "--compare", "python", "--out", str(out)],
        "fuzz": ["fuzz", "--count", "50", "--out", str(out)],
        "check-workload": ["check-workload", str(scenario), "--out", str(out)],
        "import": ["import", "general", str(scenario), "-o", str(out / "below")],
    }[command]
    started = time.monotonic()
    assert main(arguments) == 2
    assert time.monotonic() - started < 2  # nothing was run
    assert f"{out} exists and is not a directory" in capsys.readouterr().err
    assert out.read_text() == "mine\n"


@pytest.mark.parametrize("kind", ["fifo", "device", "too-large"])
def test_a_suite_file_that_is_not_a_small_regular_file_is_an_input_error_and_the_rest_runs(tmp_path, kind) -> None:
    suite = tmp_path / "suite"
    scenario_file(suite, SCENARIO.format(name="good", value=1), "good.yaml")
    bad = suite / "bad.yaml"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "device":
        bad.symlink_to("/dev/zero")
    else:
        with bad.open("wb") as file:
            file.truncate(17 * 1024 * 1024)  # sparse: no disk used
    code, report = run_command(tmp_path / "out", str(suite), "--compare", "python")
    assert code == 2
    [error] = report["input_errors"]
    expected = {"fifo": "not a regular file (a FIFO)", "device": "not a regular file (a character device)", "too-large": "larger than 16777216 bytes"}[kind]
    assert error["file"] == str(bad) and expected in error["message"]
    assert [run["scenario"] for run in report["runs"]] == ["good"]


def test_a_scenario_file_is_read_up_to_its_limit() -> None:
    from scenarios.loader import read_scenario_text

    with pytest.raises(OSError, match="larger than 10 bytes"):
        read_scenario_text(Path(__file__), limit=10)


class Killed(BaseException):
    """The process dies: nothing after this point runs."""


@pytest.mark.parametrize("command", ["fuzz", "run"])
def test_a_command_killed_after_an_earlier_complete_report_leaves_no_report_that_looks_complete(tmp_path, monkeypatch, command) -> None:
    scenario = scenario_file(tmp_path, SCENARIO.format(name="s", value=1))
    out = tmp_path / "out"
    code, earlier = run_command(out, str(scenario), "--compare", "python")
    assert code == 0 and earlier["runs"]
    assert {path.name for path in out.iterdir()} >= {"report.json", "junit.xml", "report.html"}

    def killed(*arguments: object, **keywords: object) -> None:
        raise Killed

    monkeypatch.setattr(harness.fuzz, "fuzz", killed)
    monkeypatch.setattr("harness.suite.run_suite", killed)
    with pytest.raises(Killed):
        main([command, *(["--count", "2"] if command == "fuzz" else [str(scenario), "--compare", "python"]), "--out", str(out)])
    assert read_report(out) == {}
    assert not (out / "junit.xml").exists() and not (out / "report.html").exists()
