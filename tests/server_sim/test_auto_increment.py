"""The executor's auto-increment: generated values, LAST_INSERT_ID, increment and offset,
INSERT_ID intervals, TRUNCATE and the AUTO_INCREMENT table option.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import pytest

from server_sim.parser import parse_statement
from tests.support import Db


@pytest.fixture
def auto(db: Db) -> Db:
    db.ok("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    return db


def test_auto_increment_generates_consecutive_values(auto: Db) -> None:
    outcome = auto.ok("INSERT INTO a (v) VALUES (10), (20), (30)")
    assert [change.after for change in outcome.changes] == [(1, 10), (2, 20), (3, 30)]
    assert outcome.insert_id == 1
    outcome = auto.ok("INSERT INTO a VALUES (NULL, 40), (0, 50)")
    assert [change.after for change in outcome.changes] == [(4, 40), (5, 50)]


def test_explicit_larger_value_moves_the_counter(auto: Db) -> None:
    auto.ok("INSERT INTO a (v) VALUES (1)")
    outcome = auto.ok("INSERT INTO a VALUES (10, 2)")
    assert outcome.insert_id is None
    outcome = auto.ok("INSERT INTO a (v) VALUES (3)")
    assert outcome.changes[0].after == (11, 3)
    auto.ok("INSERT INTO a VALUES (5, 4)")  # a smaller explicit value leaves it alone
    assert auto.ok("INSERT INTO a (v) VALUES (5)").changes[0].after == (12, 5)


def test_last_insert_id_is_the_first_generated_value_of_a_multi_row_insert(auto: Db) -> None:
    auto.ok("INSERT INTO a VALUES (10, 0)")
    outcome = auto.ok("INSERT INTO a (v) VALUES (1), (2), (3)")
    assert [change.after[0] for change in outcome.changes] == [11, 12, 13]
    assert outcome.insert_id == 11
    assert auto.session.last_insert_id == 11
    assert auto.value("SELECT LAST_INSERT_ID()") == 11
    # A statement that generates nothing leaves LAST_INSERT_ID alone.
    auto.ok("INSERT INTO a VALUES (100, 0)")
    assert auto.value("SELECT LAST_INSERT_ID()") == 11


def test_last_insert_id_is_per_session(auto: Db) -> None:
    other = auto.new_session()
    auto.ok("INSERT INTO a (v) VALUES (1)")
    auto.ok("INSERT INTO a (v) VALUES (2)", session=other)
    assert auto.value("SELECT LAST_INSERT_ID()") == 1
    assert auto.value("SELECT LAST_INSERT_ID()", session=other) == 2


def test_auto_increment_values_are_not_reused_after_delete(auto: Db) -> None:
    auto.ok("INSERT INTO a (v) VALUES (1), (2), (3)")
    auto.ok("DELETE FROM a WHERE id >= 2")
    assert auto.ok("INSERT INTO a (v) VALUES (4)").changes[0].after == (4, 4)
    auto.ok("DELETE FROM a")
    assert auto.ok("INSERT INTO a (v) VALUES (5)").changes[0].after == (5, 5)


@pytest.mark.parametrize(
    ("increment", "offset", "existing", "expected"),
    [
        ("10", "1", None, [1, 11, 21]),
        ("10", "3", None, [3, 13, 23]),
        ("10", "3", 17, [23, 33, 43]),
        ("5", "5", 5, [10, 15, 20]),
        ("2", "2", None, [2, 4, 6]),
    ],
)
def test_auto_increment_increment_and_offset_are_honoured(
    auto: Db, increment: str, offset: str, existing: int | None, expected: list[int]
) -> None:
    if existing is not None:
        auto.ok(f"INSERT INTO a VALUES ({existing}, 0)")
    auto.session.variables["auto_increment_increment"] = increment
    auto.session.variables["auto_increment_offset"] = offset
    outcome = auto.ok("INSERT INTO a (v) VALUES (1), (2), (3)")
    assert [change.after[0] for change in outcome.changes] == expected
    assert outcome.insert_id == expected[0]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("INSERT INTO a (v) VALUES (1), (2)", [1, 2]),
        ("INSERT INTO a VALUES (NULL, 1), (10, 2), (NULL, 3)", [1, 10, 11]),
        ("INSERT INTO a VALUES (NULL, 1), (2, 2), (NULL, 3)", [1, 2, 3]),
    ],
    ids=["consecutive", "an explicit value moves the interval on", "an explicit value inside it"],
)
def test_an_intvar_insert_id_opens_the_interval_the_statements_rows_take(auto: Db, sql: str, expected: list[int]) -> None:
    """The slave's counter may be ahead (another session's row committed first): the
    statement's rows still continue from the master's first value, not from the counter."""
    auto.ok("INSERT INTO a VALUES (50, 0)")
    statement = parse_statement(sql)
    outcome = auto.executor.run(auto.session, statement, auto.server.statement_context(auto.session, auto.server.tick()), insert_id=1)
    assert [change.after[0] for change in outcome.changes] == expected


@pytest.mark.parametrize("engine", ["InnoDB", "MyISAM"])
def test_truncate_empties_the_table_and_resets_the_counter(db: Db, engine: str) -> None:
    db.ok(f"CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE={engine}")
    db.ok("INSERT INTO a (v) VALUES (1), (2), (3)")
    db.ok("TRUNCATE TABLE a")
    assert db.rows("a") == []
    assert db.ok("INSERT INTO a (v) VALUES (9)").changes[0].after == (1, 9)


def test_create_table_auto_increment_option_sets_the_first_value(db: Db) -> None:
    db.ok("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT=100")
    assert db.ok("INSERT INTO a (v) VALUES (1)").insert_id == 100
