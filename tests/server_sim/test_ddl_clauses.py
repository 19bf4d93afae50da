"""CREATE TABLE and ALTER TABLE: every clause, table option and action sqlglot can put in
the tree is one the executor reads, or the statement is refused with 1235 naming it."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from server_sim.ddl_clauses import (
    ALTER_TABLE_ARGS,
    CREATE_ONLY_OPTIONS,
    CREATE_TABLE_ARGS,
    INERT_TABLE_OPTIONS,
    MODELLED_TABLE_OPTIONS,
    check_alter_table,
    check_create_table,
    check_table_option,
)
from server_sim.errors import SqlError
from tests.support import Db


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


PROPERTIES = sorted(_subclasses(exp.Property), key=lambda cls: cls.__name__)


@pytest.mark.parametrize("name", sorted(set(exp.Alter.arg_types) - ALTER_TABLE_ARGS))
def test_every_alter_clause_not_read_is_refused(name: str) -> None:
    tree = sqlglot.parse_one("ALTER TABLE t ENGINE=InnoDB", read="mysql")
    tree.set(name, exp.var("X"))
    with pytest.raises(SqlError) as raised:
        check_alter_table(tree)
    assert raised.value.code == 1235 and name.upper().replace("_", " ") in raised.value.message


@pytest.mark.parametrize("name", sorted(set(exp.Create.arg_types) - CREATE_TABLE_ARGS))
def test_every_create_clause_not_read_is_refused(name: str) -> None:
    tree = sqlglot.parse_one("CREATE TABLE t (a INT)", read="mysql")
    tree.set(name, exp.var("X"))
    with pytest.raises(SqlError) as raised:
        check_create_table(tree)
    assert raised.value.code == 1235 and name.upper().replace("_", " ") in raised.value.message


@pytest.mark.parametrize("creating", [True, False], ids=["CREATE", "ALTER"])
@pytest.mark.parametrize("option", PROPERTIES, ids=lambda cls: cls.__name__)
def test_every_table_option_is_read_or_refused(option: type[exp.Property], creating: bool) -> None:
    """Each of sqlglot's table options: accepted only when the model carries it out or it
    changes nothing the model holds; any option a new sqlglot adds is refused."""
    node = option(this=exp.var("x"))
    accepted = MODELLED_TABLE_OPTIONS + INERT_TABLE_OPTIONS + (CREATE_ONLY_OPTIONS if creating else ())
    if issubclass(option, accepted):
        check_table_option(node, creating)
        return
    with pytest.raises(SqlError) as raised:
        check_table_option(node, creating)
    assert raised.value.code == 1235 and raised.value.message.startswith("This version of MySQL doesn't yet support 'table option")


@pytest.mark.parametrize(
    ("sql", "refused"),
    [
        ("ALTER TABLE t ROW_FORMAT=DYNAMIC", "table option ROW_FORMAT=DYNAMIC"),
        ("ALTER TABLE t ALGORITHM=INPLACE, LOCK=NONE", "table option ALGORITHM=INPLACE"),
        ("ALTER TABLE t FORCE", "ALTER TABLE action 'FORCE'"),
        ("ALTER TABLE t ORDER BY a", "table option ORDER BY a"),
        ("ALTER TABLE t RENAME INDEX k TO j", "ALTER TABLE action"),
        ("ALTER TABLE t ADD INDEX (a) USING HASH", "index type USING HASH"),
        ("ALTER TABLE t ADD COLUMN IF NOT EXISTS c INT", "ALTER TABLE action with EXISTS"),
        ("ALTER TABLE t ALTER COLUMN a SET INVISIBLE", "ALTER TABLE action with VISIBLE"),
        ("ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4", "ALTER TABLE statements"),
        ("CREATE TABLE u (a INT) ROW_FORMAT=COMPRESSED", "table option ROW_FORMAT=COMPRESSED"),
        ("CREATE TABLE u (a INT, KEY (a) USING HASH)", "index type USING HASH"),
        ("CREATE TABLE u (a INT) PARTITION BY HASH (a)", "partitioned tables"),
        ("CREATE INDEX j ON t ((a + 1))", "key part"),
        ("CREATE INDEX IF NOT EXISTS j ON t (a)", "CREATE INDEX with EXISTS"),
        ("CREATE TABLE u (a INT, FOREIGN KEY (a) REFERENCES t (a) ON DELETE SET DEFAULT)", "FOREIGN KEY option ON DELETE SET DEFAULT"),
        ("CREATE TABLE u (a INT, FOREIGN KEY (a) REFERENCES t (a) MATCH FULL)", "FOREIGN KEY option MATCH FULL"),
        ("CREATE TABLE u (a INT, FOREIGN KEY (a) REFERENCES other.t (a))", "FOREIGN KEY referencing a table of database 'other'"),
        ("CREATE TEMPORARY TABLE u (a INT, FOREIGN KEY (a) REFERENCES t (a))", "FOREIGN KEY on a temporary table"),
        ("CREATE TABLE u LIKE mysql.general_log", "CREATE TABLE ... LIKE the system table"),
        ("RENAME TABLE t TO other.t", "renaming a table into database 'other'"),
    ],
)
def test_unmodelled_clause_is_refused_naming_it(db: Db, sql: str, refused: str) -> None:
    db.ok("CREATE TABLE t (a INT, KEY k (a))")
    error = db.error(sql)
    assert error.code == 1235 and refused in error.message, error.message


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE t DEFAULT CHARSET=utf8mb4",
        "ALTER TABLE t COLLATE=utf8mb4_general_ci",
        "ALTER TABLE t COMMENT='the comment'",
        "ALTER TABLE t ADD INDEX j (a) USING BTREE",
        "ALTER TABLE t ADD INDEX j (a) COMMENT 'lookups'",
        "CREATE TABLE u (a INT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='x' AUTO_INCREMENT=5",
    ],
)
def test_options_without_effect_on_the_model_are_accepted(db: Db, sql: str) -> None:
    db.ok("CREATE TABLE t (a INT, KEY k (a))")
    db.ok(sql)
