"""How the master logs a statement that changes a transactional and a non-transactional
table at once (through a stored function or a trigger), each server's way: the caches a
statement in autocommit ends with, the annotation of its rows, a failed one's ROLLBACK."""

from __future__ import annotations

import pytest

from server_sim.binlog.control_events import FRAMING_EVENTS
from server_sim.binlog.events import Query_log_event, type_name_of
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor

SCHEMA = [
    "CREATE TABLE n (a INT NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=MyISAM",
    "CREATE TABLE i (a INT PRIMARY KEY) ENGINE=InnoDB",
    "INSERT INTO i VALUES (1), (2)",
    "CREATE FUNCTION f(x INT) RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO n VALUES (NULL); RETURN x; END",
]


def events_of(master, sql: str) -> list[str]:
    """The events the statement wrote: Query events by their text, others by type; a
    group's start (MySQL's BEGIN, MariaDB's GTID event) left out."""
    start = master.binlog_path.stat().st_size
    master.submit("con1", sql)
    return [
        p.event.query if isinstance(p.event, Query_log_event) else type_name_of(p.event)
        for p in read_binlog(master.binlog_path)
        if p.position >= start and not isinstance(p.event, FRAMING_EVENTS) and "Gtid" not in type_name_of(p.event)
        and not (isinstance(p.event, Query_log_event) and p.event.query == "BEGIN")
    ]


@pytest.mark.parametrize(
    ("flavor", "events"),
    [
        # MySQL: each cache its own group, the statement cache's first.
        (MYSQL_80, ["Table_map", "Write_rows", "COMMIT", "Table_map", "Delete_rows", "Xid"]),
        # MariaDB: one group (recorded: function-changes-data-per-row), one annotation for
        # the statement, the text of the function's INSERT that wrote its first row.
        (MARIADB_1011, ["Annotate_rows", "Table_map", "Write_rows", "Table_map", "Delete_rows", "Xid"]),
    ],
    ids=lambda value: value.name if isinstance(value, Flavor) else "",
)
def test_an_autocommit_statement_that_filled_both_caches(new_master, flavor: Flavor, events: list[str]) -> None:
    master = new_master(SCHEMA, "ROW", flavor, log_bin_trust_function_creators="ON")
    assert events_of(master, "DELETE FROM i WHERE a = f(2)") == events


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda f: f.name)
def test_a_failed_autocommit_statement_that_changed_a_myisam_table_ends_with_rollback(new_master, flavor: Flavor) -> None:
    """MYSQL_BIN_LOG::rollback ends the statement's transaction: the transaction cache
    holding its statement (and the MyISAM change it made) is logged with ROLLBACK."""
    master = new_master(SCHEMA, "STATEMENT", flavor, log_bin_trust_function_creators="ON")
    logged = events_of(master, "INSERT INTO i VALUES (f(1))")
    assert logged[-2:] == ["INSERT INTO i VALUES (f(1))", "ROLLBACK"]


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda f: f.name)
def test_inside_a_transaction_the_statement_cache_is_its_own_group(new_master, flavor: Flavor) -> None:
    master = new_master(SCHEMA, "ROW", flavor, log_bin_trust_function_creators="ON")
    master.submit("con1", "BEGIN")
    assert [e for e in events_of(master, "DELETE FROM i WHERE a = f(2)") if e != "Annotate_rows"] == ["Table_map", "Write_rows", "COMMIT"]
    assert [e for e in events_of(master, "COMMIT") if e != "Annotate_rows"] == ["Table_map", "Delete_rows", "Xid"]
