"""FOREIGN KEY checks and cascades beyond what the fixtures show: foreign_key_checks off,
and cascaded changes kept out of the statement's row changes (the binlog's) but in the
transaction (a rollback's)."""

from __future__ import annotations

import pytest

from server_sim.session import ChangeKind
from tests.support import Db


@pytest.fixture
def cascade(db: Db) -> Db:
    db.ok("CREATE TABLE p (id INT PRIMARY KEY)")
    db.ok("CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE)")
    db.ok("INSERT INTO p VALUES (1), (2)")
    db.ok("INSERT INTO c VALUES (10, 1), (20, 2)")
    return db


@pytest.mark.parametrize(
    ("sql", "statement_changes", "c_rows"),
    [
        ("DELETE FROM p WHERE id = 1", [("p", ChangeKind.DELETE)], [(20, 2)]),
        ("UPDATE p SET id = 5 WHERE id = 1", [("p", ChangeKind.UPDATE)], [(10, 5), (20, 2)]),
    ],
)
def test_cascaded_changes_are_the_engines_not_the_statements(cascade: Db, sql: str, statement_changes: list, c_rows: list) -> None:
    transaction = cascade.session.ensure_transaction()
    mark = len(transaction.undo)
    outcome = cascade.ok(sql)
    assert [(change.table.name, change.kind) for change in outcome.changes] == statement_changes
    assert outcome.affected_rows == 1
    assert cascade.rows("c") == c_rows
    assert {change.table.name for change in transaction.undo[mark:]} == {"p", "c"}
    transaction.undo_to(mark, cascade.server.storage)
    assert cascade.rows("c") == [(10, 1), (20, 2)] and cascade.rows("p") == [(1,), (2,)]


@pytest.mark.parametrize("value", ["OFF", "0"])
def test_foreign_key_checks_off_skips_checks_and_cascades(cascade: Db, value: str) -> None:
    cascade.session.variables["foreign_key_checks"] = value
    cascade.ok("INSERT INTO c VALUES (30, 99)")
    cascade.ok("DELETE FROM p WHERE id = 1")
    cascade.ok("CREATE TABLE g (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES nope (id))")
    cascade.ok("DROP TABLE p")
    assert cascade.rows("c") == [(10, 1), (20, 2), (30, 99)]


def test_tables_without_foreign_keys_never_look_for_one(db: Db) -> None:
    """The row changes of a server without any FOREIGN KEY do no foreign key work."""
    db.ok("CREATE TABLE t (id INT PRIMARY KEY)")
    db.ok("CREATE TABLE m (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES t (id)) ENGINE=MyISAM")
    assert db.server.catalog.foreign_keys_defined is False
    db.ok("CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES t (id))")
    assert db.server.catalog.foreign_keys_defined is True
