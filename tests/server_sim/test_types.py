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

from server_sim import enum_set
from server_sim.dictionary import catalog_from_json, catalog_to_json
from server_sim.errors import SqlError
from server_sim.types import ColumnType
from tests.support import Db


def test_out_of_range_error_names_the_failing_row(db: Db) -> None:
    db.ok("CREATE TABLE t (a TINYINT) ENGINE=InnoDB")
    outcome = db.run("INSERT INTO t VALUES (1), (2), (300)")
    assert outcome.error is not None
    assert outcome.error.message == "Out of range value for column 'a' at row 3"
    assert [change.after for change in outcome.changes] == [(1,), (2,)]  # the caller rolls these back


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
    text, error = column_type.coerce_leniently(value, "c", 3)
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
