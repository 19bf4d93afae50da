"""`/` and AVG of exact numbers (server_sim/functions/exact_division.py): the quotient's
value carries whole 9-digit words of fraction, cut; a column stores it rounded to its
scale (Note 1265 where a DECIMAL column rounds); a comparison reads it at its declared
scale where the server is known to (MariaDB), and every place the simulator cannot
follow is refused. MariaDB's recorded answers: scenarios/oracle/exact-division.yaml."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

NOT_SUPPORTED = "This version of MySQL doesn't yet support '{}'"


@pytest.fixture(params=[MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
def db(request: pytest.FixtureRequest) -> Db:
    db = Db(flavor=request.param)
    db.ok("CREATE TABLE w (id INT PRIMARY KEY, a INT, b INT, p DECIMAL(10,2), f DOUBLE, s VARCHAR(10))")
    db.ok("CREATE TABLE r (id INT PRIMARY KEY, d DECIMAL(30,20), m DECIMAL(10,2), i INT, f DOUBLE)")
    db.ok("INSERT INTO w VALUES (1, 1, 3, 10.25, 0.5, '3'), (2, 2, 3, 1.00, 2, '4'), (3, -2, 3, 0.10, 4, '8')")
    yield db
    db.close()


@pytest.mark.parametrize(
    ("expression", "stored"),
    [
        # The value: whole 9-digit words of fraction for both operands' digits plus 4, cut.
        ("a / b", [Decimal("0.333333333"), Decimal("0.666666666"), Decimal("-0.666666666")]),
        ("p / b", [Decimal("3.416666666"), Decimal("0.333333333"), Decimal("0.033333333")]),
        ("1.123456 / b", [Decimal("0.374485333333333333")] * 3),
        ("a / b / 3", [Decimal("0.111111111000000000"), Decimal("0.222222222000000000"), Decimal("-0.222222222000000000")]),
        ("a / b * b", [Decimal("0.999999999"), Decimal("1.999999998"), Decimal("-1.999999998")]),
        ("CAST(a AS DECIMAL(10,3)) / b", [Decimal("0.333333333"), Decimal("0.666666666"), Decimal("-0.666666666")]),
        ("(a + 1) / (b - 1)", [Decimal("1.000000000"), Decimal("1.500000000"), Decimal("-0.500000000")]),
        ("CASE WHEN a > 1 THEN a / b ELSE IF(a < 0, a / 7, 0) END", [Decimal("0"), Decimal("0.666666666"), Decimal("-0.285714285")]),
    ],
)
def test_an_exact_quotient_keeps_its_words_of_fraction(db: Db, expression: str, stored: list[Decimal]) -> None:
    db.ok(f"INSERT INTO r (id, d) SELECT id, {expression} FROM w")
    assert [row[1] for row in db.rows("r")] == stored


def test_a_column_stores_the_value_rounded_to_its_scale_with_note_1265(db: Db) -> None:
    outcome = db.ok("INSERT INTO r (id, m, i, f) VALUES (1, 2 / 3, 2 / 3, 2 / 3), (2, 1.5 / 5, 5 / 2, 1 / 4)")
    assert [(row[2], row[3], row[4]) for row in db.rows("r")] == [(Decimal("0.67"), 1, 0.666666666), (Decimal("0.30"), 3, 0.25)]
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == [("Note", 1265, "Data truncated for column 'm' at row 1")]


def test_avg_is_sum_over_count_divided_alike(db: Db) -> None:
    db.ok("INSERT INTO r (id, d, m) SELECT 1, AVG(a), AVG(p) FROM w")
    db.ok("INSERT INTO r (id, d) SELECT 2, AVG(DISTINCT b) FROM w")
    assert [(row[1], row[2]) for row in db.rows("r")] == [(Decimal("0.333333333"), Decimal("3.78")), (Decimal("3.000000000"), None)]


@pytest.mark.parametrize(
    "expression",
    ["a / f", "f / 2", "a / 4e0"],
)
def test_a_double_operand_makes_a_double(db: Db, expression: str) -> None:
    db.ok(f"INSERT INTO r (id, f) SELECT id, {expression} FROM w WHERE id = 1")
    assert isinstance(db.rows("r")[0][4], float)


def test_a_comparison_reads_the_declared_scale_on_mariadb_and_is_refused_on_mysql(db: Db) -> None:
    queries = ["SELECT id FROM w WHERE a / b = 0.3333", "SELECT id FROM w WHERE a / b > 0.666667", "SELECT b FROM w GROUP BY b HAVING AVG(a) > 0.3333", "SELECT id FROM w WHERE 0.3333 = (SELECT AVG(a) FROM w)"]
    if db.server.flavor is MARIADB_1011:
        assert [db.query(sql) for sql in queries] == [[(1,)], [(2,)], [], [(1,), (2,), (3,)]]
    else:
        for sql in queries:
            assert "(the server rounds its quotient there to its declared scale, 4 digits)" in db.error(sql).message


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("SELECT id FROM w WHERE a / b BETWEEN 0 AND 1", "the division 'a / b' in a comparison (the server rounds its quotient there to its declared scale, 4 digits)"),
        ("SELECT CONCAT(a / b) FROM w", "the division 'a / b' in CONCAT() (the server rounds its quotient there to its declared scale, 4 digits)"),
        ("SELECT id FROM w ORDER BY a / b", "the division 'a / b' in an ORDER BY (the server rounds its quotient there to its declared scale, 4 digits)"),
        ("SELECT s / 2 FROM w", "the division 's / 2' of an operand whose type the simulator cannot tell (the server divides exact numbers as a DECIMAL, others as a DOUBLE)"),
        ("SELECT @x / 2", "the division '@x / 2' of an operand whose type the simulator cannot tell (the server divides exact numbers as a DECIMAL, others as a DOUBLE)"),
    ],
)
def test_where_the_declared_scale_or_the_type_is_unknown_it_is_refused(db: Db, sql: str, refused: str) -> None:
    assert db.error(sql).message == NOT_SUPPORTED.format(refused)


def test_a_windows_avg_is_its_declared_scale_on_mariadb(db: Db) -> None:
    sql = "INSERT INTO r (id, d) SELECT id, AVG(a) OVER (PARTITION BY b) FROM w ORDER BY id"
    if db.server.flavor is MYSQL_80:
        assert db.error(sql).message == NOT_SUPPORTED.format("AVG(a) as a window function of an exact argument (its digits are not recorded for this server)")
        return
    db.ok(sql)
    assert [row[1] for row in db.rows("r")] == [Decimal("0.3333")] * 3
