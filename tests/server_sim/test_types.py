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
from decimal import Decimal

import pytest

from tests.support import Db


@pytest.mark.parametrize(
    ("column_type", "value"),
    [
        ("TINYINT", -128),
        ("TINYINT", 127),
        ("TINYINT UNSIGNED", 0),
        ("TINYINT UNSIGNED", 255),
        ("SMALLINT", -32768),
        ("SMALLINT UNSIGNED", 65535),
        ("MEDIUMINT", 8388607),
        ("MEDIUMINT UNSIGNED", 16777215),
        ("INT", -2147483648),
        ("INT", 2147483647),
        ("INT UNSIGNED", 4294967295),
        ("BIGINT", -9223372036854775808),
        ("BIGINT", 9223372036854775807),
        ("BIGINT UNSIGNED", 18446744073709551615),
    ],
)
def test_integer_range_limits_are_stored(db: Db, column_type: str, value: int) -> None:
    db.ok(f"CREATE TABLE t (a {column_type})")
    outcome = db.ok(f"INSERT INTO t VALUES ({value})")
    assert outcome.changes[0].after == (value,)
    assert db.rows("t") == [(value,)]


@pytest.mark.parametrize(
    ("column_type", "value"),
    [
        ("TINYINT", 128),
        ("TINYINT", -129),
        ("TINYINT UNSIGNED", -1),
        ("TINYINT UNSIGNED", 256),
        ("SMALLINT", 32768),
        ("MEDIUMINT UNSIGNED", 16777216),
        ("INT", 2147483648),
        ("INT", -2147483649),
        ("INT UNSIGNED", -1),
        ("INT UNSIGNED", 4294967296),
        ("BIGINT", 9223372036854775808),
        ("BIGINT", -9223372036854775809),
        ("BIGINT UNSIGNED", -1),
        ("BIGINT UNSIGNED", 18446744073709551616),
    ],
)
def test_integer_out_of_range_is_error_1264(db: Db, column_type: str, value: int) -> None:
    db.ok(f"CREATE TABLE t (a {column_type})")
    error = db.error(f"INSERT INTO t VALUES ({value})")
    assert (error.code, error.name) == (1264, "ER_WARN_DATA_OUT_OF_RANGE")
    assert error.message == "Out of range value for column 'a' at row 1"
    assert db.rows("t") == []


def test_out_of_range_error_names_the_failing_row(db: Db) -> None:
    db.ok("CREATE TABLE t (a TINYINT) ENGINE=InnoDB")
    outcome = db.run("INSERT INTO t VALUES (1), (2), (300)")
    assert outcome.error is not None
    assert outcome.error.message == "Out of range value for column 'a' at row 3"
    assert [change.after for change in outcome.changes] == [(1,), (2,)]  # the caller rolls these back


def test_out_of_range_in_the_first_row_of_a_myisam_insert_is_an_error(db: Db) -> None:
    db.ok("CREATE TABLE t (a TINYINT) ENGINE=MyISAM")
    assert db.error("INSERT INTO t VALUES (300), (1)").code == 1264
    assert db.rows("t") == []


@pytest.mark.xfail(
    reason="types/executor always raise 1264 in strict mode; under STRICT_TRANS_TABLES (the simulated default) "
    "MySQL aborts a non-transactional multi-row INSERT only for a bad value in row 1: from row 2 on it clips "
    "the value (300 -> 127), warns 1264 and continues",
    strict=True,
)
def test_strict_trans_tables_clips_bad_values_after_the_first_row_of_a_myisam_insert(db: Db) -> None:
    db.ok("CREATE TABLE t (a TINYINT) ENGINE=MyISAM")
    outcome = db.ok("INSERT INTO t VALUES (1), (2), (300)")
    assert [(w.level, w.code) for w in outcome.warnings] == [("Warning", 1264)]
    assert db.rows("t") == [(1,), (2,), (127,)]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("1.005", Decimal("1.01")),  # half up, not banker's rounding
        ("1.004", Decimal("1.00")),
        ("2.675", Decimal("2.68")),
        ("-1.005", Decimal("-1.01")),  # half away from zero
        ("123.456", Decimal("123.46")),
        ("'2.5'", Decimal("2.50")),
        ("7", Decimal("7.00")),
        ("999.99", Decimal("999.99")),
        ("-999.99", Decimal("-999.99")),
        ("999.994", Decimal("999.99")),
    ],
)
def test_decimal_rounds_half_up_to_its_scale(db: Db, given: str, stored: Decimal) -> None:
    db.ok("CREATE TABLE t (d DECIMAL(5,2))")
    outcome = db.ok(f"INSERT INTO t VALUES ({given})")
    (value,) = outcome.changes[0].after
    assert value == stored and str(value) == str(stored)
    assert db.rows("t") == [(stored,)]


@pytest.mark.parametrize("given", ["1000", "999.995", "-999.995", "-1000", "12345.6"])
def test_decimal_out_of_range_is_error_1264(db: Db, given: str) -> None:
    db.ok("CREATE TABLE t (d DECIMAL(5,2))")
    error = db.error(f"INSERT INTO t VALUES ({given})")
    assert error.code == 1264
    assert error.message == "Out of range value for column 'd' at row 1"


def test_unsigned_decimal_refuses_negative_values(db: Db) -> None:
    db.ok("CREATE TABLE t (d DECIMAL(5,2) UNSIGNED)")
    assert db.error("INSERT INTO t VALUES (-0.01)").code == 1264


@pytest.mark.parametrize(("given", "stored"), [("'abc'", "abc"), ("'ab'", "ab"), ("'ééé'", "ééé"), ("''", "")])
def test_varchar_within_its_length_is_stored(db: Db, given: str, stored: str) -> None:
    db.ok("CREATE TABLE t (v VARCHAR(3))")
    db.ok(f"INSERT INTO t VALUES ({given})")
    assert db.rows("t") == [(stored,)]


def test_varchar_too_long_is_error_1406(db: Db) -> None:
    db.ok("CREATE TABLE t (v VARCHAR(3))")
    error = db.error("INSERT INTO t VALUES ('abcd')")
    assert (error.code, error.name) == (1406, "ER_DATA_TOO_LONG")
    assert error.message == "Data too long for column 'v' at row 1"
    assert db.rows("t") == []


def test_varchar_excess_trailing_spaces_are_truncated_not_an_error(db: Db) -> None:
    db.ok("CREATE TABLE t (v VARCHAR(3))")
    db.ok("INSERT INTO t VALUES ('abc  ')")
    assert db.rows("t") == [("abc",)]


def test_varchar_keeps_trailing_spaces_within_its_length(db: Db) -> None:
    db.ok("CREATE TABLE t (v VARCHAR(5))")
    db.ok("INSERT INTO t VALUES ('ab  ')")
    assert db.rows("t") == [("ab  ",)]


@pytest.mark.parametrize(("given", "stored"), [("'ab   '", "ab"), ("'abc     '", "abc"), ("' a'", " a"), ("'   '", "")])
def test_char_drops_trailing_spaces(db: Db, given: str, stored: str) -> None:
    db.ok("CREATE TABLE t (c CHAR(3))")
    outcome = db.ok(f"INSERT INTO t VALUES ({given})")
    assert outcome.changes[0].after == (stored,)
    assert db.rows("t") == [(stored,)]


@pytest.mark.parametrize(
    ("given", "stored"),
    [("2.5", 3), ("2.4", 2), ("-2.5", -3), ("0.5", 1), ("'12'", 12), ("' 12'", 12), ("'2.5'", 3), ("'-7'", -7)],
)
def test_int_column_rounds_and_reads_numeric_strings(db: Db, given: str, stored: int) -> None:
    db.ok("CREATE TABLE t (a INT)")
    outcome = db.ok(f"INSERT INTO t VALUES ({given})")
    assert outcome.changes[0].after == (stored,)
    assert db.rows("t") == [(stored,)]


def test_non_numeric_string_into_int_is_error_1366(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    error = db.error("INSERT INTO t VALUES ('abc')")
    assert (error.code, error.name) == (1366, "ER_TRUNCATED_WRONG_VALUE_FOR_FIELD")


@pytest.mark.parametrize(
    ("column_type", "message"),
    [
        pytest.param(
            "INT",
            "Incorrect integer value: 'abc' for column 'a' at row 1",
        ),
        ("DECIMAL(5,2)", "Incorrect decimal value: 'abc' for column 'a' at row 1"),
    ],
)
def test_non_numeric_string_message_names_the_type_as_mysql_does(db: Db, column_type: str, message: str) -> None:
    db.ok(f"CREATE TABLE t (a {column_type})")
    assert db.error("INSERT INTO t VALUES ('abc')").message == message


def test_numeric_prefix_string_into_int_is_error_1265(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    error = db.error("INSERT INTO t VALUES ('12abc')")
    assert error.code == 1265
    assert error.message == "Data truncated for column 'a' at row 1"


def test_null_into_not_null_is_error_1048(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, b INT NOT NULL)")
    error = db.error("INSERT INTO t VALUES (1, NULL)")
    assert (error.code, error.name, error.message) == (1048, "ER_BAD_NULL_ERROR", "Column 'b' cannot be null")
    db.ok("INSERT INTO t VALUES (1, 5)")
    error = db.error("UPDATE t SET b = NULL")
    assert error.code == 1048
    assert db.rows("t") == [(1, 5)]


def test_omitted_not_null_column_without_default_is_error_1364(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT, b INT NOT NULL)")
    error = db.error("INSERT INTO t (a) VALUES (1)")
    assert (error.code, error.name) == (1364, "ER_NO_DEFAULT_FOR_FIELD")
    assert error.message == "Field 'b' doesn't have a default value"


def test_default_values_fill_omitted_columns(db: Db) -> None:
    db.ok(
        "CREATE TABLE t (id INT PRIMARY KEY, n INT DEFAULT 42, s VARCHAR(5) NOT NULL DEFAULT 'x', "
        "d DECIMAL(4,1) DEFAULT 1.25, z INT)"
    )
    db.ok("INSERT INTO t (id) VALUES (1)")
    db.ok("INSERT INTO t VALUES (2, DEFAULT, DEFAULT, DEFAULT, DEFAULT)")
    db.ok("INSERT INTO t (id, n) VALUES (3, NULL)")
    assert db.rows("t") == [
        (1, 42, "x", Decimal("1.3"), None),
        (2, 42, "x", Decimal("1.3"), None),
        (3, None, "x", Decimal("1.3"), None),
    ]


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
