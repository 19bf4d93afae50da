"""Statements nested deeper than the simulator's recursion goes (500 parentheses, long NOT
chains, 3,000 nested calls, 5,000 additions) get the server's answer to nesting deeper
than its thread stack, 1436 ER_STACK_OVERRUN_NEED_MORE, in `explain`, `run` and `replay`,
never a RecursionError. (MariaDB 10.11 gives 1436 for 3,000 nested calls and 5,000
additions, and runs 3,000 parentheses and 5,000 NOTs: the depths differ, the answer is
the server's error rather than a traceback.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import BinlogWriter
from server_sim.flavor import MYSQL_80
from tests.support import run_command, scenario_file

DEEP = {
    "500 parentheses": "(" * 500 + "1" + ")" * 500,
    "500 NOTs": "NOT " * 500 + "1",
    "3,000 nested calls": "ABS(" * 3000 + "1" + ")" * 3000,
    "5,000 additions": "1" + " + 1" * 5000,
}


# Where the depth is met: parsing (explain cannot explain the statement, exit 2) or
# running it (explain shows its result: error 1436).
EXPLAINED = [("500 parentheses", 2, "ERROR 1436 (ER_STACK_OVERRUN_NEED_MORE)"), ("500 NOTs", 2, "ERROR 1436 (ER_STACK_OVERRUN_NEED_MORE)"), ("3,000 nested calls", 2, "ERROR 1436 (ER_STACK_OVERRUN_NEED_MORE)"), ("5,000 additions", 0, "error 1436 ER_STACK_OVERRUN_NEED_MORE")]


@pytest.mark.parametrize(("name", "code", "message"), EXPLAINED, ids=[row[0] for row in EXPLAINED])
def test_explain_answers_1436(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, code: int, message: str) -> None:
    schema = scenario_file(tmp_path, "CREATE TABLE t (a INT PRIMARY KEY, b INT);\n", "schema.sql")

    assert main(["explain", "--schema", str(schema), f"INSERT INTO t VALUES (1, {DEEP[name]})"]) == code

    captured = capsys.readouterr()
    assert message in (captured.err if code else captured.out)
    assert "Traceback" not in captured.out + captured.err


def test_run_answers_1436_and_goes_on(tmp_path: Path) -> None:
    steps = "".join(f'  - {{session: con1, sql: "INSERT INTO t VALUES ({n}, {expression})", error: ER_STACK_OVERRUN_NEED_MORE}}\n' for n, expression in enumerate(DEEP.values()))
    path = scenario_file(
        tmp_path,
        "name: deep\nmaster_schema:\n  - CREATE TABLE t (a INT PRIMARY KEY, b INT)\nsteps:\n"
        + steps
        + '  - {session: con1, sql: "UPDATE t SET b = ' + "(" * 100 + "2" + ")" * 100 + '"}\n'
        + '  - {session: con1, sql: "INSERT INTO t VALUES (9, ' + "(" * 100 + "9" + ")" * 100 + ')"}\n'
        + "expect:\n  - verdict: consistent\n",
    )

    code, report = run_command(tmp_path / "out", str(path), "--compare", "python")

    assert code == 0
    assert {run["verdict"] for run in report["runs"]} == {"consistent"}


def test_replay_of_a_server_binlog_stops_with_1436(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A real server runs 500 parentheses and logs the statement; the replica says 1436."""
    binlog = tmp_path / "master-bin.000001"
    writer = BinlogWriter(binlog, MYSQL_80.server_version, MYSQL_80.name, 1, 1_767_268_800)
    writer.write_group([Query_log_event(db="test", query="CREATE TABLE t (a INT PRIMARY KEY, b INT)")])
    writer.write_group([Query_log_event(db="test", query=f"INSERT INTO t VALUES (1, {DEEP['500 parentheses']})")])
    writer.close()

    assert main(["replay", str(binlog), "--db", str(tmp_path / "slave.duckdb")]) == 1

    captured = capsys.readouterr()
    assert "error 1436 (ER_STACK_OVERRUN_NEED_MORE)" in captured.out + captured.err
    assert "Traceback" not in captured.out + captured.err
