"""PAD SPACE collations compare text as if its trailing spaces were not there ('a ' = 'a',
so a key holding 'a' refuses 'a ' with 1062); DuckDB compares every character. A value
with trailing spaces stored into such a column, or compared with one, is refused (1235);
MySQL's utf8mb4 default (utf8mb4_0900_ai_ci) is NO PAD and keeps them as any character."""

from __future__ import annotations

import pytest

from server_sim.collation import pads_spaces
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db


@pytest.mark.parametrize(
    ("collation", "pads"),
    [
        ("latin1_swedish_ci", True),
        ("utf8mb4_general_ci", True),  # MariaDB's utf8mb4 default
        ("utf8mb3_general_ci", True),
        ("ascii_general_ci", True),
        ("utf8mb4_unicode_ci", True),
        ("utf8mb4_0900_ai_ci", False),  # MySQL's utf8mb4 default
        ("utf8mb4_nopad_bin", False),
        (None, False),  # no table column
    ],
)
def test_which_collations_pad_spaces(collation: str | None, pads: bool) -> None:
    assert pads_spaces(collation) is pads


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "duckdb"])
@pytest.mark.parametrize(
    ("flavor", "charset", "sql", "answer"),
    [
        (MYSQL_80, "latin1", "INSERT INTO t VALUES (2, 'a ')", "a value with trailing spaces stored into the column 'a' (its collation latin1_swedish_ci compares text as if they were not there)"),
        (MARIADB_1011, "utf8mb4", "INSERT INTO t VALUES (2, 'b ')", "a value with trailing spaces stored into the column 'a' (its collation utf8mb4_general_ci compares text as if they were not there)"),
        (MARIADB_1011, "utf8mb4", "UPDATE t SET a = CONCAT(a, ' ')", "a value with trailing spaces stored into the column 'a' (its collation utf8mb4_general_ci compares text as if they were not there)"),
        (MYSQL_80, "latin1", "SELECT id FROM t WHERE a = 'a  '", "comparing the column a with 'a  ' (its collation latin1_swedish_ci ignores trailing spaces)"),
        (MARIADB_1011, "utf8mb4", "SELECT id FROM t WHERE a IN ('x', 'a ')", "comparing the column a with 'a ' (its collation utf8mb4_general_ci ignores trailing spaces)"),
        (MARIADB_1011, "utf8mb4", "DELETE FROM t WHERE a BETWEEN 'a ' AND 'b'", "comparing the column a with 'a ' (its collation utf8mb4_general_ci ignores trailing spaces)"),
        (MYSQL_80, "utf8mb4", "INSERT INTO t VALUES (2, 'a ')", None),  # NO PAD: 'a ' is another key than 'a'
        (MYSQL_80, "utf8mb4", "SELECT id FROM t WHERE a = 'a '", []),
        (MYSQL_80, "latin1", "SELECT id FROM t WHERE a = 'a' AND a LIKE 'a%'", [(1,)]),
    ],
)
def test_trailing_spaces_under_a_pad_space_collation_are_refused(flavor, charset: str, sql: str, answer: object, fast_path: bool) -> None:
    db = Db(flavor=flavor, fast_path=fast_path)
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), UNIQUE KEY (a)) CHARSET {charset}")
    db.ok("INSERT INTO t VALUES (1, 'a')")
    outcome = db.run(sql)
    if isinstance(answer, str):
        assert outcome.error is not None and (outcome.error.code, outcome.error.message) == (1235, f"This version of MySQL doesn't yet support '{answer}'")
    else:
        assert outcome.error is None, outcome.error
        if answer is not None:
            assert outcome.rows == answer
    db.close()



@pytest.mark.parametrize(
    ("flavor", "names", "condition", "answer"),
    [
        (MYSQL_80, "utf8mb4", "'abc' = 'ABC'", 1),
        (MYSQL_80, "utf8mb4", "'a' = 'a '", 0),  # utf8mb4_0900_ai_ci is NO PAD
        (MARIADB_1011, "utf8mb4", "'abc' = 'ABC' AND 'é' = 'e'", 1),
        (MARIADB_1011, "utf8mb4", "'a' = 'a '", "comparing 'a ' under collation_connection utf8mb4_general_ci, which ignores trailing spaces"),
        (MYSQL_80, "utf8mb4 COLLATE utf8mb4_0900_bin", "'abc' = 'ABC' OR 'a' < 'B'", 0),  # a _bin collation compares code points
        (MYSQL_80, "utf8mb4 COLLATE utf8mb4_0900_as_cs", "'abc' = 'ABC'", "comparing strings under collation_connection utf8mb4_0900_as_cs"),
    ],
)
def test_strings_compared_with_no_column_follow_the_connection_collation(new_master, flavor, names: str, condition: str, answer: object) -> None:
    master = new_master(["CREATE TABLE r (v INT)"], flavor=flavor)
    assert master.submit("con1", f"SET NAMES {names}").error is None
    result = master.submit("con1", f"INSERT INTO r SELECT 1 FROM DUAL WHERE {condition}")
    if isinstance(answer, str):
        assert result.error is not None and (result.error.code, result.error.message) == (1235, f"This version of MySQL doesn't yet support '{answer}'")
    else:
        assert result.error is None, result.error
        assert result.affected_rows == answer
