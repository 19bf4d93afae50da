"""The executor's multi-table UPDATE and DELETE.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import pytest

from server_sim.execute.executor import Executor
from server_sim.flavor import MARIADB_1011
from server_sim.parser import parse_statement
from server_sim.server import Server
from tests.support import MASTER, Db


MULTI_TABLE_SCHEMA = [
    "CREATE TABLE t1 (id INT PRIMARY KEY, a INT) ENGINE=InnoDB",
    "CREATE TABLE t2 (id INT PRIMARY KEY, k INT, b INT) ENGINE=InnoDB",
    "INSERT INTO t1 VALUES (1, 10), (2, 20), (3, 30)",
    "INSERT INTO t2 VALUES (1, 3, 100), (2, 1, 200), (3, 1, 300), (4, 2, 400)",
]


@pytest.fixture
def joined(db: Db) -> Db:
    for sql in MULTI_TABLE_SCHEMA:
        db.ok(sql)
    return db


@pytest.mark.parametrize(
    ("form", "sql", "t1", "t2"),
    [
        ("table-list", "UPDATE t1, t2 SET t1.a = 0 WHERE t1.id = t2.k AND t2.b > 250", [(1, 0), (2, 0), (3, 30)], None),
        ("join-on", "UPDATE t1 JOIN t2 ON t1.id = t2.k SET t1.a = 0 WHERE t2.b > 250", [(1, 0), (2, 0), (3, 30)], None),
        ("inner-join-aliases", "UPDATE t1 AS x INNER JOIN t2 y ON x.id = y.k SET x.a = 0 WHERE y.b > 250", [(1, 0), (2, 0), (3, 30)], None),
        ("left-join", "UPDATE t1 LEFT JOIN t2 ON t1.id = t2.k AND t2.b > 350 SET t1.a = COALESCE(t2.b, -1)", [(1, -1), (2, 400), (3, -1)], None),
        ("unqualified-column", "UPDATE t1, t2 SET a = 0, b = 0 WHERE t1.id = 3 AND t2.k = 3", [(1, 10), (2, 20), (3, 0)], [(1, 3, 0), (2, 1, 200), (3, 1, 300), (4, 2, 400)]),
        ("delete-both", "DELETE t1, t2 FROM t1 JOIN t2 ON t1.id = t2.k WHERE t1.id = 1", [(2, 20), (3, 30)], [(1, 3, 100), (4, 2, 400)]),
        ("delete-one-from-table-list", "DELETE t1 FROM t1, t2 WHERE t1.id = t2.k AND t2.b = 100", [(1, 10), (2, 20)], None),
        ("delete-using", "DELETE FROM t2 USING t1 JOIN t2 WHERE t1.id = t2.k AND t1.a = 10", None, [(1, 3, 100), (4, 2, 400)]),
        ("delete-alias", "DELETE y FROM t1 AS x JOIN t2 AS y ON x.id = y.k WHERE x.id = 2", None, [(1, 3, 100), (2, 1, 200), (3, 1, 300)]),
    ],
)
def test_multi_table_forms(joined: Db, form: str, sql: str, t1: list[tuple] | None, t2: list[tuple] | None) -> None:
    joined.ok(sql)
    assert joined.rows("t1") == (t1 if t1 is not None else [(1, 10), (2, 20), (3, 30)])
    assert joined.rows("t2") == (t2 if t2 is not None else [(1, 3, 100), (2, 1, 200), (3, 1, 300), (4, 2, 400)])


def test_multi_table_update_changes_a_row_reached_twice_once_with_the_first_value(joined: Db) -> None:
    outcome = joined.ok("UPDATE t1 JOIN t2 ON t1.id = t2.k SET t1.a = t2.b, t2.b = t2.b + 1")
    # t1 changes during the scan; t2 afterwards, in the order the join first reached its rows.
    assert [(c.table.name, c.before, c.after) for c in outcome.changes] == [
        ("t1", (1, 10), (1, 200)),
        ("t1", (2, 20), (2, 400)),
        ("t1", (3, 30), (3, 100)),
        ("t2", (2, 1, 200), (2, 1, 201)),
        ("t2", (3, 1, 300), (3, 1, 301)),
        ("t2", (4, 2, 400), (4, 2, 401)),
        ("t2", (1, 3, 100), (1, 3, 101)),
    ]
    assert outcome.affected_rows == 7


def test_multi_table_update_reading_its_own_written_column_changes_tables_in_listed_order(joined: Db) -> None:
    outcome = joined.ok("UPDATE t2, t1 SET t1.a = t1.a + 1, t2.b = t2.b + 1 WHERE t1.id = t2.k AND t2.id IN (1, 4)")
    # t1, smaller, is scanned first: the join reaches t2's row 4 (through t1's row 2) before row 1.
    assert [(c.table.name, c.after) for c in outcome.changes] == [("t2", (4, 2, 401)), ("t2", (1, 3, 101)), ("t1", (2, 21)), ("t1", (3, 31))]


def test_multi_table_update_logs_nothing_for_unchanged_rows(joined: Db) -> None:
    outcome = joined.ok("UPDATE t1, t2 SET t1.a = 30, t2.b = t2.b WHERE t1.id = t2.k AND t1.id = 3")
    assert outcome.changes == [] and outcome.affected_rows == 0


def test_multi_table_delete_removes_later_tables_in_row_order(joined: Db) -> None:
    outcome = joined.ok("DELETE t2, t1 FROM t1 JOIN t2 ON t1.id = t2.k WHERE t1.id < 3")
    assert [(c.table.name, c.before) for c in outcome.changes] == [
        ("t1", (1, 10)), ("t1", (2, 20)), ("t2", (2, 1, 200)), ("t2", (3, 1, 300)), ("t2", (4, 2, 400)),
    ]
    assert outcome.affected_rows == 5


def test_multi_table_update_duplicate_key_fails_and_ignore_skips_the_row(joined: Db) -> None:
    error = joined.error("UPDATE t1 JOIN t2 ON t1.id = t2.k SET t2.id = t1.id WHERE t1.id = 1")
    assert (error.code, error.name) == (1062, "ER_DUP_ENTRY")
    outcome = joined.ok("UPDATE IGNORE t1 JOIN t2 ON t1.id = t2.k SET t2.id = t2.id + 10 * t1.id WHERE t1.id > 1")
    assert outcome.warnings == [] and outcome.affected_rows == 2
    # Row 2 already has id 2 (unchanged, nothing to check); row 3 would duplicate it.
    outcome = joined.ok("UPDATE IGNORE t1 JOIN t2 ON t1.id = t2.k SET t2.id = 2 WHERE t1.id = 1")
    assert [w.code for w in outcome.warnings] == [1062] and outcome.changes == []


@pytest.mark.parametrize(
    ("case", "sql", "code", "name"),
    [
        ("update-order-by", "UPDATE t1, t2 SET t1.a = 1 ORDER BY t1.id", 1221, "ER_WRONG_USAGE"),
        ("update-limit", "UPDATE t1 JOIN t2 ON t1.id = t2.k SET t1.a = 1 LIMIT 1", 1221, "ER_WRONG_USAGE"),
        ("delete-order-by", "DELETE t1 FROM t1, t2 ORDER BY t1.id", 1064, "ER_PARSE_ERROR"),
        ("delete-limit", "DELETE FROM t1 USING t1, t2 LIMIT 1", 1064, "ER_PARSE_ERROR"),
        ("ambiguous-column", "UPDATE t1, t2 SET id = 1", 1052, "ER_NON_UNIQ_ERROR"),
        ("unknown-column", "UPDATE t1, t2 SET t1.nope = 1", 1054, "ER_BAD_FIELD_ERROR"),
        ("table-hidden-by-alias", "UPDATE t1 AS x, t2 SET t1.a = 1", 1054, "ER_BAD_FIELD_ERROR"),
        ("unknown-delete-target", "DELETE t3 FROM t1, t2", 1109, "ER_UNKNOWN_TABLE"),
        ("alias-twice", "UPDATE t1 AS x, t2 AS x SET x.a = 1", 1066, "ER_NONUNIQ_TABLE"),
        ("missing-table", "UPDATE t1, nope SET t1.a = 1", 1146, "ER_NO_SUCH_TABLE"),
        ("one-table-under-two-names", "UPDATE t1 AS x, t1 AS y SET x.a = 1, y.a = 2", 1235, "ER_NOT_SUPPORTED_YET"),
    ],
)
def test_multi_table_errors(joined: Db, case: str, sql: str, code: int, name: str) -> None:
    error = joined.error(sql)
    assert (error.code, error.name) == (code, name)
    assert joined.rows("t1") == [(1, 10), (2, 20), (3, 30)]


def test_multi_table_update_order_by_is_not_modelled_for_mariadb() -> None:
    server = Server(MARIADB_1011, MASTER)
    try:
        session = server.new_session("root@localhost")
        executor = Executor(server)
        for sql in [*MULTI_TABLE_SCHEMA, "UPDATE t1, t2 SET t1.a = 1 LIMIT 1"]:
            outcome = executor.run(session, parse_statement(sql), server.statement_context(session, server.tick()))
    finally:
        server.close()
    assert outcome.error is not None and outcome.error.code == 1235
