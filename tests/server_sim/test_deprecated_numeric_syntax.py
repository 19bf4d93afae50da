"""MySQL 8.0 warns (1681) for the numeric type syntax it deprecates, once per use, in the
order of the column definitions (sql/parse_tree_column_attrs.h, PT_numeric_type; 9232
such warnings for display widths alone in its own recorded test results); MariaDB reads
the same definitions quietly."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

WIDTH = "Integer display width is deprecated and will be removed in a future release."
DIGITS = "Specifying number of digits for floating point data types is deprecated and will be removed in a future release."
UNSIGNED = "UNSIGNED for decimal and floating point data types is deprecated and support for it will be removed in a future release."
BINARY = "'BINARY as attribute of a type' is deprecated and will be removed in a future release. Please use a CHARACTER SET clause with _bin collation instead"


@pytest.mark.parametrize(
    ("definition", "warnings"),
    [
        ("a INT(11)", [WIDTH]),
        ("a TINYINT(1)", [WIDTH]),  # no exception for the boolean-looking width
        ("a BIGINT(20) UNSIGNED NOT NULL", [WIDTH]),
        ("a INT", []),
        ("a BOOL", []),
        ("a FLOAT(7,2)", [DIGITS]),
        ("a DOUBLE(10,2)", [DIGITS]),
        ("a FLOAT(7)", []),  # a precision alone picks FLOAT or DOUBLE
        ("a DECIMAL(10,2)", []),
        ("a DECIMAL(10,2) UNSIGNED", [UNSIGNED]),
        ("a INT(11), b SMALLINT(5), c VARCHAR(10)", [WIDTH, WIDTH]),
        ("a VARCHAR(10) BINARY, b INT(4)", [BINARY, WIDTH]),  # 1287: the _bin collation of its charset
    ],
)
def test_mysql_warns_for_deprecated_type_syntax(definition: str, warnings: list[str]) -> None:
    outcome = Db(flavor=MYSQL_80).ok(f"CREATE TABLE t ({definition})")
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == [("Warning", 1287 if text == BINARY else 1681, text) for text in warnings]


def test_alter_table_warns_too_and_before_its_other_conditions() -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE t (a INT)")
    assert [w.message for w in db.ok("ALTER TABLE t ADD COLUMN b INT(11), MODIFY a INT(4)").warnings] == [WIDTH, WIDTH]
    assert [w.code for w in db.ok("CREATE TABLE IF NOT EXISTS t (a INT(11))").warnings] == [1681, 1050]


def test_mariadb_reads_the_same_definitions_quietly() -> None:
    assert Db(flavor=MARIADB_1011).ok("CREATE TABLE t (a INT(11), b DOUBLE(10,2), c DECIMAL(5,2) UNSIGNED)").warnings == []
