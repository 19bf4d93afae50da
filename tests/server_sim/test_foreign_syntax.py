"""Syntax of other dialects (DuckDB's, PostgreSQL's) that sqlglot's MySQL dialect reads and
the servers do not: refused with the server's 1064 and its near text, as MariaDB 10.11
gives it (each row checked on the server; scenarios/oracle/foreign-syntax-refused.yaml
records the codes), instead of being run."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from server_sim.errors import SqlError
from server_sim.parser import parse_statement
from tests.support import Db, scenario_file


@pytest.mark.parametrize(
    ("sql", "near"),
    [
        ("SELECT 1::TEXT", "::TEXT"),
        ("SELECT a::INT FROM t", "::INT FROM t"),
        ("SELECT a FROM t GROUP BY ALL", "ALL"),
        ("SELECT a FROM t ORDER BY ALL", "ALL"),
        ("SELECT a FROM t LIMIT ALL", "ALL"),
        ("FROM t SELECT a", "FROM t SELECT a"),
        ("SELECT * EXCLUDE (b) FROM t", "EXCLUDE (b) FROM t"),
        ("SELECT * REPLACE (a+1 AS a) FROM t", "REPLACE (a+1 AS a) FROM t"),
        ("SELECT * FROM t WHERE a IN [1,2]", "[1,2]"),
        ("SELECT [1,2]", "[1,2]"),
        ("SELECT {'a':1}", "'a':1}"),
        ("SELECT a FROM t WHERE a IN (1,2,)", ")"),
        ("SELECT a !~~ 'x' FROM t", "!~~ 'x' FROM t"),
        ("SELECT 'a' ~~ 'a'", "~~ 'a'"),
        ("SELECT 'a' ILIKE 'A'", "'A'"),
        ("SELECT TRY_CAST(a AS INT) FROM t", "INT) FROM t"),
        ("SELECT CAST(a AS TEXT) FROM t", "TEXT) FROM t"),
        ("SELECT CAST(a AS VARCHAR) FROM t", ") FROM t"),
        ("SELECT CONVERT(a, BIGINT) FROM t", "BIGINT) FROM t"),
        ("SELECT * FROM t WHERE a BETWEEN SYMMETRIC 2 AND 1", "2 AND 1"),
        ("SELECT a FROM t ORDER BY a NULLS FIRST", "NULLS FIRST"),
        ("SELECT a FROM t UNION BY NAME SELECT a FROM t", "BY NAME SELECT a FROM t"),
        ("SELECT a FROM t QUALIFY a > 1", "a > 1"),
        ("SELECT 1 FROM t WHERE b SIMILAR TO 'x'", "SIMILAR TO 'x'"),
        ("SELECT 'a' GLOB 'a'", "'a'"),
        ("SELECT a FROM t WHERE a IS DISTINCT FROM 1", "DISTINCT FROM 1"),
        ("SELECT 1 FROM t USING SAMPLE 10%", "USING SAMPLE 10%"),
        ("SELECT 1 FROM t x(y)", "(y)"),
        ("SELECT #t.a FROM t", ""),
        ("UPDATE t SET b = 1::TEXT", "::TEXT"),
        ("INSERT INTO t SELECT 3, 1::TEXT", "::TEXT"),
    ],
)
def test_foreign_syntax_is_a_syntax_error_near_the_server_s_text(sql: str, near: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)

    assert raised.value.code == 1064
    assert f"near '{near}' at line 1" in raised.value.message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a FROM t WHERE a IN (1, 2)",
        "SELECT CAST(a AS CHAR(3)), CAST(a AS SIGNED), CONVERT(b USING utf8mb4), CONVERT(a, DECIMAL(5,2)) FROM t",
        "SELECT '{\"a\": [1]}', '::', 'x ~~ y', 'NULLS FIRST', '(1,)' FROM t",
        "SELECT ALL a FROM t",
        "SELECT a FROM t WHERE a = ALL (SELECT a FROM t)",
        "SELECT a FROM t ORDER BY a DESC",
        "SELECT t.* FROM t",
        "SELECT ~a, a ^ 1 FROM t",
        "SELECT a FROM t WHERE NOT a <=> 1",
    ],
)
def test_mysql_syntax_with_the_same_characters_still_parses(sql: str) -> None:
    assert parse_statement(sql).ast is not None


@pytest.mark.parametrize(("sql", "name"), [("SELECT $$abc$$ FROM t", "$$abc$$"), ("SELECT $1", "$1"), ("SELECT a FROM t WHERE a = $x", "$x")])
def test_a_dollar_name_is_a_name_as_on_the_server(db: Db, sql: str, name: str) -> None:
    db.ok("CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10))")

    error = db.error(sql)

    assert (error.code, error.message) == (1054, f"Unknown column '{name}' in 'field list'")


def test_a_dollar_named_column_is_read(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT PRIMARY KEY, `$x` INT)")
    db.ok("INSERT INTO t VALUES (1, 5)")

    assert db.run("SELECT $x FROM t WHERE a = 1").rows == [(5,)]


@pytest.mark.parametrize("sql", ["SELECT * FROM t ASOF JOIN t x ON t.a >= x.a", "SELECT * FROM t SEMI JOIN t x ON t.a = x.a"])
def test_a_join_word_the_servers_read_as_an_alias_is_not_modelled(sql: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)

    assert raised.value.code == 1235


@pytest.mark.parametrize("sql", ["INSERT INTO t SELECT 3, 1::TEXT", "UPDATE t SET b = a::TEXT", "DELETE FROM t WHERE a IN [1]"])
def test_explain_refuses_foreign_syntax(capsys: pytest.CaptureFixture[str], tmp_path: Path, sql: str) -> None:
    schema = scenario_file(tmp_path, "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10));\n", "schema.sql")

    assert main(["explain", "--schema", str(schema), sql]) == 2
    assert "ERROR 1064 (ER_PARSE_ERROR)" in capsys.readouterr().err
