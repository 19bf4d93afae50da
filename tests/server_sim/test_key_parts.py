"""Key parts over a column's first characters (sql_table.cc, prepare_key_column): a
non-unique key's prefix is modelled, a UNIQUE or PRIMARY one refused; the server's 1089
and 1170 for the parts it rejects; SHOW CREATE TABLE writes the prefix; an ALTER TABLE that
shortens a column below its prefix makes the part the whole column. Recorded on MariaDB
10.11: scenarios/oracle/prefix-keys.yaml."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from server_sim.show_create import show_create_table
from tests.support import Db

_REFUSED = "This version of MySQL doesn't yet support '{}'"


@pytest.mark.parametrize(
    ("flavor", "definition", "answer"),
    [
        (MYSQL_80, "k VARCHAR(255), KEY meta_key (k(191))", "KEY `meta_key` (`k`(191))"),
        (MYSQL_80, "k VARCHAR(255), v LONGTEXT, KEY kv (k(10), v(20))", "KEY `kv` (`k`(10), `v`(20))"),
        (MYSQL_80, "k VARCHAR(10), KEY whole (k(10))", "KEY `whole` (`k`)"),  # as long as the column: the whole column
        (MYSQL_80, "b VARBINARY(16), KEY b (b(4))", "KEY `b` (`b`(4))"),
        (MYSQL_80, "n INT, KEY n (n(2))", (1089, "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys")),
        (MYSQL_80, "k VARCHAR(5), KEY k (k(6))", (1089, "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys")),
        (MYSQL_80, "t TEXT, KEY t (t)", (1170, "BLOB/TEXT column 't' used in key specification without a key length")),
        (MARIADB_1011, "t TEXT, KEY t (t)", (1235, _REFUSED.format("a key on the whole BLOB/TEXT column t (MariaDB keys its first bytes, with Note 1071)"))),
        (MYSQL_80, "t TEXT, UNIQUE KEY t (t)", (1235, _REFUSED.format("a UNIQUE key on the whole BLOB/TEXT column t (kept unique by a hash of it)"))),
        (MYSQL_80, "k VARCHAR(50), UNIQUE KEY k (k(6))", (1235, _REFUSED.format("a UNIQUE key on the first 6 characters of k (rows duplicate by their prefix)"))),
    ],
)
def test_key_parts_of_a_create_table(flavor, definition: str, answer: object) -> None:
    db = Db(flavor=flavor)
    outcome = db.run(f"CREATE TABLE m (id INT PRIMARY KEY, {definition})")
    if isinstance(answer, tuple):
        assert outcome.error is not None and (outcome.error.code, outcome.error.message) == answer
    else:
        assert outcome.error is None, outcome.error
        assert answer in show_create_table(db.server.catalog.get("m"))
    db.close()


@pytest.mark.parametrize(
    ("statement", "answer"),
    [
        ("CREATE INDEX x ON m (k(8) DESC, id)", "KEY `x` (`k`(8), `id`)"),
        ("ALTER TABLE m ADD KEY x (k(8))", "KEY `x` (`k`(8))"),
        ("ALTER TABLE m CHANGE k kk VARCHAR(255)", "KEY `meta_key` (`kk`(191))"),
        ("ALTER TABLE m MODIFY k VARCHAR(100)", "KEY `meta_key` (`k`)"),  # shorter than the prefix: the whole column
        ("ALTER TABLE m MODIFY k INT", "KEY `meta_key` (`k`)"),
        ("ALTER TABLE m MODIFY k TEXT", "KEY `meta_key` (`k`(191))"),
    ],
)
def test_key_parts_through_alter_table(statement: str, answer: str) -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE m (id INT PRIMARY KEY, k VARCHAR(255), KEY meta_key (k(191)))")
    db.ok(statement)
    assert answer in show_create_table(db.server.catalog.get("m"))
    db.close()


def test_a_column_a_whole_key_part_names_cannot_become_text() -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE m (id INT PRIMARY KEY, k VARCHAR(255), KEY k (k))")
    error = db.error("ALTER TABLE m MODIFY k TEXT")
    assert (error.code, error.message) == (1170, "BLOB/TEXT column 'k' used in key specification without a key length")
    db.close()


def test_rows_sharing_a_prefix_are_told_apart_by_their_whole_value() -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE m (id INT PRIMARY KEY, k VARCHAR(20), KEY k (k(3)))")
    db.ok("INSERT INTO m VALUES (1, 'abc1'), (2, 'abc2'), (3, 'ABC1')")
    db.ok("DELETE FROM m WHERE k = 'abc1'")
    assert db.ok("SELECT id FROM m ORDER BY id").rows == [(2,)]
    db.close()
