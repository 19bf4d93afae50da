"""Executable comments read as each server's lexer reads them (sql_lex.cc): what the
parser runs, what the binlog carries, and the syntax errors. MariaDB's rows are checked
against the real server in scenarios/oracle/executable-comments.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from server_sim.errors import SqlError
from server_sim.flavor import FLAVORS
from server_sim.parser import parse_statement
from tests.support import run_command, scenario_file

INSERT = "INSERT INTO t VALUES (1, 'x')"


@pytest.mark.parametrize(
    ("flavor", "comment", "runs", "logged"),
    [
        ("mysql-8.0", "/*! , (2, 'y') */", True, None),
        ("mariadb-10.11", "/*! , (2, 'y') */", True, None),
        ("mysql-8.0", "/*!40101 , (2, 'y') */", True, None),
        ("mysql-8.0", "/*!50700 , (2, 'y') */", True, None),
        ("mariadb-10.11", "/*!50700 , (2, 'y') */", False, "/* 50700 , (2, 'y') */"),  # MySQL 5.7's versions
        ("mariadb-10.11", "/*!99999 , (2, 'y') */", False, "/* 99999 , (2, 'y') */"),
        ("mysql-8.0", "/*!80039 , (2, 'y') */", True, None),
        ("mysql-8.0", "/*!80040 , (2, 'y') */", False, "/* 80040 , (2, 'y') */"),
        ("mariadb-10.11", "/*!101100 , (2, 'y') */", True, None),  # six digits on MariaDB
        ("mariadb-10.11", "/*!101100, (2, 'y') */", True, None),
        ("mariadb-10.11", "/*!400011 , (2, 'y') */", False, "/* 400011 , (2, 'y') */"),
        ("mariadb-10.11", "/*!999999 , (2, 'y') */", False, "/* 999999 , (2, 'y') */"),
        ("mariadb-10.11", "/*M! , (2, 'y') */", True, None),
        ("mariadb-10.11", "/*M!100000 , (2, 'y') */", True, None),
        ("mariadb-10.11", "/*M!50700 , (2, 'y') */", True, None),  # /*M! runs 5.7's versions
        ("mariadb-10.11", "/*M!999999 , (2, 'y') */", False, "/*M 999999 , (2, 'y') */"),
        ("mysql-8.0", "/*M! , (2, 'y') */", False, None),  # a plain comment to MySQL
        ("mysql-8.0", "/*M!100000 , (2, 'y') */", False, None),
        ("mariadb-10.11", "/*!90000 , (2, 'y') /* inner */ */", False, "/* 90000 , (2, 'y') (* inner *) */"),
        ("mysql-8.0", "/*!40101 , (2, 'y') /* inner */ */", True, None),
        ("mysql-8.0", "/*+ BKA(t) */", False, None),  # an optimizer hint keeps its treatment
        ("mysql-8.0", "/* plain , (2, 'y') */", False, None),
    ],
)
def test_an_executable_comment_runs_when_the_server_runs_it(flavor: str, comment: str, runs: bool, logged: str | None) -> None:
    statement = parse_statement(f"{INSERT} {comment}", FLAVORS[flavor].comment_rules)

    assert len(statement.ast.expression.expressions) == (2 if runs else 1)
    assert statement.sql == f"{INSERT} {logged or comment}"


@pytest.mark.parametrize(
    ("sql", "near"),
    [
        (f"{INSERT} /*!1011 , (2, 'y') */", "1011 , (2, 'y') */"),  # four digits: no version, the text runs
        ("SELECT 1 /*! , 2", ""),
        ("SELECT 1 /*!99999 x", "/*!99999 x"),
        ("SELECT 1 /*!99999 x /* y", "/*!99999 x /* y"),
    ],
)
def test_a_broken_executable_comment_is_a_syntax_error_near_the_server_s_text(sql: str, near: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql, FLAVORS["mariadb-10.11"].comment_rules)

    assert raised.value.code == 1064
    assert f"near '{near}' at line 1" in raised.value.message


@pytest.mark.parametrize(
    ("sql", "columns"),
    [("SELECT '/*!', 2", 2), ("SELECT \"/*! */\", `/*!x`", 2), ("SELECT 1 -- /*! , 2\n", 1), ("SELECT 1 # /*! , 2\n", 1)],
)
def test_quoted_text_and_line_comments_hold_no_executable_comment(sql: str, columns: int) -> None:
    statement = parse_statement(sql, FLAVORS["mysql-8.0"].comment_rules)

    assert statement.sql == sql.strip()
    assert len(statement.ast.expressions) == columns


@pytest.mark.parametrize(("flavor", "rows"), [("mysql-8.0", 3), ("mariadb-10.11", 2)])
def test_run_inserts_the_rows_of_an_executable_comment(tmp_path: Path, flavor: str, rows: int) -> None:
    path = scenario_file(
        tmp_path,
        """\
        name: comments
        matrix: {binlog_format: [STATEMENT]}
        master_schema:
          - CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))
        steps:
          - {session: con1, sql: "INSERT INTO t VALUES (6, 'x') /*! , (7, 'y') */ /*!50700 , (8, 'z') */"}
          - {session: con1, sql: "SELECT COUNT(*) FROM t"}
        expect:
          - verdict: consistent
        """,
        dedent=True,
    )

    code, report = run_command(tmp_path / "out", str(path), "--flavor", flavor, "--compare", "python")

    assert code == 0
    steps = report["runs"][0]["steps"]
    assert steps[0]["affected_rows"] == rows


@pytest.mark.parametrize("sql", ["/*!90000 INSERT INTO t VALUES (1) */", "/*M!100000 INSERT INTO t VALUES (1) */ /* and a note */"])
def test_a_statement_of_skipped_comments_only_is_not_modelled(sql: str) -> None:
    """The server answers OK and does nothing; the simulator says it does not model that."""
    with pytest.raises(SqlError) as raised:
        parse_statement(sql, FLAVORS["mysql-8.0"].comment_rules)

    assert raised.value.code == 1235
