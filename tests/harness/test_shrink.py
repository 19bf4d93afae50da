"""Shrinking: ddmin's 1-minimality, each pass on a predicate that reads the text, and a
real divergence shrunk through the simulators."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from harness.runner import run_variant
from harness.shrink import shrink
from harness.shrink.core import ddmin
from harness.snapshot import ServerSnapshot, canonical
from scenarios.model import Scenario, Step
from server_sim.flavor import MYSQL_80
from tests.support import scenario_from


def without_step(scenario: Scenario, position: int) -> Scenario:
    steps = scenario.steps[:position] + scenario.steps[position + 1 :]
    return replace(scenario, steps=tuple(replace(step, index=number) for number, step in enumerate(steps, 1)))


def test_ddmin_finds_the_units_that_matter_together() -> None:
    tried: list[list[int]] = []

    def accepts(part: list[int]) -> bool:
        tried.append(part)
        return {3, 7, 8} <= set(part)

    assert ddmin(list(range(12)), accepts) == [3, 7, 8]
    assert [] not in tried[:-1]  # the empty list is tried only once one unit is left, if ever


def test_ddmin_with_keep_one_never_tries_the_empty_list() -> None:
    tried: list[list[int]] = []

    def accepts(part: list[int]) -> bool:
        tried.append(part)
        return True

    assert ddmin([1, 2, 3], accepts, keep_one=True) == [1]
    assert [] not in tried


NOISE = """\
name: noise
master_schema:
  - CREATE TABLE t1 (a INT PRIMARY KEY, b INT) ENGINE=InnoDB
  - CREATE TABLE t2 (a INT NOT NULL, b INT, c VARCHAR(10), PRIMARY KEY (a)) ENGINE=InnoDB
  - INSERT INTO t1 VALUES (1, 1), (2, 2)
  - INSERT INTO t2 VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 30, 'z')
slave_schema:
  - ALTER TABLE t1 ADD COLUMN extra INT DEFAULT 7
steps:
  - {session: con1, sql: "INSERT INTO t1 VALUES (3, 3)"}
  - {session: con2, sql: "UPDATE t2 SET b = b + 1 WHERE a = 2"}
  - {session: con1, sql: "BEGIN"}
  - {session: con1, sql: "update t2  set b=1 limit 1"}
  - {session: con1, sql: "COMMIT"}
  - {session: con3, sql: "DELETE FROM t1 WHERE a = 1"}
  - {session: con2, sql: "SELECT * FROM t2"}
expect:
  - verdict: consistent
volatile: [t1.b, t2.b, t2.c]
"""
KEPT = "update t2  set b=1 limit 1"


def test_shrink_keeps_the_statement_and_table_the_predicate_needs(tmp_path: Path) -> None:
    scenario = scenario_from(tmp_path, NOISE)

    def needs(candidate: Scenario) -> bool:
        return any(step.sql == KEPT for step in candidate.steps) and any(
            sql.startswith("CREATE TABLE t2") for sql in candidate.master_schema
        )

    result = shrink(scenario, needs)

    assert result.scenario.steps == (Step(1, "con1", KEPT),)  # untouched text stays as written
    assert result.removed_steps == (1, 2, 3, 5, 6, 7)
    assert result.scenario.expect == ()
    assert result.scenario.slave_schema == ()
    [create] = result.scenario.master_schema
    assert create.startswith("CREATE TABLE t2 (") and "t1" not in create
    # volatile columns of tables and columns that are gone go too
    assert result.scenario.volatile == tuple(name for name in ("t2.b", "t2.c") if name.split(".")[1] + " " in create)
    assert not result.exhausted and 0 < result.runs < 100


def test_shrink_cuts_rows_of_a_multirow_insert(tmp_path: Path) -> None:
    scenario = scenario_from(tmp_path, NOISE)

    def needs(candidate: Scenario) -> bool:
        return any("(3, 30, 'z')" in sql for sql in candidate.master_schema)

    result = shrink(scenario, needs)

    assert result.scenario.steps == ()
    assert result.scenario.master_schema == ("INSERT INTO t2 VALUES (3, 30, 'z')",)


COLUMNS = """\
name: columns
master_schema:
  - CREATE TABLE t (a INT NOT NULL, b INT, c VARCHAR(10), PRIMARY KEY (a), KEY kb (b, c)) ENGINE=InnoDB
slave_schema:
  - ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b)
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, 2, 'x'), (2, 3, 'y')"}
  - {session: con1, sql: "UPDATE t SET b = 3, c = 'y' WHERE a = 1 AND c = 'x' ORDER BY c LIMIT 1"}
  - {session: con1, sql: "INSERT INTO t (c, a) VALUES ('z', 5) ON DUPLICATE KEY UPDATE c = VALUES(c), b = a"}
  - {session: con1, sql: "DELETE FROM t WHERE b > 1 AND c <> 'q'"}
"""


def test_shrink_drops_columns_everywhere_they_appear(tmp_path: Path) -> None:
    scenario = scenario_from(tmp_path, COLUMNS)

    def needs(candidate: Scenario) -> bool:
        created = any("c VARCHAR(10)" in sql for sql in candidate.master_schema)
        return created and len(candidate.slave_schema) == 1 and len(candidate.steps) == 4

    result = shrink(scenario, needs)

    assert result.scenario.master_schema == ("CREATE TABLE t (c VARCHAR(10), INDEX kb (c)) ENGINE=InnoDB",)
    assert result.scenario.slave_schema == ("ALTER TABLE t DROP PRIMARY KEY",)
    assert [step.sql for step in result.scenario.steps] == [
        "INSERT INTO t VALUES ('x')",
        "UPDATE t SET c = 'y'",
        "INSERT INTO t (c) VALUES ('z') ON DUPLICATE KEY UPDATE c = VALUES(c)",
        "DELETE FROM t",
    ]


def test_a_column_a_statement_reads_stays(tmp_path: Path) -> None:
    scenario = scenario_from(
        tmp_path,
        """\
name: read
master_schema:
  - CREATE TABLE t (a INT, b INT) ENGINE=InnoDB
  - CREATE TABLE u (a INT) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, 2)"}
  - {session: con1, sql: "INSERT INTO u SELECT a FROM t"}
""",
    )

    result = shrink(scenario, lambda candidate: len(candidate.steps) == 2 and len(candidate.master_schema) == 2)

    assert result.scenario.master_schema == ("CREATE TABLE t (a INT) ENGINE=InnoDB", "CREATE TABLE u (a INT) ENGINE=InnoDB")
    assert [step.sql for step in result.scenario.steps] == ["INSERT INTO t VALUES (1)", "INSERT INTO u SELECT a FROM t"]


def test_the_budget_bounds_the_runs(tmp_path: Path) -> None:
    result = shrink(scenario_from(tmp_path, NOISE), lambda candidate: len(candidate.steps) >= 3, budget=4)

    assert result.runs == 4 and result.exhausted


LIMIT_AMONG_NOISE = """\
name: limit-among-noise
master_schema:
  - CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, c INT DEFAULT 0, d VARCHAR(10), PRIMARY KEY (a)) ENGINE=InnoDB
  - CREATE TABLE u (id INT PRIMARY KEY, v INT) ENGINE=InnoDB
  - CREATE TABLE m (x INT) ENGINE=MyISAM
  - INSERT INTO u VALUES (10, 100), (20, 200)
slave_schema:
  - ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b)
steps:
  - {session: con1, sql: "INSERT INTO t (a, b, d) VALUES (1, 20, 'one'), (2, 10, 'two'), (3, 30, 'three')"}
  - {session: con2, sql: "INSERT INTO u VALUES (1, 1), (2, 2)"}
  - {session: con1, sql: "INSERT INTO m VALUES (7)"}
  - {session: con2, sql: "UPDATE u SET v = v + 1 WHERE id = 1"}
  - {session: con1, sql: "BEGIN"}
  - {session: con1, sql: "UPDATE t SET d = 'uno' WHERE a = 1 AND b = 20"}
  - {session: con1, sql: "COMMIT"}
  - {session: con2, sql: "SELECT * FROM t ORDER BY a"}
  - {session: con2, sql: "DELETE FROM u WHERE id = 2"}
  - {session: con1, sql: "INSERT INTO m SELECT v FROM u"}
  - {session: con2, sql: "UPDATE t SET c = 1 LIMIT 1"}
  - {session: con1, sql: "INSERT INTO u VALUES (3, 30)"}
  - {session: con2, sql: "UPDATE m SET x = x + 1"}
  - {session: con1, sql: "DELETE FROM t WHERE a = 3"}
  - {session: con2, sql: "UPDATE u SET v = 0 WHERE id = 3"}
"""


def rows(snapshot: ServerSnapshot) -> dict[str, list[str]]:
    """Each table as a sorted multiset of canonical rows."""
    return {
        name: sorted(json.dumps([canonical(value) for value in row]) for row in table.rows)
        for name, table in snapshot.tables.items()
    }


def test_a_divergence_under_statement_shrinks_to_the_limit_update(tmp_path: Path) -> None:
    scenario = scenario_from(tmp_path, LIMIT_AMONG_NOISE)

    def diverges(candidate: Scenario) -> bool:
        record = run_variant(candidate, {"binlog_format": "STATEMENT"}, MYSQL_80, tmp_path)
        if record.error is not None or record.slave is None or not record.slave.running:
            return False
        return rows(record.master_snapshot) != rows(record.slave_snapshot)

    assert diverges(scenario)
    assert not diverges(without_step(scenario, 10))  # the UPDATE ... LIMIT 1 is the cause

    result = shrink(scenario, diverges)

    assert len(result.scenario.steps) <= 3
    assert "UPDATE t SET c = 1 LIMIT 1" in [step.sql for step in result.scenario.steps]
    assert [step.index for step in result.scenario.steps] == list(range(1, len(result.scenario.steps) + 1))
    assert diverges(result.scenario)
    assert not result.exhausted


def test_each_pass_says_what_it_tried_and_kept(tmp_path: Path) -> None:
    result = shrink(scenario_from(tmp_path, NOISE), lambda candidate: KEPT in [step.sql for step in candidate.steps])

    assert [stats.name for stats in result.passes] == ["sessions", "steps", "tables", "schema_statements", "rows", "columns", "clauses"]
    assert sum(stats.runs for stats in result.passes) == result.runs
    assert all(stats.runs <= stats.tried and stats.kept <= stats.tried for stats in result.passes)
    sessions = result.passes[0]
    assert sessions.kept >= 1  # con2 and con3 go
