"""BIT(n) and JSON columns: the values each flavor stores, the errors it raises, the row
events it logs and the functions that build JSON documents. MariaDB's behaviour is the
oracle's (scenarios/oracle/bit-json-columns.yaml, recorded on MariaDB 10.11); MySQL 8.0's
is from its manual and mysql-test (json_*.result, type_bit.result)."""

from __future__ import annotations

import pytest

from server_sim.binlog.binary import columns as c
from server_sim.binlog.binary.json_binary import decode_json_binary, encode_json_binary
from server_sim.binlog.binary.packing import Cursor
from server_sim.binlog.binary.values import pack_value, unpack_value
from server_sim.binlog.show_rows import value_text
from server_sim.binlog.events import ColumnInfo
from server_sim.flavor import MARIADB_1011, MYSQL_80
from server_sim.json_type import document_of_text, text_of_document
from server_sim.types import ColumnType
from tests.server_sim.test_json_binary import json_values
from tests.support import Db

FLAVORS = {"mysql": MYSQL_80, "mariadb": MARIADB_1011}


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("column", "value", "stored", "error"),
    [
        ("BIT(8)", "b'0101'", b"\x05", None),
        ("BIT(8)", "0x41", b"A", None),
        ("BIT(8)", "'A'", b"A", None),
        ("BIT(8)", "255", b"\xff", None),
        ("BIT(8)", "256", None, 1406),
        ("BIT(8)", "b'111111111'", None, 1406),
        ("BIT(8)", "'AB'", None, 1406),
        ("BIT(8)", "0x0041", b"A", None),  # leading zero bytes do not count
        ("BIT(1)", "2", None, 1406),
        ("BIT", "1", b"\x01", None),
        ("BIT(12)", "0x0FFF", b"\x0f\xff", None),
        ("BIT(12)", "0x1000", None, 1406),
        ("BIT(64)", "18446744073709551615", b"\xff" * 8, None),
        ("BIT(64)", "-1", b"\xff" * 8, None),  # the 64-bit two's complement
        ("BIT(63)", "-1", None, 1406),
        ("BIT(8)", "NULL", None, None),
    ],
)
def test_bit_values(column: str, value: str, stored: bytes | None, error: int | None, fast_path: bool) -> None:
    db = Db(fast_path=fast_path)
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY, b {column})")
    outcome = db.run(f"INSERT INTO t VALUES (1, {value})")
    assert (outcome.error.code if outcome.error else None) == error
    assert db.rows("t") == ([] if error else [(1, stored)])


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT id FROM t WHERE b = 5 ORDER BY id", [(1,)]),
        ("SELECT id FROM t WHERE b > 4 ORDER BY id", [(1,), (2,)]),
        ("SELECT b + 0 FROM t ORDER BY id", [(5,), (65,)]),
        ("SELECT id FROM t WHERE f = 1 ORDER BY id", [(2,)]),
    ],
)
def test_a_bit_column_compares_and_computes_as_a_number(query: str, expected: list[tuple], fast_path: bool) -> None:
    db = Db(fast_path=fast_path)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, b BIT(8), f BIT(1))")
    db.ok("INSERT INTO t VALUES (1, b'0101', 0), (2, 0x41, 1)")
    assert db.query(query) == expected


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("condition", "found"),
    [
        ("b = b'0101'", [1]),
        ("b = 0x41", [2]),
        ("0x41 > b", [1]),
        ("b <> b'101'", [2]),
        ("n < 0x02", [1]),  # an integer column compares with the literal's number too
        ("id = 1 OR b = 0x0041", [1, 2]),
        ("v = 0x41", 1235),  # text: the server compares the bytes, which is not modelled
        ("CONCAT(v, 0x41) = 'AA'", 1235),
    ],
)
def test_binary_literals_in_conditions(condition: str, found: object, fast_path: bool) -> None:
    db = Db(fast_path=fast_path)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, b BIT(8), v VARCHAR(5), n INT)")
    db.ok("INSERT INTO t VALUES (1, b'0101', 'A', -1), (2, 0x41, '65', 3)")
    outcome = db.run(f"UPDATE t SET v = 'hit' WHERE {condition}")
    if isinstance(found, int):
        assert outcome.error is not None and outcome.error.code == found
    else:
        assert outcome.error is None
        assert [row[0] for row in db.rows("t") if row[2] == "hit"] == found


@pytest.mark.parametrize(
    ("statement", "error"),
    [
        ("INSERT INTO u (id, b) SELECT id, b + 0 FROM t", None),  # the number into a BIT column
        ("INSERT INTO u (id, v) SELECT id, b + 0 FROM t", 1235),  # digits, but any BIT read into text is refused
        ("INSERT INTO u SELECT id, b, v FROM t", None),
        ("INSERT INTO u SELECT * FROM t", None),
        ("INSERT INTO u (id, v, b) SELECT id, b, b FROM t", 1235),  # a string column would take the bytes
        ("INSERT INTO u (id, v) SELECT id, CONCAT(b) FROM t", 1235),
        ("INSERT INTO u (id, v) SELECT id, 'x' FROM t UNION SELECT 2, 'y'", 1235),
        ("UPDATE t SET v = b", 1235),
        ("UPDATE t SET v = 'x', b = b + 1", None),
    ],
)
def test_a_bit_value_is_never_stored_as_its_digits(statement: str, error: int | None) -> None:
    db = Db()
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, b BIT(8), v VARBINARY(5))")
    db.ok("CREATE TABLE u (id INT PRIMARY KEY, b BIT(8), v VARBINARY(5))")
    db.ok("INSERT INTO t VALUES (1, 5, 'A')")
    outcome = db.run(statement)
    assert (outcome.error.code if outcome.error else None) == error


@pytest.mark.parametrize(
    ("flavor", "value", "stored", "error", "notes"),
    [
        ("mysql", "'{\"b\": 1, \"a\": [1, 2]}'", '{"a": [1, 2], "b": 1}', None, []),
        ("mariadb", "'{\"b\": 1, \"a\": [1, 2]}'", '{"b": 1, "a": [1, 2]}', None, []),
        ("mysql", "'[1,2,  3]'", "[1, 2, 3]", None, []),
        ("mariadb", "'[1,2,  3]'", "[1,2,  3]", None, []),
        ("mysql", "'{\"a\": 1, \"a\": 2}'", '{"a": 2}', None, []),  # the last duplicate key wins
        ("mysql", "'{\"a\": }'", None, 3140, []),
        ("mariadb", "'{\"a\": }'", None, 4025, [4038]),
        ("mysql", "''", None, 3140, []),
        ("mysql", "1", None, 3140, []),  # a number must be CAST AS JSON
        ("mariadb", "1", "1", None, []),
        ("mysql", "JSON_OBJECT('k', 1, 'a', 'x')", '{"a": "x", "k": 1}', None, []),
        ("mariadb", "JSON_OBJECT('k', 1, 'a', 'x')", '{"k": 1, "a": "x"}', None, []),
        ("mysql", "JSON_ARRAY(1, 'two', NULL, JSON_OBJECT('n', 2))", '[1, "two", null, {"n": 2}]', None, []),
        ("mariadb", "JSON_ARRAY()", "[]", None, []),
        ("mariadb", "JSON_ARRAY(2.50)", "[2.50]", None, []),
        ("mysql", "JSON_ARRAY(2.50)", None, 1235, []),  # MySQL's document keeps the DECIMAL
        ("mysql", "NULL", None, None, []),
    ],
)
def test_json_values(flavor: str, value: str, stored: str | None, error: int | None, notes: list[int]) -> None:
    db = Db(flavor=FLAVORS[flavor])
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, j JSON)")
    outcome = db.run(f"INSERT INTO t VALUES (1, {value})")
    assert (outcome.error.code if outcome.error else None) == error
    assert [w.code for w in outcome.warnings] == notes
    assert db.rows("t") == ([] if error else [(1, stored)])


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("flavor", "statement", "error"),
    [
        ("mysql", "DELETE FROM t WHERE j = '[1]'", 1235),  # MySQL compares a document with a JSON string
        ("mysql", "UPDATE t SET id = 2 WHERE j IN ('[1]')", 1235),
        ("mysql", "SELECT id FROM t ORDER BY j", 1235),
        ("mysql", "SELECT id FROM t WHERE JSON_LENGTH(j) = 1", None),
        ("mysql", "UPDATE t SET j = '[2]' WHERE j IS NOT NULL", None),
        ("mariadb", "DELETE FROM t WHERE j = '[1]'", None),  # a LONGTEXT: compared as its text
    ],
)
def test_comparing_a_mysql_json_column_is_refused(flavor: str, statement: str, error: int | None, fast_path: bool) -> None:
    db = Db(flavor=FLAVORS[flavor], fast_path=fast_path)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, j JSON)")
    db.ok("INSERT INTO t VALUES (1, '[1]')")
    outcome = db.run(statement)
    assert (outcome.error.code if outcome.error else None) == error


@pytest.mark.parametrize(
    ("flavor", "call", "result"),
    [
        ("mysql", "JSON_SET(j, '$.c', 3)", '{"a": [1, 2], "b": 1, "c": 3}'),
        ("mariadb", "JSON_SET(j, '$.c', 3)", '{"b": 1, "a": [1, 2], "c": 3}'),
        ("mysql", "JSON_SET(j, '$.b', 'x', '$.a[5]', 9)", '{"a": [1, 2, 9], "b": "x"}'),
        ("mariadb", "JSON_SET(j, '$.b', 'x')", '{"b": "x", "a": [1, 2]}'),
        ("mysql", "JSON_INSERT(j, '$.b', 9, '$.d', JSON_ARRAY(1))", '{"a": [1, 2], "b": 1, "d": [1]}'),
        ("mariadb", "JSON_INSERT(j, '$.b', 9)", '{"b": 1, "a": [1, 2]}'),
        ("mysql", "JSON_REPLACE(j, '$.a[1]', 20, '$.z', 1)", '{"a": [1, 20], "b": 1}'),
        ("mariadb", "JSON_REPLACE(j, '$.a[1]', 20)", '{"b": 1, "a": [1, 20]}'),
        ("mysql", "JSON_REMOVE(j, '$.a', '$.z')", '{"b": 1}'),
        ("mariadb", "JSON_REMOVE(j, '$.a')", 1235),
        ("mysql", "JSON_SET(j, CONCAT('$', '.c'), 3)", 1235),
        ("mysql", "JSON_SET(j, '$.c', id)", 1235),
        ("mysql", "JSON_SET(j, '$.c', 2.50)", 1235),  # MySQL's document keeps the DECIMAL
        ("mariadb", "JSON_SET(j, '$.c', 2.50)", '{"b": 1, "a": [1, 2], "c": 2.50}'),
    ],
)
def test_json_edits(flavor: str, call: str, result: object) -> None:
    db = Db(flavor=FLAVORS[flavor])
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, j JSON)")
    db.ok("INSERT INTO t VALUES (1, '{\"b\": 1, \"a\": [1, 2]}')")
    outcome = db.run(f"UPDATE t SET j = {call}")
    if isinstance(result, int):
        assert outcome.error is not None and outcome.error.code == result
    else:
        assert outcome.error is None and db.rows("t") == [(1, result)]


@pytest.mark.parametrize(
    ("flavor", "column", "code", "metadata"),
    [
        ("mysql", "BIT(1)", c.MYSQL_TYPE_BIT, 1),
        ("mysql", "BIT(12)", c.MYSQL_TYPE_BIT, 1 << 8 | 4),
        ("mysql", "BIT(64)", c.MYSQL_TYPE_BIT, 8 << 8),
        ("mysql", "JSON", c.MYSQL_TYPE_JSON, 4),
        ("mariadb", "JSON", c.MYSQL_TYPE_BLOB, 4),  # LONGTEXT
    ],
)
def test_table_map_types(flavor: str, column: str, code: int, metadata: int) -> None:
    db = Db(flavor=FLAVORS[flavor])
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY, x {column})")
    info = c.column_info(db.server.catalog.find("t").columns[1].type, True, 45)
    assert (info.type_code, info.metadata) == (code, metadata)


@pytest.mark.parametrize(
    ("bits", "value", "packed", "shown"),
    [
        (1, 1, "01", "b'1'"),
        (4, 5, "05", "b'0101'"),
        (12, 0xFFF, "0fff", "b'111111111111'"),
        (16, 0x0102, "0102", "b'0000000100000010'"),
        (64, 2**64 - 1, "ff" * 8, "b'" + "1" * 64 + "'"),
    ],
)
def test_bit_row_values(bits: int, value: int, packed: str, shown: str) -> None:
    code, metadata = c.binlog_type(ColumnType("BIT", length=bits), 0)
    data = pack_value(value, code, metadata)
    assert data.hex() == packed
    assert unpack_value(Cursor(data), code, metadata, None, None) == value
    assert value_text(value, ColumnInfo(f"BIT({bits})", True, code, metadata)) == shown


def test_mysql_json_from_the_stored_text_is_the_real_servers_binary_json() -> None:
    """The simulator's MySQL JSON row values (the stored text made binary again) are byte
    for byte those of a real MySQL 8.0 for every plain document of the real files."""
    compared = 0
    for data in json_values("json.binlog.000001"):
        document = decode_json_binary(data)
        text = text_of_document(document)
        if not _plain(document):
            continue  # doubles, decimals, opaque values: the text does not keep which they were
        assert encode_json_binary(document_of_text(text)) == data, text
        compared += 1
    assert compared > 10


def _plain(value: object) -> bool:
    if isinstance(value, dict):
        return all(_plain(item) for item in value.values())
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return type(value) in (str, int, bool, type(None))
