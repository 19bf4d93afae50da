"""The lexical rules the importers share: where a statement ends, whether it was cut
inside a string, executable comments unwrapped as each server runs them."""

from __future__ import annotations

import pytest

from harness.importers.classify import Kind, kind_of
from harness.importers.text import delimiter_end, open_quote, split_sql, unwrap_versioned_comments


@pytest.mark.parametrize(
    ("script", "statements"),
    [
        ("CREATE TABLE t (a INT); INSERT INTO t VALUES (1)", [("CREATE TABLE t (a INT)", 1), ("INSERT INTO t VALUES (1)", 1)]),
        ("-- header\n\nINSERT INTO t VALUES ('a;b''c')", [("INSERT INTO t VALUES ('a;b''c')", 3)]),
        ("INSERT INTO t VALUES ('x\\';y');\nSELECT 1", [("INSERT INTO t VALUES ('x\\';y')", 1), ("SELECT 1", 2)]),
        ("DELIMITER ;;\nCREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END;;\nDELIMITER ;\nSELECT 2;",
         [("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END", 2), ("SELECT 2", 4)]),
        ("SELECT `a;b` FROM t /* ; */; # c;\nSELECT 3", [("SELECT `a;b` FROM t /* ; */", 1), ("SELECT 3", 2)]),
    ],
    ids=["two-on-a-line", "leading-comment", "escaped-quote", "delimiter", "identifier-and-comments"],
)  # fmt: skip
def test_a_script_splits_into_its_statements_with_their_lines(script: str, statements: list[tuple[str, int]]) -> None:
    assert split_sql(script) == statements


@pytest.mark.parametrize(
    ("sql", "still_open"),
    [("INSERT INTO t VALUES ('a", "'"), ("SELECT \"x", '"'), ("SELECT 1 /* note", "*/"), ("SELECT 'it''s'", None), ("SELECT 1 -- done", None)],
)
def test_a_statement_cut_inside_a_string_is_seen(sql: str, still_open: str | None) -> None:
    assert open_quote(sql) == still_open


@pytest.mark.parametrize(("text", "end"), [("SELECT 1;", 9), ("SELECT ';'", None), ("SELECT 1 -- x;", None), ("a|b", 2)])
def test_where_a_delimiter_ends_a_statement(text: str, end: int | None) -> None:
    assert delimiter_end(text, "|" if "|" in text else ";") == end


@pytest.mark.parametrize(
    ("sql", "flavor", "executed"),
    [
        ("/*!40101 SET NAMES utf8mb4 */", "mariadb-10.11", "SET NAMES utf8mb4 "),
        ("/*!80016 SET x = 1 */", "mariadb-10.11", ""),  # MariaDB skips MySQL 5.7 and later versions
        ("/*!80016 SET x = 1 */", "mysql-8.0", "SET x = 1 "),
        ("/*M!80016 SET x = 1 */", "mariadb-10.11", "SET x = 1 "),
        ("/*M!100616 SET y = 2 */", "mysql-8.0", ""),
        ("/*M!100616 SET y = 2 */", "mariadb-10.11", "SET y = 2 "),
        ("/*!90000 SET z = 3 */", "mysql-8.0", ""),
        ("/*!50003 CREATE*/ /*!50017 DEFINER=`r`@`h`*/ /*!50003 TRIGGER tr */", "mysql-8.0", "CREATE DEFINER=`r`@`h` TRIGGER tr "),
        ("SELECT '/*!40101 not a comment */'", "mariadb-10.11", "SELECT '/*!40101 not a comment */'"),
    ],
)
def test_executable_comments_run_as_the_server_runs_them(sql: str, flavor: str, executed: str) -> None:
    assert unwrap_versioned_comments(sql, flavor) == executed


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("INSERT INTO t VALUES (1)", Kind.DATA),
        ("/* app */ UPDATE t SET a = 1", Kind.DATA),
        ("START TRANSACTION", Kind.TRANSACTION),
        ("SELECT * FROM t", Kind.READ),
        ("SELECT * FROM t WHERE id = 1 FOR UPDATE", Kind.LOCKING_READ),
        ("SELECT a INTO @x FROM t", Kind.LOCKING_READ),
        ("SELECT GET_LOCK('l', 1)", Kind.LOCKING_READ),
        ("SET NAMES utf8mb4", Kind.READ),
        ("SET autocommit = 0", Kind.SETTING),
        ("SHOW TABLES", Kind.READ),
        ("USE shop", Kind.DATABASE),
        ("CREATE DATABASE shop", Kind.DATABASE),
        ("ALTER TABLE t ADD COLUMN b INT", Kind.DDL),
        ("EXECUTE s USING @a", Kind.PREPARED),
        ("CALL p()", Kind.OTHER),
    ],
)
def test_what_a_statement_is_to_replication(sql: str, kind: Kind) -> None:
    assert kind_of(sql) is kind
