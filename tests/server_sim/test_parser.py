"""The parser's inverse: a tree turned back into text keeps the keywords sqlglot never saw."""

from __future__ import annotations

import pytest

from server_sim.errors import SqlError
from server_sim.parser import parse_statement, unparse
from server_sim.statement import StatementKind


@pytest.mark.parametrize(
    "sql",
    [
        "REPLACE INTO dst SELECT k, v FROM src",
        "REPLACE INTO t (a) VALUES (1), (2)",
        "UPDATE IGNORE t SET u = 3 WHERE a = 1",
        "CREATE TABLE dst (k INT PRIMARY KEY) ENGINE=InnoDB IGNORE SELECT k, v FROM src",
        "CREATE TEMPORARY TABLE dst (k INT PRIMARY KEY) REPLACE SELECT k, v FROM src",
        "INSERT IGNORE INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES(a)",
        "CREATE TABLE t (a INT NOT NULL, PRIMARY KEY (a)) ENGINE=InnoDB",
    ],
)
def test_unparse_gives_the_statement_back(sql: str) -> None:
    statement = parse_statement(sql)

    text = unparse(statement, statement.ast)

    assert text == sql
    again = parse_statement(text)
    assert (again.kind, again.write_mode, again.ast) == (statement.kind, statement.write_mode, statement.ast)


@pytest.mark.parametrize(
    ("sql", "kind", "error"),
    [
        ("/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */", "SET", None),
        ("/*!40101 SET NAMES utf8mb4 */", "SET", None),
        ("/*! INSERT INTO t VALUES (1) */", "INSERT", None),
        ("/*!80039 INSERT INTO t VALUES (1) */", "INSERT", None),
        ("/*!90000 INSERT INTO t VALUES (1) */", None, 1235),  # for a server newer than those simulated
        ("SELECT @@session.timestamp, @@local.timestamp, @@timestamp", "SELECT", None),
        ("SET @@session.timestamp = 5", "SET", None),
        ("SELECT '@@session.timestamp', @@session.timestamp", "SELECT", None),
    ],
)
def test_forms_dump_files_and_drivers_send(sql: str, kind: str | None, error: int | None) -> None:
    try:
        statement = parse_statement(sql)
    except SqlError as raised:
        assert raised.code == error
        return
    assert error is None
    assert statement.kind.value == kind
    assert statement.sql == sql  # what the binlog carries: the statement as sent


def test_a_session_scope_cut_keeps_string_literals() -> None:
    statement = parse_statement("SELECT '@@session.timestamp', @@session.timestamp")
    assert statement.ast.expressions[0].this == "@@session.timestamp"


@pytest.mark.parametrize(
    ("sql", "pairs"),
    [
        ("RENAME TABLE a TO b", [("", "a", "", "b")]),
        ("rename table a to b, `C d` TO test.e", [("", "a", "", "b"), ("", "C d", "test", "e")]),
        ("RENAME TABLE test.a TO `x``y`", [("test", "a", "", "x`y")]),
    ],
)
def test_rename_table_pairs(sql: str, pairs: list[tuple[str, str, str, str]]) -> None:
    statement = parse_statement(sql)
    assert statement.kind is StatementKind.RENAME_TABLE
    assert [(old.db, old.name, new.db, new.name) for old, new in statement.renames] == pairs


@pytest.mark.parametrize("sql", ["RENAME TABLE a b", "RENAME TABLE a TO b,", "RENAME TABLE a TO b c", "RENAME TABLE"])
def test_malformed_rename_table_is_1064(sql: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    assert raised.value.code == 1064
