"""Statements that are not strict: sql_mode without STRICT_TRANS_TABLES / STRICT_ALL_TABLES,
IGNORE, and the later rows of a non-transactional table under STRICT_TRANS_TABLES. A value
the column cannot hold is adjusted with a warning (server_sim/lenient_values.py), as
MariaDB 10.11 does in scenarios/oracle/non-strict-sql-mode.yaml; what the model cannot
store (the zero date) or does not model outside strict mode is refused (1235)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from server_sim.errors import SqlError
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from server_sim.lenient_values import coerce_leniently
from server_sim.sysvars import VariableRegistry
from server_sim.types import ColumnType
from tests.support import Db


def _type(sql: str) -> ColumnType:
    unsigned = sql.endswith(" UNSIGNED")
    name, _, rest = sql.removesuffix(" UNSIGNED").partition("(")
    sizes = [int(part) for part in rest.rstrip(")").split(",")] if rest else []
    return ColumnType(name, unsigned, sizes[0] if sizes else None, sizes[1] if len(sizes) > 1 else None)


@pytest.mark.parametrize(
    ("column_type", "value", "stored", "warning"),
    [
        ("TINYINT", 300, 127, 1264),
        ("TINYINT", -300, -128, 1264),
        ("TINYINT", "abc", 0, 1366),
        ("TINYINT", "12x", 12, 1265),
        ("TINYINT", "999x", 127, 1264),  # out of range is the one warning (Field_num::get_int)
        ("TINYINT", 5, 5, None),
        ("TINYINT UNSIGNED", -5, 0, 1264),
        ("TINYINT UNSIGNED", 256, 255, 1264),
        ("BIGINT", "1e30", 2**63 - 1, 1264),
        ("DECIMAL(5,2)", Decimal("12345.678"), Decimal("999.99"), 1264),
        ("DECIMAL(5,2)", -12345, Decimal("-999.99"), 1264),
        ("DECIMAL(5,2) UNSIGNED", -1, Decimal("0.00"), 1264),
        ("DECIMAL(5,2)", "x", Decimal("0.00"), 1366),
        ("DECIMAL(5,2)", "1.5kg", Decimal("1.50"), 1265),
        ("DOUBLE", "2.5x", 2.5, 1265),
        ("VARCHAR(5)", "abcdefgh", "abcde", 1265),
        ("CHAR(3)", "wxyz", "wxy", 1265),
        ("CHAR(3)", "ab  cd", "ab", 1265),  # CHAR drops the trailing spaces the cut leaves
        ("VARBINARY(2)", b"abc", b"ab", 1265),
        ("BINARY(2)", b"abc", b"ab", 1265),
        ("BIT(2)", 7, 3, 1264),
        ("YEAR", 2200, 0, 1264),
        ("YEAR", 1800, 0, 1264),
        ("YEAR", "abc", 0, 1366),
    ],
)
def test_a_value_that_does_not_fit_is_adjusted_with_a_warning(column_type: str, value: object, stored: object, warning: int | None) -> None:
    kind = _type(column_type)
    result, error = coerce_leniently(kind, value, "c", 2)
    assert (result, error.code if error else None) == (stored, warning)
    if warning is not None:
        with pytest.raises(SqlError):
            kind.coerce(value, "c", 2)


@pytest.mark.parametrize(
    ("flavor", "value", "stored", "warning"),
    [
        (MARIADB_1011, "900:00:00", dt.timedelta(hours=838, minutes=59, seconds=59), 1264),
        (MARIADB_1011, "-900:00:00", -dt.timedelta(hours=838, minutes=59, seconds=59), 1264),
        (MYSQL_80, "900:00:00", dt.timedelta(hours=838, minutes=59, seconds=59), 1264),
        (MYSQL_80, "-900:00:00", -dt.timedelta(hours=838, minutes=59, seconds=59), 1264),
    ],
)
def test_a_time_beyond_its_range_is_clipped(flavor: Flavor, value: str, stored: dt.timedelta, warning: int) -> None:
    result, error = coerce_leniently(ColumnType("TIME"), value, "c", 1, flavor.temporal)
    assert (result, error.code if error else None) == (stored, warning)


@pytest.mark.parametrize("strict_mode", [True, False])
def test_text_cut_short_is_1406_while_the_sql_mode_is_strict(strict_mode: bool) -> None:
    """STRICT_TRANS_TABLES' later rows of a MyISAM INSERT warn 1406 (abort_on_warning);
    a non-strict sql_mode or IGNORE warns 1265."""
    _, error = coerce_leniently(ColumnType("VARCHAR", length=2), "abc", "c", 2, strict_mode=strict_mode)
    assert error is not None and error.code == (1406 if strict_mode else 1265)


@pytest.mark.parametrize(
    ("column_type", "value"),
    [
        ("DATE", "2020-13-45"),  # the zero date the server stores is not modelled
        ("DATETIME", "nope"),
        ("TIME", "abc"),
        ("DOUBLE", "1e400"),
    ],
)
def test_an_adjustment_the_model_cannot_store_is_refused(column_type: str, value: object) -> None:
    with pytest.raises(SqlError) as raised:
        coerce_leniently(_type(column_type), value, "c", 1, MARIADB_1011.temporal)
    assert raised.value.code == 1235


def _mariadb(sql_mode: str) -> Db:
    db = Db(flavor=MARIADB_1011)
    db.session.variables["sql_mode"] = sql_mode
    return db


@pytest.mark.parametrize(
    ("sql_mode", "engine", "sql", "error", "warnings", "rows"),
    [
        ("", "InnoDB", "INSERT INTO t VALUES (1, 300, 1), (2, 1, NULL)", None, [1264, 1048], [(1, 127, 1), (2, 1, 0)]),
        ("", "InnoDB", "INSERT INTO t VALUES (1, 1, NULL)", 1048, [], []),  # one row: NULL fails
        ("", "InnoDB", "INSERT INTO t (id) VALUES (1), (2)", None, [1364], [(1, None, 0), (2, None, 0)]),
        ("", "MyISAM", "INSERT INTO t VALUES (1, 300, 1)", None, [1264], [(1, 127, 1)]),
        ("STRICT_TRANS_TABLES", "MyISAM", "INSERT INTO t VALUES (1, 1, 1), (2, 300, 1)", None, [1264], [(1, 1, 1), (2, 127, 1)]),
        ("STRICT_TRANS_TABLES", "MyISAM", "INSERT INTO t VALUES (1, 300, 1), (2, 1, 1)", 1264, [], []),
        ("STRICT_TRANS_TABLES", "InnoDB", "INSERT INTO t VALUES (1, 1, 1), (2, 300, 1)", 1264, [], None),
        ("STRICT_ALL_TABLES", "MyISAM", "INSERT INTO t VALUES (1, 1, 1), (2, 300, 1)", 1264, [], [(1, 1, 1)]),
        ("STRICT_TRANS_TABLES", "InnoDB", "INSERT IGNORE INTO t VALUES (1, 300, NULL)", None, [1264, 1048], [(1, 127, 0)]),
        ("STRICT_TRANS_TABLES", "InnoDB", "INSERT INTO t (id) VALUES (1)", 1364, [], []),
    ],
)
def test_a_row_write_is_strict_or_not_as_the_sql_mode_and_engine_say(
    sql_mode: str, engine: str, sql: str, error: int | None, warnings: list[int], rows: list[tuple] | None
) -> None:
    db = _mariadb(sql_mode)
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY, n TINYINT, nn INT NOT NULL) ENGINE={engine}")
    outcome = db.run(sql)
    assert (outcome.error.code if outcome.error else None) == error
    assert [w.code for w in outcome.warnings] == warnings
    if rows is not None:  # a failed InnoDB statement's rows are rolled back by the caller
        assert db.rows("t") == rows
    db.close()


@pytest.mark.parametrize(
    ("sql", "warnings", "rows"),
    [
        ("UPDATE t SET n = n + 1000", [1264], [(1, 127, 5)]),
        ("UPDATE t SET nn = NULL", [1048], [(1, 100, 0)]),
    ],
)
def test_an_update_outside_strict_mode_adjusts_with_a_warning(sql: str, warnings: list[int], rows: list[tuple]) -> None:
    db = _mariadb("")
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, n TINYINT, nn INT NOT NULL) ENGINE=InnoDB")
    db.ok("INSERT INTO t VALUES (1, 100, 5)")
    outcome = db.ok(sql)
    assert [w.code for w in outcome.warnings] == warnings
    assert db.rows("t") == rows
    db.close()


@pytest.mark.parametrize(
    ("schema", "sql"),
    [
        ("CREATE TABLE t (id INT, d DATE)", "INSERT INTO t VALUES (1, '2020-13-45')"),  # the zero date
        ("CREATE TABLE t (id INT, d DATE NOT NULL)", "INSERT INTO t (id) VALUES (1)"),
        ("CREATE TABLE t (id INT, d DATETIME NOT NULL)", "INSERT INTO t VALUES (1, NULL), (2, NULL)"),
        ("CREATE TABLE t (id INT)", "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.id = 1"),  # keeps its sql_mode
        ("CREATE TABLE t (id INT)", "CREATE TABLE u (id INT) ENGINE=NoSuchEngine"),  # substituted, with a warning
        ("CREATE TABLE t (id TINYINT)", "ALTER TABLE t MODIFY id INT"),  # a copy that fits: not refused (control)
    ],
)
def test_what_is_not_modelled_outside_strict_mode_is_refused(schema: str, sql: str) -> None:
    db = _mariadb("")
    db.ok(schema)
    outcome = db.run(sql)
    if sql.startswith("ALTER"):
        assert outcome.error is None
    else:
        assert outcome.error is not None and outcome.error.code == 1235, outcome.error
    db.close()


@pytest.mark.parametrize(
    ("flavor", "sql_mode", "accepted"),
    [
        (MARIADB_1011, "", True),
        (MARIADB_1011, "STRICT_ALL_TABLES", True),
        (MARIADB_1011, "NO_ENGINE_SUBSTITUTION", True),
        (MARIADB_1011, "ANSI_QUOTES", False),
        (MARIADB_1011, "TRADITIONAL", False),
        (MYSQL_80, "", True),  # also drops NO_ZERO_DATE, NO_ZERO_IN_DATE, ONLY_FULL_GROUP_BY (modelled)
        (MYSQL_80, "NO_AUTO_VALUE_ON_ZERO", True),  # mysqldump's
        (MYSQL_80, "TRADITIONAL", False),
        (MYSQL_80, "ONLY_FULL_GROUP_BY,PIPES_AS_CONCAT", False),
        (MYSQL_80, "ONLY_FULL_GROUP_BY,NO_ZERO_IN_DATE,NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION", True),
        (MYSQL_80, "ONLY_FULL_GROUP_BY,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION", True),
    ],
)
def test_which_sql_modes_are_modelled(flavor: Flavor, sql_mode: str, accepted: bool) -> None:
    variable = VariableRegistry(flavor).lookup("sql_mode")
    assert variable.check is not None
    if accepted:
        variable.check(sql_mode)
    else:
        with pytest.raises(SqlError) as raised:
            variable.check(sql_mode)
        assert raised.value.code == 1235


@pytest.mark.parametrize(
    ("flavor", "sql_mode", "sql", "warning"),
    [
        (MARIADB_1011, "STRICT_TRANS_TABLES", "INSERT IGNORE INTO t VALUES (4)", 1264),  # recorded
        (MARIADB_1011, "", "INSERT INTO t VALUES (4)", 1264),  # recorded
        (MYSQL_80, "STRICT_TRANS_TABLES", "INSERT IGNORE INTO t VALUES (4)", 1406),  # mysql-test type_bit_myisam
        (MYSQL_80, "STRICT_TRANS_TABLES", "INSERT INTO t VALUES (1), (4)", 1406),
        (MYSQL_80, "NO_ENGINE_SUBSTITUTION", "INSERT INTO t VALUES (4)", 1264),
    ],
)
def test_a_bit_with_too_many_bits_warns_as_the_flavor_does(flavor: Flavor, sql_mode: str, sql: str, warning: int) -> None:
    db = Db(flavor=flavor)
    db.session.variables["sql_mode"] = sql_mode
    db.ok("CREATE TABLE t (b BIT(2)) ENGINE=MyISAM")
    outcome = db.ok(sql)
    assert [w.code for w in outcome.warnings] == [warning]
    assert db.rows("t")[-1] == (b"\x03",)  # all bits set, as the client reads it
    db.close()
