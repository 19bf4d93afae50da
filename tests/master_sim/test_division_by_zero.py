"""A division by zero on the master: the server's error or warnings where the simulator can
tell which rows the server divides (recorded on MariaDB 10.11:
scenarios/oracle/division-by-zero.yaml), and 1235 where it cannot."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from master_sim.master import Master
from server_sim.flavor import MARIADB_1011, MYSQL_80

SCHEMA = [
    "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE TABLE tm (a INT PRIMARY KEY, b INT) ENGINE=MyISAM",
    "INSERT INTO t VALUES (1, 0), (2, 1), (3, 0)",
    "INSERT INTO tm VALUES (1, 0), (2, 1)",
]
UNCERTAIN = "a division by zero raising 1365 where the server may not evaluate it (a WHERE, ON, HAVING, ORDER BY or a query with LIMIT reads the rows its access path chooses)"


def _outcome(master: Master, sql: str) -> tuple[int | None, list[int]]:
    result = master.submit("con1", sql)
    return (result.error.code if result.error else None), [n.code for n in result.notes if n.code != 1592]


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=["mysql-8.0", "mariadb-10.11"])
@pytest.mark.parametrize(
    ("sql_mode", "sql", "error", "warnings"),
    [
        # The default sql_mode: strict, with ERROR_FOR_DIVISION_BY_ZERO.
        ("DEFAULT", "INSERT INTO t VALUES (10, 1 / 0)", 1365, []),
        ("DEFAULT", "INSERT INTO t SELECT a + 10, a DIV b FROM t", 1365, []),
        ("DEFAULT", "UPDATE t SET b = a MOD b", 1365, []),
        ("DEFAULT", "UPDATE IGNORE t SET b = a MOD b", None, [1365, 1365]),
        ("DEFAULT", "INSERT INTO tm VALUES (10, 1), (11, 1 / 0)", None, [1365]),
        ("DEFAULT", "SELECT a / b FROM t", None, [1365, 1365]),
        ("DEFAULT", "SELECT a / (b + 1), b / 2 FROM t", None, []),
        ("DEFAULT", "SELECT NULL / b FROM t", None, []),
        ("with STRICT_ALL_TABLES", "INSERT INTO tm VALUES (10, 1), (11, 1 / 0)", 1365, [1196]),  # the first row stays
        # Without ERROR_FOR_DIVISION_BY_ZERO: NULL, no condition, wherever it happens.
        ("without ERROR_FOR_DIVISION_BY_ZERO", "INSERT INTO t SELECT a + 10, a DIV b FROM t", None, []),
        ("without ERROR_FOR_DIVISION_BY_ZERO", "UPDATE t SET b = 5 WHERE a / b IS NULL", None, []),
        ("without ERROR_FOR_DIVISION_BY_ZERO", "SELECT a % b FROM t LIMIT 1", None, []),
        # ERROR_FOR_DIVISION_BY_ZERO without strict mode: warnings.
        ("without STRICT_TRANS_TABLES", "INSERT INTO tm SELECT a + 10, a DIV b FROM t", None, [1365, 1365]),
    ],
)
def test_division_by_zero_fails_or_warns(
    new_master: Callable[..., Master], flavor: object, sql_mode: str, sql: str, error: int | None, warnings: list[int]
) -> None:
    master = new_master(SCHEMA, flavor=flavor)
    modes = flavor.default_sql_mode.split(",")  # type: ignore[attr-defined]
    changed, _, member = sql_mode.partition(" ")
    if changed == "without":
        modes.remove(member)
    elif changed == "with":
        modes = [member if mode == "STRICT_TRANS_TABLES" else mode for mode in modes]
    assert master.submit("con1", f"SET sql_mode = '{','.join(modes)}'").error is None
    assert _outcome(master, sql) == (error, warnings)


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("UPDATE t SET b = 5 WHERE a / b IS NULL", UNCERTAIN),
        ("DELETE FROM t WHERE a DIV b > 1", UNCERTAIN),
        ("DELETE FROM t ORDER BY a DIV b LIMIT 1", UNCERTAIN),
        ("SELECT a / b FROM t LIMIT 1", UNCERTAIN),
        ("SELECT a FROM t WHERE a MOD b = 0", UNCERTAIN),
        ("SELECT t.a FROM t JOIN tm ON t.a / tm.b = 1", UNCERTAIN),
        ("INSERT INTO tm SELECT a + 10, a / b FROM t", "a division by zero (1365) in the rows an INSERT ... SELECT writes into the non-transactional table 'tm' (whether the server fails depends on the row)"),
        ("INSERT INTO t VALUES (1, 1) ON DUPLICATE KEY UPDATE b = a / 0", "a division by zero (1365) in INSERT where the simulator does not model whether the server fails or warns"),
        ("SELECT RAND() / b FROM t", "a division whose operands call a function that changes from call to call ('RAND() / b') by a value that may be 0"),
        ("SELECT a / (b / 0) FROM t", "a division whose operands call a function that changes from call to call ('a / (b / 0)') by a value that may be 0"),
    ],
)
def test_refused_where_the_rows_divided_are_unknown(new_master: Callable[..., Master], sql: str, refused: str) -> None:
    master = new_master(SCHEMA, "STATEMENT", MARIADB_1011)  # MariaDB's comparison of a quotient is modelled (exact_division.py)
    result = master.submit("con1", sql)
    assert result.error is not None and (result.error.code, result.error.message) == (1235, f"This version of MySQL doesn't yet support '{refused}'")


def test_a_division_that_cannot_be_by_zero_is_not_refused(new_master: Callable[..., Master]) -> None:
    master = new_master(SCHEMA)
    assert _outcome(master, "SELECT a FROM t WHERE a DIV 2 > 1 ORDER BY b DIV 2 LIMIT 1") == (None, [])
    assert _outcome(master, "SELECT a FROM t WHERE b <> 0 AND a DIV b > 1") == (None, [])
    assert _outcome(master, "SELECT FLOOR(RAND() * 10) DIV 3, (a / b) / 2 FROM t") == (None, [1365, 1365])
    assert master.submit("con1", "SELECT 7.5 DIV 2, -7.5 DIV 2, -7 DIV 2, -7 % 3, 7 % -3, 7.5 % 2").error is None
