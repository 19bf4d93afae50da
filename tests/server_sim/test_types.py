"""The executor's column types and values: ranges, rounding, strings, coercion, NULL and
defaults. The simplest cases (a value in, the stored value or error out) are data:
fixtures/types.sql, run by test_executor_fixtures.py.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from server_sim.show_create import show_create_table
from server_sim import enum_set
from server_sim.dictionary import catalog_from_json, catalog_to_json
from server_sim.errors import SqlError
from server_sim.types import ColumnType
from server_sim.lenient_values import coerce_leniently
from tests.support import Db


def test_out_of_range_error_names_the_failing_row(db: Db) -> None:
    db.ok("CREATE TABLE t (a TINYINT) ENGINE=InnoDB")
    outcome = db.run("INSERT INTO t VALUES (1), (2), (300)")
    assert outcome.error is not None
    assert outcome.error.message == "Out of range value for column 'a' at row 3"
    assert [change.after for change in outcome.changes] == [(1,), (2,)]  # the caller rolls these back


def test_strict_trans_tables_clips_bad_values_after_the_first_row_of_a_myisam_insert(db: Db) -> None:
    db.ok("CREATE TABLE t (a TINYINT) ENGINE=MyISAM")
    outcome = db.ok("INSERT INTO t VALUES (1), (2), (300)")
    assert [(w.level, w.code) for w in outcome.warnings] == [("Warning", 1264)]
    assert db.rows("t") == [(1,), (2,), (127,)]


def test_default_current_timestamp_comes_from_the_statement_timestamp(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, created DATETIME DEFAULT CURRENT_TIMESTAMP, at TIMESTAMP DEFAULT NOW())")
    first, second = dt.datetime(2030, 5, 6, 7, 8, 9), dt.datetime(2031, 1, 2, 3, 4, 5)
    db.ok("INSERT INTO t (id) VALUES (1), (2)", timestamp=first)
    db.ok("INSERT INTO t (id) VALUES (3)", timestamp=second)
    assert db.rows("t") == [(1, first, first), (2, first, first), (3, second, second)]


def test_on_update_current_timestamp_takes_the_update_statement_timestamp(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)")
    created, updated = dt.datetime(2030, 1, 1), dt.datetime(2030, 1, 2)
    db.ok("INSERT INTO t (id, v) VALUES (1, 1)", timestamp=created)
    db.ok("UPDATE t SET v = 2", timestamp=updated)
    assert db.rows("t") == [(1, 2, updated)]
    # A row the UPDATE leaves unchanged keeps its timestamp.
    outcome = db.ok("UPDATE t SET v = 2", timestamp=dt.datetime(2030, 1, 3))
    assert outcome.changes == [] and db.rows("t") == [(1, 2, updated)]


# --- temporal columns: YEAR, TIME(fsp), DATETIME(fsp), TIMESTAMP(fsp) ----------------------

_TEMPORAL_TABLE = "CREATE TABLE t (id INT PRIMARY KEY, y YEAR, t TIME, t3 TIME(3), d6 DATETIME(6), d2 DATETIME(2), ts3 TIMESTAMP(3) NULL)"


def _stored(flavor: Flavor, column: str, literal: str) -> object:
    """The value `column` of _TEMPORAL_TABLE stores for `literal`, or the error code."""
    db = Db(flavor=flavor)
    try:
        db.ok(_TEMPORAL_TABLE)
        outcome = db.run(f"INSERT INTO t (id, {column}) VALUES (1, {literal})")
        if outcome.error is not None:
            return outcome.error.code
        (row,) = db.rows("t")
        return row[db.columns("t").index(column)]
    finally:
        db.close()


_H = dt.timedelta(hours=1)


@pytest.mark.parametrize(
    ("column", "literal", "mysql", "mariadb"),
    [
        # YEAR: four digits, two digits (00-69 -> 20xx, 70-99 -> 19xx), 0 and '0'.
        ("y", "2024", 2024, 2024),
        ("y", "'1901'", 1901, 1901),
        ("y", "2155", 2155, 2155),
        ("y", "69", 2069, 2069),
        ("y", "70", 1970, 1970),
        ("y", "'99'", 1999, 1999),
        ("y", "0", 0, 0),
        ("y", "'0'", 2000, 2000),
        ("y", "'0000'", 0, 0),
        ("y", "2156", 1264, 1264),
        ("y", "1900", 1264, 1264),
        ("y", "'abc'", 1366, 1366),
        # TIME: its forms, its range (the fraction beyond 838:59:59 and the error are the flavor's).
        ("t", "'12:34:56'", dt.timedelta(hours=12, minutes=34, seconds=56), dt.timedelta(hours=12, minutes=34, seconds=56)),
        ("t", "'-01:02:03'", -dt.timedelta(hours=1, minutes=2, seconds=3), -dt.timedelta(hours=1, minutes=2, seconds=3)),
        ("t", "'1 02:00:00'", 26 * _H, 26 * _H),
        ("t", "'11:12'", dt.timedelta(hours=11, minutes=12), dt.timedelta(hours=11, minutes=12)),
        ("t", "'100000'", 10 * _H, 10 * _H),
        ("t", "1112", dt.timedelta(minutes=11, seconds=12), dt.timedelta(minutes=11, seconds=12)),
        ("t", "'1999-02-03 20:33:34'", dt.timedelta(hours=20, minutes=33, seconds=34), dt.timedelta(hours=20, minutes=33, seconds=34)),
        ("t", "'-838:59:59'", -dt.timedelta(hours=838, minutes=59, seconds=59), -dt.timedelta(hours=838, minutes=59, seconds=59)),
        ("t", "'839:00:00'", 1264, 1292),
        ("t", "'12:60:00'", 1292, 1292),
        ("t3", "'838:59:59.999'", 1264, dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=999000)),
        # Fractional seconds beyond the column's: MySQL rounds, MariaDB truncates.
        ("t", "'10:00:00.5'", dt.timedelta(hours=10, seconds=1), 10 * _H),
        ("t3", "'-01:02:03.4567'", -dt.timedelta(hours=1, minutes=2, seconds=3, microseconds=457000), -dt.timedelta(hours=1, minutes=2, seconds=3, microseconds=456000)),
        ("d6", "'2024-02-29 10:11:12.123456'", dt.datetime(2024, 2, 29, 10, 11, 12, 123456), dt.datetime(2024, 2, 29, 10, 11, 12, 123456)),
        ("d2", "'2024-02-29 10:11:12.125'", dt.datetime(2024, 2, 29, 10, 11, 12, 130000), dt.datetime(2024, 2, 29, 10, 11, 12, 120000)),
        ("d2", "'2024-12-31 23:59:59.999'", dt.datetime(2025, 1, 1), dt.datetime(2024, 12, 31, 23, 59, 59, 990000)),
        ("d6", "20240229101112.5", dt.datetime(2024, 2, 29, 10, 11, 12, 500000), dt.datetime(2024, 2, 29, 10, 11, 12, 500000)),
        ("ts3", "'2024-02-29 10:11:12.9996'", dt.datetime(2024, 2, 29, 10, 11, 13), dt.datetime(2024, 2, 29, 10, 11, 12, 999000)),
        # A seventh digit: MySQL rounds it; MariaDB drops it with Note 1265 (not modelled: 1235).
        ("d6", "'2024-02-29 10:11:12.1234567'", dt.datetime(2024, 2, 29, 10, 11, 12, 123457), 1235),
        ("d6", "'2024-13-01'", 1292, 1292),
    ],
)
def test_temporal_values_as_each_flavor_stores_them(column: str, literal: str, mysql: object, mariadb: object) -> None:
    assert (_stored(MYSQL_80, column, literal), _stored(MARIADB_1011, column, literal)) == (mysql, mariadb)


@pytest.mark.parametrize(
    ("sql", "outcome"),
    [
        ("SELECT id FROM t WHERE t = '10:00:00'", [(1,)]),
        ("SELECT id FROM t WHERE t3 = '-00:00:01.500'", [(1,)]),
        ("SELECT id FROM t WHERE y = 2069", [(1,)]),
        ("SELECT id FROM t WHERE d6 = '2024-02-29 10:11:12.123456'", [(1,)]),
        ("SELECT id FROM t ORDER BY t", [(1,)]),
        ("SELECT t, y FROM t", [(10 * _H, 2069)]),
        # What DuckDB would read otherwise than the server ('100000' is 10:00:00 to MySQL,
        # 100000 seconds to an INTERVAL; YEAR = 69 means 2069): refused.
        ("SELECT id FROM t WHERE t = '100000'", 1235),
        ("SELECT id FROM t WHERE t = 100000", 1235),
        ("SELECT id FROM t WHERE y = 69", 1235),
        ("SELECT t + 1 FROM t", 1235),
        ("SELECT CONCAT(y) FROM t", 1235),
        ("UPDATE t SET t = t + 1", 1235),
        # DATETIME(fsp) as text: DuckDB drops the trailing zeros the server prints.
        ("SELECT CONCAT(d6) FROM t", 1235),
        ("SELECT HOUR(d6) FROM t", [(10,)]),
        # A TIME or fractional DATETIME value into a column of another kind: its text or
        # number depends on the precision of the column it came from, which the value lost.
        ("INSERT INTO t (id, y) SELECT 2, t FROM t", 1235),
        ("INSERT INTO t (id, y) SELECT 2, d6 FROM t", 1235),
    ],
)
def test_temporal_columns_in_expressions(db: Db, sql: str, outcome: object) -> None:
    db.ok(_TEMPORAL_TABLE)
    db.ok("INSERT INTO t (id, y, t, t3, d6) VALUES (1, 69, '100000', '-00:00:01.5', '2024-02-29 10:11:12.123456')")
    result = db.run(sql)
    assert (result.error.code if result.error else result.rows) == outcome


@pytest.mark.parametrize(
    ("definition", "outcome"),
    [
        ("d DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)", "`d` DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)"),
        ("d TIMESTAMP(3) NOT NULL DEFAULT NOW(3)", "`d` TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)"),
        ("d DATETIME(6) DEFAULT CURRENT_TIMESTAMP", 1067),
        ("d DATETIME DEFAULT CURRENT_TIMESTAMP(6)", 1067),
        ("d DATETIME(3) ON UPDATE CURRENT_TIMESTAMP", 1294),
        ("d TIME DEFAULT CURRENT_TIMESTAMP", 1067),
        ("d DATETIME(7)", 1426),
        ("d TIME(3) DEFAULT '-01:00:00.5'", "`d` TIME(3) DEFAULT '-01:00:00.500000'"),
        ("d YEAR DEFAULT 2000", "`d` YEAR DEFAULT 2000"),
    ],
)
def test_temporal_column_definitions(db: Db, definition: str, outcome: object) -> None:
    try:
        db.ok(f"CREATE TABLE t ({definition})")
    except AssertionError:
        assert db.error(f"CREATE TABLE t ({definition})").code == outcome
        return
    assert f"({outcome})" in show_create_table(db.server.catalog.get("t"))


@pytest.mark.parametrize(
    ("column", "literal", "mysql", "mariadb"),
    [
        # A zero in a date: MySQL's default sql_mode refuses it (1292); MariaDB's stores it,
        # which the simulator does not model (1235) rather than misread.
        ("d6", "'0000-00-00 00:00:00'", 1292, 1235),
        ("d6", "'2020-00-01 00:00:00'", 1292, 1235),
        ("d6", "0", 1292, 1235),
        ("d6", "'0000-01-01 00:00:00'", 1235, 1235),
        ("d6", "20200101101010", dt.datetime(2020, 1, 1, 10, 10, 10), dt.datetime(2020, 1, 1, 10, 10, 10)),
    ],
)
def test_zero_dates_are_the_servers_error_or_refused(column: str, literal: str, mysql: object, mariadb: object) -> None:
    assert (_stored(MYSQL_80, column, literal), _stored(MARIADB_1011, column, literal)) == (mysql, mariadb)


@pytest.mark.parametrize(
    ("sql_mode", "zero_date", "zero_in_date", "zero_default"),
    [
        # The members decide, not the flavor: strict with them 1292 (a DEFAULT 1067); without
        # them, or outside strict mode (the zero date stored, with a warning), 1235.
        ("STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE", 1292, 1292, 1067),
        ("STRICT_TRANS_TABLES,NO_ZERO_DATE", 1292, 1235, 1067),
        ("STRICT_TRANS_TABLES,NO_ZERO_IN_DATE", 1235, 1292, 1235),
        ("STRICT_TRANS_TABLES", 1235, 1235, 1235),
        ("NO_ZERO_IN_DATE,NO_ZERO_DATE", 1235, 1235, 1235),
        ("", 1235, 1235, 1235),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
def test_zero_dates_follow_the_sessions_sql_mode(flavor: Flavor, sql_mode: str, zero_date: int, zero_in_date: int, zero_default: int) -> None:
    db = Db(flavor=flavor)
    db.session.variables["sql_mode"] = sql_mode
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, d DATE, e DATETIME)")
    codes = [db.run(f"INSERT INTO t VALUES (1, {literal})").error for literal in ("'0000-00-00', NULL", "NULL, '2020-01-00 10:00:00'")]
    codes.append(db.run("CREATE TABLE u (d DATE DEFAULT '0000-00-00')").error)
    assert [error.code if error else None for error in codes] == [zero_date, zero_in_date, zero_default]
    db.close()
_MEMBERS = ("low", "Mid", "high")


@pytest.mark.parametrize(
    ("name", "value", "stored", "truncated"),
    [
        # Field_enum::store: a member by text (case, trailing spaces ignored) or by index.
        ("ENUM", "low", "low", False),
        ("ENUM", "MID", "Mid", False),
        ("ENUM", "high  ", "high", False),
        ("ENUM", " low", "", True),  # leading spaces count
        ("ENUM", 2, "Mid", False),
        ("ENUM", "3", "high", False),  # digits no member names are an index
        ("ENUM", 0, "", True),
        ("ENUM", 4, "", True),
        ("ENUM", "", "", True),
        ("ENUM", "lowest", "", True),
        # Field_set::store: members by text in any order and case, or a bitmask.
        ("SET", "high,low", "low,high", False),
        ("SET", "MID,mid,low", "low,Mid", False),
        ("SET", "", "", False),
        ("SET", 0, "", False),
        ("SET", 5, "low,high", False),
        ("SET", "6", "Mid,high", False),
        ("SET", 8, "", True),  # bits beyond the members are dropped
        ("SET", 9, "low", True),
        ("SET", "low,nope", "low", True),  # the members found stay
        ("SET", "low,,high", "low,high", True),
        ("SET", "nope", "", True),
    ],
)
def test_enum_and_set_values_read_as_the_server_reads_them(name: str, value: object, stored: str, truncated: bool) -> None:
    column_type = ColumnType(name, members=_MEMBERS)
    text, error = coerce_leniently(column_type, value, "c", 3)
    assert (text, error is not None) == (stored, truncated)
    if truncated:
        assert error is not None and (error.code, error.message) == (1265, "Data truncated for column 'c' at row 3")
        with pytest.raises(SqlError):
            column_type.coerce(value, "c", 3)
    else:
        assert column_type.coerce(value, "c", 3) == stored


@pytest.mark.parametrize(
    ("name", "text", "number"),
    [("ENUM", "", 0), ("ENUM", "low", 1), ("ENUM", "high", 3), ("SET", "", 0), ("SET", "low,high", 5), ("SET", "low,Mid,high", 7)],
)
def test_enum_and_set_events_carry_the_index_or_bitmask(name: str, text: str, number: int) -> None:
    assert ColumnType(name, members=_MEMBERS).event_value(text) == number


@pytest.mark.parametrize(
    ("name", "implicit_default", "sql", "pack_length"),
    [("ENUM", "low", "ENUM('low','Mid','high')", 1), ("SET", "", "SET('low','Mid','high')", 1)],
)
def test_enum_and_set_types(name: str, implicit_default: str, sql: str, pack_length: int) -> None:
    column_type = ColumnType(name, members=_MEMBERS)
    assert (column_type.implicit_default(), column_type.sql, enum_set.pack_length(name, _MEMBERS)) == (implicit_default, sql, pack_length)


def test_saved_catalog_keeps_enum_and_set_members(db: Db) -> None:
    """A replica reopened from its saved catalog compares its types with the event's again:
    they must come back equal (a member list as a tuple, as the catalog made it)."""
    db.ok("CREATE TABLE t (e ENUM('a','b') NOT NULL, s SET('x'), d DECIMAL(10,2))")
    document = json.loads(json.dumps(catalog_to_json(db.server.catalog)))
    before = db.server.catalog.require("", "t", db.session.thread_id)
    after = catalog_from_json(document).require("", "t", db.session.thread_id)
    assert [column.type for column in after.columns] == [column.type for column in before.columns]


@pytest.mark.parametrize(
    ("condition", "truth"),
    [
        # No stored date is the zero date: never equal, always after it; NULL stays NULL.
        ("d = '0000-00-00 00:00:00'", [False, None]),
        ("d <> '0000-00-00'", [True, None]),
        ("e > '0000-00-00'", [True, None]),
        ("e >= '0000-00-00'", [True, None]),
        ("e < '0000-00-00'", [False, None]),
        ("'0000-00-00' >= e", [False, None]),
        ("'0000-00-00' < e", [True, None]),
        ("e <=> '0000-00-00'", [False, False]),
    ],
)
def test_a_date_column_compared_with_the_zero_date(condition: str, truth: list[bool | None]) -> None:
    db = Db(flavor=MARIADB_1011)
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, d DATETIME, e DATE)")
    db.ok("INSERT INTO t VALUES (1, '2020-01-01 10:00:00', '2020-01-01'), (2, NULL, NULL)")
    assert [row[0] for row in db.query(f"SELECT {condition} FROM t ORDER BY id")] == truth
    db.close()


@pytest.mark.parametrize(
    ("flavor", "sql_mode", "sql", "refused"),
    [
        (MYSQL_80, "STRICT_TRANS_TABLES,NO_ZERO_DATE", "SELECT id FROM t WHERE e = '0000-00-00'", "a comparison with the zero date under NO_ZERO_DATE (e = '0000-00-00': the server may warn or fail, 1292)"),
        (MARIADB_1011, "", "SELECT id FROM t WHERE e > '2020-00-00'", "a comparison with the date '2020-00-00' with a zero part (e > '2020-00-00')"),
        (MYSQL_80, "STRICT_TRANS_TABLES", None, None),
    ],
)
def test_a_zero_date_comparison_the_simulator_cannot_answer_is_refused(flavor: Flavor, sql_mode: str, sql: str | None, refused: str | None) -> None:
    db = Db(flavor=flavor)
    db.session.variables["sql_mode"] = sql_mode
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, e DATE)")
    if sql is None:  # MySQL without NO_ZERO_DATE compares as MariaDB does
        assert db.query("SELECT e <> '0000-00-00' FROM t") == []
    else:
        assert db.error(sql).message == f"This version of MySQL doesn't yet support '{refused}'"
    db.close()
