"""The parser's inverse: a tree turned back into text keeps the keywords sqlglot never saw."""

from __future__ import annotations

import pytest

from server_sim.parser import parse_statement, unparse


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
