"""The parser's inverse: a tree turned back into text keeps the keywords sqlglot never saw."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from server_sim.errors import SqlError
from server_sim.parser import (
    DML_CLAUSES,
    SELECT_CLAUSES,
    parse_statement,
    refuse_unread_clauses,
    unparse,
)
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


# Every argument sqlglot's trees can carry on the statements the simulator accepts is read,
# or the statement is refused with 1235 naming it: nothing reaches the executor unread.
_QUERY = "SELECT a FROM t WHERE a IN (SELECT a FROM t)"
_DML = {exp.Insert: "INSERT INTO t VALUES (1)", exp.Update: "UPDATE t SET a = 1", exp.Delete: "DELETE FROM t"}


def test_the_clauses_read_are_sqlglot_s() -> None:
    """A clause renamed by a new sqlglot would otherwise be read as absent."""
    assert SELECT_CLAUSES <= set(exp.Select.arg_types)
    for node, clauses in DML_CLAUSES.items():
        assert clauses <= set(node.arg_types), node.__name__


@pytest.mark.parametrize("clause", sorted(set(exp.Select.arg_types) - SELECT_CLAUSES))
@pytest.mark.parametrize("nested", [False, True], ids=["top", "subquery"])
def test_every_select_clause_not_read_is_refused(clause: str, nested: bool) -> None:
    tree = sqlglot.parse_one(_QUERY, read="mysql")
    select = tree.find(exp.Subquery).this if nested else tree
    select.set(clause, True)
    with pytest.raises(SqlError) as refused:
        refuse_unread_clauses(tree)
    assert refused.value.code == 1235 and f"SELECT with {clause.rstrip('_').upper().replace('_', ' ')}" in refused.value.message


@pytest.mark.parametrize(
    ("node", "clause"), [(node, clause) for node, clauses in DML_CLAUSES.items() for clause in sorted(set(node.arg_types) - clauses)], ids=str
)
def test_every_dml_clause_not_read_is_refused(node: type[exp.Expression], clause: str) -> None:
    tree = sqlglot.parse_one(_DML[node], read="mysql")
    assert isinstance(tree, node)
    tree.set(clause, True)
    with pytest.raises(SqlError) as refused:
        refuse_unread_clauses(tree)
    assert refused.value.code == 1235 and f"with {clause.rstrip('_').upper().replace('_', ' ')}" in refused.value.message


@pytest.mark.parametrize(
    ("sql", "near"),
    [
        ("SELECT 1 FROM dual, t", ", t"),  # DUAL first: the grammar wants the end of FROM after it
        ("SELECT 1 FROM t, dual", "dual"),  # a reserved word where a table belongs
        ("SELECT 1 FROM t JOIN dual", "dual"),
        ("SELECT 1 FROM dual AS d", "AS d"),
    ],
)
def test_dual_beside_a_table_is_a_syntax_error(sql: str, near: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    assert raised.value.code == 1064 and f"near '{near}' at line 1" in raised.value.message


def test_from_dual_alone_is_no_table() -> None:
    tables = parse_statement("INSERT INTO t SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM t)").ast.find_all(exp.Table)
    assert [table.name for table in tables] == ["t", "t"]
