"""Prepared-statement commands as written, and values written as the server writes a
parameter into the query it logs (checked on MariaDB 10.11 by the oracle scenario
prepared-statements)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from server_sim.errors import SqlError
from server_sim.parser import parse_statement
from server_sim.prepared import PreparedAction, check_markers, double_text, expanded_text, literal_text, parse_prepared_command
from server_sim.statement import StatementKind


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "NULL"),
        (7, "7"),
        (-7, "-7"),
        (Decimal("2.250"), "2.250"),
        (1.5, "1.5"),
        (1e20, "1e20"),
        (1e15, "1e15"),
        (1e14, "100000000000000"),
        (-2.5e-7, "-0.00000025"),
        (1.5e-5, "0.000015"),
        (1e-15, "0.000000000000001"),
        (1.5e-16, "1.5e-16"),
        (0.0001, "0.0001"),
        (0.0, "0"),
        ("it's", "'it\\'s'"),
        ("a\\b\n\"", "'a\\\\b\\n\\\"'"),
        (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), "'2024-01-02 03:04:05'"),
        (dt.date(2024, 1, 2), "'2024-01-02'"),
        (b"A", "'A'"),
    ],
)
def test_a_parameter_value_is_written_as_the_server_logs_it(value: object, text: str) -> None:
    assert literal_text(value) == text


def test_no_backslash_escapes_doubles_the_quote() -> None:
    assert literal_text("it's\\", no_backslash_escapes=True) == "'it''s\\'"


@pytest.mark.parametrize("value", [0.1, 1 / 3, 123.456, 1e300, 5e-324, -1e-5])
def test_a_double_reads_back_as_the_same_value(value: float) -> None:
    assert float(double_text(value)) == value


@pytest.mark.parametrize(
    ("sql", "action", "name", "arguments"),
    [
        ("PREPARE s FROM 'SELECT ?'", PreparedAction.PREPARE, "s", 0),
        ("prepare `my s` from @q", PreparedAction.PREPARE, "my s", 0),
        ("EXECUTE s", PreparedAction.EXECUTE, "s", 0),
        ("EXECUTE S USING @a, 30, 'x'", PreparedAction.EXECUTE, "S", 3),
        ("DEALLOCATE PREPARE s", PreparedAction.DEALLOCATE, "s", 0),
        ("DROP PREPARE s", PreparedAction.DEALLOCATE, "s", 0),
    ],
)
def test_commands_are_read(sql: str, action: PreparedAction, name: str, arguments: int) -> None:
    command = parse_prepared_command(sql)
    assert command is not None and (command.action, command.name, len(command.arguments)) == (action, name, arguments)
    assert parse_statement(sql).kind is {PreparedAction.PREPARE: StatementKind.PREPARE, PreparedAction.EXECUTE: StatementKind.EXECUTE, PreparedAction.DEALLOCATE: StatementKind.DEALLOCATE_PREPARE}[action]


@pytest.mark.parametrize("sql", ["PREPARE s FROM 1", "PREPARE s FROM", "EXECUTE s USING", "DEALLOCATE PREPARE"])
def test_malformed_commands_are_syntax_errors(sql: str) -> None:
    with pytest.raises(SqlError) as error:
        parse_statement(sql)
    assert error.value.code == 1064


@pytest.mark.parametrize(
    ("text", "markers", "error"),
    [
        ("INSERT INTO t VALUES (?, 'q?', ?)", 2, None),
        ("SELECT a FROM t WHERE a = ? /* ? */", 1, None),
        ("SELECT a FROM t LIMIT ?", 1, None),
        ("CREATE TABLE ? (a INT)", None, 1064),
        ("SELECT ? FROM ?", None, 1064),
    ],
)
def test_markers_stand_only_for_values(text: str, markers: int | None, error: int | None) -> None:
    tree = parse_statement(text).ast
    if error is None:
        assert check_markers(text, tree) == markers
    else:
        with pytest.raises(SqlError) as raised:
            check_markers(text, tree)
        assert raised.value.code == error


def test_expanded_text_replaces_each_marker_in_order() -> None:
    assert expanded_text("INSERT INTO t VALUES (?, '?', ?)", [1, None], False) == "INSERT INTO t VALUES (1, '?', NULL)"
