"""A text column's character set and collation: its own CHARACTER SET / COLLATE, else its
table's DEFAULT CHARSET / COLLATE, else the database's (latin1 on MariaDB 10.11, utf8mb4
on MySQL 8.0); what the charset cannot hold is 1366, what the simulator does not model
1235. MariaDB's answers were recorded on 10.11.19 (SHOW CREATE TABLE, the errors)."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from server_sim.show_create import show_create_table
from tests.support import Db


@pytest.mark.parametrize(
    ("flavor", "ddl", "table_collation", "columns"),
    [
        (MARIADB_1011, "CREATE TABLE t (a CHAR(10), b TEXT)", "latin1_swedish_ci", ["latin1_swedish_ci", "latin1_swedish_ci"]),
        (MYSQL_80, "CREATE TABLE t (a CHAR(10), b TEXT)", "utf8mb4_0900_ai_ci", ["utf8mb4_0900_ai_ci", "utf8mb4_0900_ai_ci"]),
        (MARIADB_1011, "CREATE TABLE t (a CHAR(3), b VARCHAR(3) CHARACTER SET utf8mb4) DEFAULT CHARSET=utf8", "utf8mb3_general_ci", ["utf8mb3_general_ci", "utf8mb4_general_ci"]),
        (MYSQL_80, "CREATE TABLE t (a CHAR(3) CHARACTER SET utf8mb4) DEFAULT CHARSET=latin1", "latin1_swedish_ci", ["utf8mb4_0900_ai_ci"]),
        (MARIADB_1011, "CREATE TABLE t (a CHAR(3)) COLLATE latin1_general_ci", "latin1_general_ci", ["latin1_general_ci"]),
        (MARIADB_1011, "CREATE TABLE t (a VARCHAR(3) COLLATE latin1_general_ci, b TEXT CHARSET ascii) DEFAULT CHARSET=utf8mb4", "utf8mb4_general_ci", ["latin1_general_ci", "ascii_general_ci"]),
        (MARIADB_1011, "CREATE TABLE t (a CHAR(3) CHARACTER SET latin1 COLLATE latin1_general_ci, n INT)", "latin1_swedish_ci", ["latin1_general_ci", None]),
        (MYSQL_80, "CREATE TABLE t (n INT) COLLATE utf8mb4_bin", "utf8mb4_bin", [None]),
    ],
)
def test_a_text_column_takes_its_own_then_its_tables_then_its_databases_collation(flavor: Flavor, ddl: str, table_collation: str, columns: list[str | None]) -> None:
    db = Db(flavor=flavor)
    db.ok(ddl)
    table = db.server.catalog.tables["t"]
    assert table.collation == table_collation
    assert [column.type.collation for column in table.columns] == columns
    db.close()


@pytest.mark.parametrize(
    ("ddl", "error"),
    [
        ("CREATE TABLE t (a CHAR(3) CHARACTER SET koi8r)", 1235),
        ("CREATE TABLE t (a CHAR(3) COLLATE latin1_german1_ci)", 1235),
        ("CREATE TABLE t (a CHAR(3)) DEFAULT CHARSET=gbk", 1235),
        ("CREATE TABLE t (a CHAR(3) CHARACTER SET latin1 COLLATE utf8mb4_bin)", 1253),
        ("CREATE TABLE t (a INT CHARACTER SET latin1)", 1235),
        # Collations that tell case apart other than by code point (tests/server_sim/test_bin_collation.py).
        ("CREATE TABLE t (a CHAR(3) CHARACTER SET latin1 COLLATE latin1_bin)", 1235),
        ("CREATE TABLE t (a CHAR(3)) COLLATE latin1_bin", 1235),
        ("CREATE TABLE t (a CHAR(3)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_as_cs", 1235),
    ],
)
def test_a_charset_or_collation_not_modelled_is_refused(ddl: str, error: int) -> None:
    db = Db(flavor=MARIADB_1011)
    assert db.error(ddl).code == error
    db.close()


@pytest.mark.parametrize(
    ("column", "value", "error"),
    [
        ("CHAR(10)", "héllo €", None),  # latin1 is Windows-1252: the euro sign is 0x80
        ("CHAR(10)", "aΩb", 1366),
        ("VARCHAR(10) CHARACTER SET ascii", "é", 1366),
        ("VARCHAR(10) CHARACTER SET utf8mb3", "😀", 1366),
        ("VARCHAR(10) CHARACTER SET utf8mb4", "😀Ω", None),
        ("TEXT", "Ω", 1366),
    ],
)
def test_a_character_the_columns_charset_cannot_hold_is_1366_in_strict_mode(column: str, value: str, error: int | None) -> None:
    db = Db(flavor=MARIADB_1011)
    db.ok(f"CREATE TABLE t (a {column})")
    outcome = db.run(f"INSERT INTO t VALUES ('{value}')")
    assert (outcome.error.code if outcome.error else None) == error
    if error is not None:
        # As the server says it: the bytes from the first bad character, at most 6.
        assert "Incorrect string value: '\\x" in outcome.error.message
    db.close()


def test_show_create_table_names_the_tables_charset_and_a_columns_own() -> None:
    db = Db(flavor=MARIADB_1011)
    db.ok("CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(10), w CHAR(3) CHARACTER SET latin1 COLLATE latin1_general_ci) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
    assert show_create_table(db.server.catalog.tables["u"]) == (
        "CREATE TABLE `u` (`id` INT NOT NULL, `v` VARCHAR(10) DEFAULT NULL, `w` CHAR(3) CHARACTER SET latin1 COLLATE latin1_general_ci DEFAULT NULL,"
        " PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    )
    db.close()


def test_alter_table_default_charset_applies_to_the_columns_added_after() -> None:
    db = Db(flavor=MARIADB_1011)
    db.ok("CREATE TABLE t (a CHAR(3))")
    db.ok("ALTER TABLE t DEFAULT CHARSET=utf8mb4, ADD b CHAR(3)")
    table = db.server.catalog.tables["t"]
    assert (table.collation, [c.type.collation for c in table.columns]) == ("utf8mb4_general_ci", ["latin1_swedish_ci", "utf8mb4_general_ci"])
    db.close()


@pytest.mark.parametrize(
    ("table", "hex_value", "stored", "error"),
    [
        # MySQL's latin1: Windows-1252, its five undefined bytes the code points of the same number.
        ("l", "818D8F909D41E980FF", "\x81\x8d\x8f\x90\x9dAé€ÿ", None),
        ("u", "C3A941", "éA", None),
        ("u", "FF41", None, (1366, "Incorrect string value: '\\xFFA' for column 'a' at row 1")),
        ("b", "41E9", None, (1235, "This version of MySQL doesn't yet support 'a binary string with a byte above 0x7F stored into the ascii column 'a' (MariaDB stores '?' for it, quietly; MySQL's answer is not recorded)'")),
    ],
)
def test_a_binary_string_is_read_in_the_columns_charset(table: str, hex_value: str, stored: str | None, error: tuple[int, str] | None) -> None:
    """Recorded: binary-strings-into-text (it was decoded as UTF-8 with U+FFFD for what is not)."""
    db = Db(flavor=MARIADB_1011)
    for name, charset in (("l", "latin1"), ("u", "utf8mb4"), ("b", "ascii")):
        db.ok(f"CREATE TABLE {name} (a VARCHAR(20)) CHARSET {charset}")
    if error is None:
        db.ok(f"INSERT INTO {table} VALUES (UNHEX('{hex_value}'))")
        assert db.rows(table) == [(stored,)]
    else:
        failure = db.error(f"INSERT INTO {table} VALUES (UNHEX('{hex_value}'))")
        assert (failure.code, failure.message) == error
