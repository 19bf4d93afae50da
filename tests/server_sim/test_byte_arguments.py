"""The functions that read a string's bytes (LENGTH, HEX, MD5, SHA1, SHA2, CRC32, ASCII,
ORD, AES_ENCRYPT, CAST AS BINARY) read text in its character set: a latin1 column's 'é'
is the byte E9, a utf8mb4 column's the bytes C3 A9, a binary column's bytes are its own.
Recorded on MariaDB 10.11: scenarios/oracle/byte-functions-and-aes.yaml."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
@pytest.mark.parametrize(
    ("expression", "answer"),
    [
        ("LENGTH(l)", 1),
        ("LENGTH(u)", 2),
        ("LENGTH(b)", 1),
        ("CHAR_LENGTH(u)", 1),
        ("HEX(l)", "E9"),
        ("HEX(u)", "C3A9"),
        ("HEX(b)", "E9"),
        ("MD5(l)", "3406877694691ddd1dfb0aca54681407"),
        ("MD5(u)", "66ddcd97cfdeabb2f6fb8a999b4bc76f"),
        ("CRC32(l)", 198489425),
        ("ASCII(u)", 195),
        ("ORD(l)", 233),
        ("ORD(u)", 50089),
        ("LENGTH(CONCAT(l, 'é'))", 2),  # the literal is converted to the column's latin1
        ("HEX(CAST(l AS BINARY))", "E9"),
        ("HEX(BINARY u)", "C3A9"),
        ("LENGTH('é')", 2),  # a literal: character_set_connection (utf8mb4)
        ("HEX(5)", "5"),
        ("LENGTH(12.50)", 5),
    ],
)
def test_bytes_of_text_are_those_of_its_character_set(flavor, fast_path: bool, expression: str, answer: object) -> None:
    db = Db(flavor=flavor, fast_path=fast_path)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, l VARCHAR(10) CHARACTER SET latin1, u VARCHAR(10) CHARACTER SET utf8mb4, b VARBINARY(10))")
    db.ok("INSERT INTO t VALUES (1, 'é', 'é', UNHEX('E9'))")
    assert db.ok(f"SELECT {expression} FROM t").rows == [(answer,)]
    db.close()


def test_text_of_columns_of_two_character_sets_is_refused_where_it_is_not_ascii() -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, l VARCHAR(10) CHARACTER SET latin1, u VARCHAR(10) CHARACTER SET utf8mb4)")
    db.ok("INSERT INTO t VALUES (1, 'a', 'b'), (2, 'é', 'é')")
    assert db.ok("SELECT HEX(CONCAT(l, u)) FROM t WHERE id = 1").rows == [("6162",)]
    error = db.error("SELECT HEX(CONCAT(l, u)) FROM t WHERE id = 2")
    assert (error.code, error.message) == (1235, "This version of MySQL doesn't yet support 'the bytes of text that is not ASCII, whose character set the simulator cannot tell here'")
    db.close()
