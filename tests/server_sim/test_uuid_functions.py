"""UUID_TO_BIN, BIN_TO_UUID and IS_UUID: MySQL 8.0's answers as its own recorded results
give them (mysql-test/r/func_uuid.result); MariaDB 10.11 has none of them (1305)."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db


@pytest.fixture
def db() -> Db:
    server = Db(flavor=MYSQL_80)
    server.ok("CREATE TABLE t (a BINARY(16), s VARCHAR(40))")
    server.ok("INSERT INTO t VALUES (UNHEX('7f9d04ae61b34468ac798ffcc984ab68'), 'x'), (UNHEX('c8eb4b15cb0948bbbbb2e6a0b6b4d5c7'), '{12345678-1234-5678-1234-567812345678}')")
    return server


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("SELECT HEX(uuid_to_bin('{c8eb4b15-cb09-48bb-bbb2-e6a0b6b4d5c7}', TRUE))", [("48BBCB09C8EB4B15BBB2E6A0B6B4D5C7",)]),
        ("SELECT HEX(uuid_to_bin('c8eb4b15cb0948bbbbb2e6a0b6b4d5c7'))", [("C8EB4B15CB0948BBBBB2E6A0B6B4D5C7",)]),
        ("SELECT HEX(uuid_to_bin('{c8eb4b15-CB09-48bb-bbb2-e6a0b6b4d5c7}'))", [("C8EB4B15CB0948BBBBB2E6A0B6B4D5C7",)]),
        ("SELECT bin_to_uuid(unhex('7f9d04ae61b34468ac798ffcc984ab68')) AS a, bin_to_uuid(unhex('7f9d04ae61b34468ac898ffcc984ab68'),TRUE) AS b",
         [("7f9d04ae-61b3-4468-ac79-8ffcc984ab68", "61b34468-04ae-7f9d-ac89-8ffcc984ab68")]),
        ("SELECT bin_to_uuid(x'7f9d04ae61b34468ac798ffcc984ab68', TRUE)", [("61b34468-04ae-7f9d-ac79-8ffcc984ab68",)]),
        ("SELECT bin_to_uuid(NULL), bin_to_uuid(NULL, TRUE), uuid_to_bin(NULL), is_uuid(NULL)", [(None, None, None, None)]),
        ("SELECT is_uuid('{12345678-1234-5678-1234-567812345678}'), is_uuid('12345678123456781234567812345678'), is_uuid('12345678-1234-5678-1234-567812345678')", [(1, 1, 1)]),
        ("SELECT is_uuid('{2345678-1234-5678-1234-567812345678}'), is_uuid('9912345678123456781234567812345678'), is_uuid('12345678-123456-78-1234-567812345678')", [(0, 0, 0)]),
        ("SELECT bin_to_uuid(a), bin_to_uuid(a, TRUE) FROM t ORDER BY a", [
            ("7f9d04ae-61b3-4468-ac79-8ffcc984ab68", "61b34468-04ae-7f9d-ac79-8ffcc984ab68"),
            ("c8eb4b15-cb09-48bb-bbb2-e6a0b6b4d5c7", "cb0948bb-4b15-c8eb-bbb2-e6a0b6b4d5c7"),
        ]),
        ("SELECT HEX(uuid_to_bin(bin_to_uuid(a, TRUE), TRUE)) FROM t ORDER BY a", [("7F9D04AE61B34468AC798FFCC984AB68",), ("C8EB4B15CB0948BBBBB2E6A0B6B4D5C7",)]),
        ("SELECT bin_to_uuid(uuid_to_bin(s)) FROM t WHERE s <> 'x'", [("12345678-1234-5678-1234-567812345678",)]),
        ("SELECT bin_to_uuid('1234567812345678')", [("31323334-3536-3738-3132-333435363738",)]),  # a text's bytes
    ],
)
def test_uuid_functions_give_mysqls_answers(db: Db, sql: str, rows: list[tuple[object, ...]]) -> None:
    assert db.ok(sql).rows == rows


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT uuid_to_bin('c8eb4b15-cb09-48bb-bbb2-e6a0b6b4d5cc7', TRUE)", "Incorrect string value: 'c8eb4b15-cb09-48bb-bbb2-e6a0b6b4d5cc7' for function uuid_to_bin"),
        ("SELECT uuid_to_bin('12345678123456Z81234567812345678', TRUE)", "Incorrect string value: '12345678123456Z81234567812345678' for function uuid_to_bin"),
        ("SELECT bin_to_uuid(unhex('7f9d04ae61b34468ac798ffcc984ab668'))", "Incorrect string value: '\\x07\\xF9\\xD0J\\xE6\\x1B4F\\x8A\\xC7\\x98\\xFF\\xCC\\x98J\\xB6h' for function bin_to_uuid"),
        ("SELECT bin_to_uuid(unhex('7f9d04ae61b34468ac798ffcc98468'))", "Incorrect string value: '\\x7F\\x9D\\x04\\xAEa\\xB3Dh\\xACy\\x8F\\xFC\\xC9\\x84h' for function bin_to_uuid"),
        ("INSERT INTO t SELECT uuid_to_bin(s), s FROM t", "Incorrect string value: 'x' for function uuid_to_bin"),
    ],
)
def test_a_value_that_is_no_uuid_is_error_1411(db: Db, sql: str, message: str) -> None:
    error = db.error(sql)
    assert (error.code, error.message) == (1411, message)


def test_mariadb_has_no_uuid_functions() -> None:
    server = Db(flavor=MARIADB_1011)
    for name in ("UUID_TO_BIN", "BIN_TO_UUID", "IS_UUID"):
        error = server.error(f"SELECT {name}('12345678-1234-5678-1234-567812345678')")
        assert (error.code, error.message) == (1305, f"FUNCTION test.{name} does not exist")


def test_a_binary_key_made_by_uuid_to_bin_replicates(db: Db) -> None:
    db.ok("CREATE TABLE k (id BINARY(16) PRIMARY KEY, v INT)")
    db.ok("INSERT INTO k VALUES (UUID_TO_BIN('4f06af63-a93c-11e4-9797-00505690773f', 1), 1)")
    db.ok("UPDATE k SET v = 2 WHERE id = UUID_TO_BIN('4f06af63-a93c-11e4-9797-00505690773f', 1)")
    assert db.ok("SELECT BIN_TO_UUID(id, 1), v FROM k").rows == [("4f06af63-a93c-11e4-9797-00505690773f", 2)]
