"""Text columns under a _bin collation of utf8mb4, utf8mb3 or ascii compare and order by
code point (recorded: bin-collation-keys, bin-collation-slave-ci): keys, conditions,
ORDER BY, GROUP BY and DISTINCT tell 'a' from 'A'; a function that matches text ignoring
case, a _bin column compared with a _ci one, latin1_bin and the _cs collations are 1235."""

from __future__ import annotations

import pytest

from server_sim.collation import compares_exactly
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db


@pytest.mark.parametrize(
    ("collation", "exact"),
    [
        ("utf8mb4_bin", True),
        ("utf8mb3_bin", True),
        ("ascii_bin", True),
        ("utf8mb4_0900_bin", True),
        ("latin1_bin", False),  # latin1's byte order is not its code points' (0x80-0x9F)
        ("utf8mb4_general_ci", False),
        ("utf8mb4_0900_as_cs", False),
    ],
)
def test_which_collations_compare_by_code_point(collation: str, exact: bool) -> None:
    assert compares_exactly(collation) is exact


@pytest.fixture(params=[(MYSQL_80, True), (MYSQL_80, False), (MARIADB_1011, True)], ids=["mysql-fast", "mysql-duckdb", "mariadb-fast"])
def db(request: pytest.FixtureRequest) -> Db:
    flavor, fast_path = request.param
    server = Db(flavor=flavor, fast_path=fast_path)
    server.ok("CREATE TABLE b (id INT PRIMARY KEY, k VARCHAR(10) COLLATE utf8mb4_bin, c VARCHAR(10), UNIQUE KEY (k))")
    server.ok("INSERT INTO b VALUES (1, 'a', 'a'), (2, 'A', 'A'), (3, 'b', 'B')")
    return server


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("SELECT id FROM b WHERE k = 'a'", [(1,)]),
        ("SELECT id FROM b WHERE c = 'a' ORDER BY id", [(1,), (2,)]),  # the _ci column beside it
        ("SELECT id FROM b WHERE k IN ('A', 'B') ORDER BY id", [(2,)]),
        ("SELECT id FROM b WHERE k LIKE 'a%'", [(1,)]),
        ("SELECT k FROM b ORDER BY k", [("A",), ("a",), ("b",)]),
        ("SELECT COUNT(DISTINCT k), COUNT(DISTINCT c) FROM b", [(3, 2)]),
        ("SELECT k, COUNT(*) FROM b GROUP BY k ORDER BY k", [("A", 1), ("a", 1), ("b", 1)]),
        ("SELECT id FROM b WHERE UPPER(k) = 'a'", []),  # the _bin column's collation, not the connection's
        ("SELECT REPLACE(k, 'a', 'x'), LENGTH(k) FROM b WHERE id = 1", [("x", 1)]),
    ],
)
def test_a_bin_column_compares_by_code_point(db: Db, sql: str, rows: list[tuple]) -> None:
    assert db.ok(sql).rows == rows


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("INSERT INTO b VALUES (4, 'a', 'x')", 1062, "Duplicate entry 'a' for key"),
        ("UPDATE b SET k = 'A' WHERE id = 3", 1062, "Duplicate entry 'A' for key"),
        ("SELECT LOCATE('a', k) FROM b", 1235, "LOCATE() of the column k under utf8mb4_bin (the simulator matches text ignoring case there)"),
        ("SELECT id FROM b WHERE k REGEXP 'A'", 1235, "REGEXP_LIKE() of the column k under utf8mb4_bin"),
        ("SELECT id FROM b WHERE UPPER(k) = c", 1235, "comparing values of columns of a _bin and a _ci collation (UPPER(k), c) where one is computed"),
    ],
)
def test_bin_column_errors(db: Db, sql: str, code: int, message: str) -> None:
    error = db.error(sql)
    assert error.code == code and message in error.message, error


def test_a_case_distinct_value_is_written_beside_its_twin() -> None:
    server = Db(flavor=MYSQL_80)
    server.ok("CREATE TABLE b (k VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY, v INT)")
    server.ok("INSERT INTO b VALUES ('a', 1)")
    server.ok("INSERT INTO b VALUES ('A', 2) ON DUPLICATE KEY UPDATE v = 9")
    server.ok("REPLACE INTO b VALUES ('a', 3)")
    assert server.ok("SELECT k, v FROM b ORDER BY k").rows == [("A", 2), ("a", 3)]


@pytest.mark.parametrize(
    ("definition", "collation"),
    [
        ("a VARCHAR(10) BINARY", "utf8mb4_bin"),  # the BINARY attribute: its charset's _bin collation
        ("a CHAR(3) CHARACTER SET ascii BINARY", "ascii_bin"),
        ("a VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin", "utf8mb4_0900_bin"),
    ],
)
def test_a_bin_collation_is_declared(definition: str, collation: str) -> None:
    server = Db(flavor=MYSQL_80)
    server.ok(f"CREATE TABLE t ({definition})")
    assert server.server.catalog.require(None, "t", 0).column("a").type.collation == collation


@pytest.mark.parametrize(
    ("definition", "refused"),
    [
        ("a VARCHAR(10) COLLATE latin1_bin", "collation latin1_bin of column a"),
        ("a CHAR(3) CHARACTER SET latin1 BINARY", "collation latin1_bin of column a"),
        ("a VARCHAR(10) BINARY COLLATE utf8mb4_bin", "BINARY with COLLATE on column a"),
        ("a VARCHAR(10) COLLATE utf8mb4_0900_as_cs", "collation utf8mb4_0900_as_cs of column a"),
    ],
)
def test_collations_neither_ignoring_case_nor_by_code_point_are_refused(definition: str, refused: str) -> None:
    error = Db(flavor=MYSQL_80).error(f"CREATE TABLE t ({definition})")
    assert error.code == 1235 and refused in error.message
