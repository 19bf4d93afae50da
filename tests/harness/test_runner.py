"""The runner: scenario-declared engines reach both servers; bad declarations are input errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.runner import run_variant, validate_scenario
from scenarios.loader import load_scenario
from server_sim.flavor import MYSQL_80
from tests.support import scenario_file, scenario_from

DECLARED = """\
name: declared-engine
engines:
  STMT_ONLY: {transactional: false, row_capable: false, statement_capable: true}
master_schema:
  - CREATE TABLE s (a INT) ENGINE=STMT_ONLY
steps:
  - {session: con1, sql: "INSERT INTO s VALUES (1)"}
"""


@pytest.mark.parametrize(("binlog_format", "error"), [("STATEMENT", None), ("MIXED", None), ("ROW", 1662)])
def test_declared_engine_decides_the_logging_format(tmp_path: Path, binlog_format: str, error: int | None) -> None:
    record = run_variant(scenario_from(tmp_path, DECLARED, "s.yaml"), {"binlog_format": binlog_format}, MYSQL_80, tmp_path)

    assert record.error is None
    assert record.schema_steps[0].status == "ok"
    [step] = record.steps
    assert step.writes == ["s (STMT_ONLY)"]
    assert (step.error.code if step.error else None) == error
    # The slave knows the engine too: the CREATE TABLE and the INSERT replay there.
    assert record.slave is not None and record.slave.running
    assert record.slave_snapshot.tables["s"].rows == (() if error else ((1,),))


@pytest.mark.parametrize("name", ["MyISAM", "innodb", "HEAP"])
def test_declaring_a_builtin_engine_is_an_input_error(tmp_path: Path, name: str) -> None:
    path = scenario_file(tmp_path, f"name: s\nengines:\n  {name}: {{transactional: true, row_capable: true, statement_capable: true}}\n", "s.yaml")

    [error] = validate_scenario(load_scenario(path), MYSQL_80)

    assert (error.source, error.key) == (path, f"engines.{name}")
    assert "is a built-in engine; declare one under a name of its own" in error.message
