"""A reap step: the client waits for its session's answers, and a statement still waiting
for a lock fails with 1205 (ER_LOCK_WAIT_TIMEOUT) when the lock wait timeout passes. InnoDB
undoes the statement, not its transaction; the session's next statements then run."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor

SCHEMA = ["CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 10), (2, 20)"]


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda f: f.name)
def test_a_waiting_statement_times_out_at_the_reap_and_its_transaction_goes_on(new_master, flavor: Flavor) -> None:
    master = new_master(SCHEMA, "ROW", flavor)
    for sql in ["BEGIN", "UPDATE t SET v = 11 WHERE id = 1"]:
        master.submit("con1", sql)
    for sql in ["BEGIN", "UPDATE t SET v = 21 WHERE id = 2"]:
        master.submit("con2", sql)
    waiting = master.submit("con2", "UPDATE t SET v = v + 100", 5)
    queued = master.submit("con2", "UPDATE t SET v = 22 WHERE id = 2", 6)
    assert (waiting.blocked_by, queued.blocked_by, queued.status) == ("con1", "con1", "ok")
    reap = master.reap("con2", 7)
    assert reap.reap and reap.error is None
    assert (waiting.status, waiting.error.code, waiting.ran_after_step) == ("error", 1205, 7)
    assert waiting.error.message == "Lock wait timeout exceeded; try restarting transaction"
    assert queued.ran_after_step == 7 and queued.error is None
    master.submit("con2", "COMMIT")
    master.submit("con1", "COMMIT")
    assert master.submit("con3", "SELECT v FROM t ORDER BY id").error is None
    assert sorted(master.storage.scan(master.server.catalog.get("t"))) == [(1, 1, 11), (2, 2, 22)]


def test_a_reap_with_nothing_waiting_changes_nothing(new_master) -> None:
    master = new_master(SCHEMA)
    done = master.submit("con1", "UPDATE t SET v = 12 WHERE id = 1")
    assert master.reap("con1").error is None and master.reap("nobody").error is None
    assert done.status == "ok" and done.error is None


@pytest.mark.parametrize(
    ("sql", "value", "codes"),
    [
        ("SET SESSION innodb_lock_wait_timeout = 2", 2, []),
        ("SET innodb_lock_wait_timeout = 0", 1, [1292]),  # below its range: the least, with Warning 1292
        ("SET SESSION lock_wait_timeout = 5", 5, []),
    ],
)
def test_the_lock_wait_timeouts_are_session_values(new_master, sql: str, value: int, codes: list[int]) -> None:
    """Only a reap step decides that a wait timed out; the values are what the session reads back."""
    master = new_master(SCHEMA)
    result = master.submit("con1", sql)
    assert result.error is None and [note.code for note in result.notes] == codes
    name = sql.split()[-3]
    assert master.sessions["con1"].session.variables[name] == str(value)
