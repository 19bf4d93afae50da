"""Different servers really differ: UUID(), SYSDATE(), NOW(), RAND() and variables come
from the executing server and session, not the statement's text.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import datetime as dt
import struct
import uuid
from collections.abc import Iterator
from decimal import Decimal

import pytest

from tests.support import MASTER, SLAVE, Db


@pytest.fixture
def pair() -> Iterator[tuple[Db, Db]]:
    master, slave = Db(MASTER), Db(SLAVE)
    yield master, slave
    master.server.close()
    slave.server.close()


def test_uuid_differs_between_servers_and_calls(pair: tuple[Db, Db]) -> None:
    master, slave = pair
    moment = dt.datetime(2030, 1, 1)
    first = master.query("SELECT UUID(), UUID()", timestamp=moment)[0]
    second = slave.query("SELECT UUID(), UUID()", timestamp=moment)[0]
    values = {*first, *second}
    assert len(values) == 4
    for value in values:
        assert uuid.UUID(value).version == 1
    # The node part identifies the server.
    assert uuid.UUID(first[0]).node == uuid.UUID(first[1]).node != uuid.UUID(second[0]).node


def test_uuid_in_a_multi_row_insert_is_computed_per_row(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(36))")
    outcome = db.ok("INSERT INTO t VALUES (1, UUID()), (2, UUID())")
    assert outcome.changes[0].after[1] != outcome.changes[1].after[1]


def test_sysdate_follows_each_servers_clock_not_the_statement_timestamp(pair: tuple[Db, Db]) -> None:
    master, slave = pair
    moment = dt.datetime(2030, 1, 1)
    on_master = master.value("SELECT SYSDATE()", timestamp=moment)
    on_slave = slave.value("SELECT SYSDATE()", timestamp=moment)
    assert on_master != on_slave
    assert on_master == master.server.now() and on_slave == slave.server.now()
    assert moment not in (on_master, on_slave)


def test_now_follows_the_statement_context_timestamp(pair: tuple[Db, Db]) -> None:
    master, slave = pair
    moment = dt.datetime(2031, 2, 3, 4, 5, 6)
    expected = (moment, moment, moment.date(), moment.time())
    for server in (master, slave):
        row = server.query("SELECT NOW(), CURRENT_TIMESTAMP(), CURDATE(), CURTIME()", timestamp=moment)[0]
        assert row == expected


def test_now_is_fixed_for_the_whole_statement(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, at DATETIME)")
    moment = dt.datetime(2030, 7, 1, 8, 0, 0)
    outcome = db.ok("INSERT INTO t VALUES (1, NOW()), (2, NOW())", timestamp=moment)
    assert [change.after[1] for change in outcome.changes] == [moment, moment]


def _my_rnd(seed1: int, seed2: int, count: int) -> list[float]:
    """MySQL's my_rnd(), written out independently."""
    maximum = 0x3FFFFFFF
    values = []
    for _ in range(count):
        seed1 = (seed1 * 3 + seed2) % maximum
        seed2 = (seed1 + seed2 + 33) % maximum
        values.append(seed1 / maximum)
    return values


def test_rand_follows_the_session_seeds(pair: tuple[Db, Db]) -> None:
    master, slave = pair
    for server in (master, slave):
        server.session.rand_seed1, server.session.rand_seed2 = 12345, 67890
    on_master = [*master.query("SELECT RAND(), RAND()")[0], master.value("SELECT RAND()")]
    on_slave = [*slave.query("SELECT RAND(), RAND()")[0], slave.value("SELECT RAND()")]
    assert on_master == on_slave == _my_rnd(12345, 67890, 3)


def test_rand_differs_for_sessions_with_different_seeds(db: Db) -> None:
    other = db.new_session()
    other.rand_seed1, other.rand_seed2 = db.session.rand_seed1 + 1, db.session.rand_seed2
    assert db.value("SELECT RAND()") != db.value("SELECT RAND()", session=other)


def test_two_sessions_with_equal_seeds_produce_the_same_sequence(db: Db) -> None:
    one, two = db.new_session(), db.new_session()
    for session in (one, two):
        session.rand_seed1, session.rand_seed2 = 1000, 2000
    first = [db.value("SELECT RAND()", session=one) for _ in range(3)]
    second = [db.value("SELECT RAND()", session=two) for _ in range(3)]
    assert first == second == _my_rnd(1000, 2000, 3)


def test_rand_with_a_constant_seed_matches_mysql(db: Db) -> None:
    assert db.value("SELECT RAND(1)") == 0.40540353712197724
    # Each statement starts RAND(N)'s generator afresh.
    assert db.value("SELECT RAND(1)") == 0.40540353712197724


def test_each_rand_with_a_constant_seed_has_its_own_generator(db: Db) -> None:
    assert db.query("SELECT RAND(1), RAND(1)") == [(0.40540353712197724, 0.40540353712197724)]


def test_user_and_server_variables_come_from_the_executing_server(pair: tuple[Db, Db]) -> None:
    master, slave = pair
    assert master.query("SELECT @@server_id, @@hostname, USER(), DATABASE()") == [(1, "master", "root@localhost", "test")]
    assert slave.query("SELECT @@server_id, @@hostname") == [(2, "slave")]


def test_a_multi_row_update_stores_each_type_as_a_single_row_update_would(db: Db) -> None:
    db.ok(
        "CREATE TABLE t (id INT PRIMARY KEY, d DECIMAL(6,2), f FLOAT, x DOUBLE, s VARCHAR(8), b BLOB, "
        "dt DATETIME, u BIGINT UNSIGNED, n INT) ENGINE=InnoDB"
    )
    db.ok("INSERT INTO t VALUES (1, 1.5, 0.1, 0.1, 'a', 'x', '2024-01-02 03:04:05', 1, NULL), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2)")
    db.ok(
        "UPDATE t SET d = d + 1, f = 0.3, x = 1e300, s = CONCAT('Z', id), b = 'yz', dt = '2025-05-06 07:08:09', "
        "u = 18446744073709551615, n = NULL"
    )
    assert db.rows("t") == [
        (1, Decimal("2.50"), struct.unpack("f", struct.pack("f", 0.3))[0], 1e300, "Z1", b"yz", dt.datetime(2025, 5, 6, 7, 8, 9), 18446744073709551615, None),
        (2, None, struct.unpack("f", struct.pack("f", 0.3))[0], 1e300, "Z2", b"yz", dt.datetime(2025, 5, 6, 7, 8, 9), 18446744073709551615, None),
    ]
