"""The master: interleaving, locks, transaction boundaries, caches and a reproducible binlog."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from master_sim.master import Master
from server_sim.binlog.events import Query_log_event, Xid_log_event, type_name_of
from server_sim.binlog.control_events import FRAMING_EVENTS, Stop_log_event
from server_sim.binlog.file import read_binlog

SCHEMA = [
    "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE TABLE n (a INT PRIMARY KEY, b INT) ENGINE=MyISAM",
    "INSERT INTO t VALUES (1, 1), (2, 2)",
]


SCHEMA_END: dict[Path, int] = {}


@pytest.fixture
def make_master(new_master) -> Callable[..., Master]:
    """A master with SCHEMA, remembering where its binlog stood after the schema."""

    def make(binlog_format: str = "STATEMENT", seed: int = 5) -> Master:
        master = new_master(SCHEMA, binlog_format, seed=seed)
        SCHEMA_END[master.binlog_path] = master.writer.position
        return master

    return make


def events_after_schema(master: Master) -> list[str]:
    """Event names (Query events by their text) after the schema's events."""
    return [
        p.event.query if isinstance(p.event, Query_log_event) else type_name_of(p.event)
        for p in read_binlog(master.binlog_path)
        if p.position >= SCHEMA_END[master.binlog_path] and not isinstance(p.event, FRAMING_EVENTS)
    ]


def test_a_step_waits_for_a_row_lock_and_runs_when_the_holder_commits(make_master) -> None:
    master = make_master()
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE t SET b = 10 WHERE a = 1", 2)
    waiting = master.submit("con2", "UPDATE t SET b = 20 WHERE a = 1", 3)
    other_row = master.submit("con3", "UPDATE t SET b = 30 WHERE a = 2", 4)
    assert waiting.blocked_by == "con1" and other_row.blocked_by is None
    queued = master.submit("con2", "INSERT INTO n VALUES (1, 1)", 5)
    assert master.server.dump()["n"][1] == []  # queued behind con2's waiting statement
    master.submit("con1", "COMMIT", 6)
    assert waiting.status == "ok" and waiting.ran_after_step == 6 and queued.status == "ok"
    master.finish()
    assert master.server.dump()["t"][1] == [(1, 20), (2, 30)]


def test_a_deadlock_rolls_back_the_requester_with_1213(make_master) -> None:
    master = make_master()
    master.submit("con1", "BEGIN", 1)
    master.submit("con2", "BEGIN", 2)
    master.submit("con1", "UPDATE t SET b = 10 WHERE a = 1", 3)
    master.submit("con2", "UPDATE t SET b = 20 WHERE a = 2", 4)
    assert master.submit("con1", "UPDATE t SET b = 11 WHERE a = 2", 5).blocked_by == "con2"
    victim = master.submit("con2", "UPDATE t SET b = 21 WHERE a = 1", 6)
    assert victim.error.code == 1213
    master.submit("con1", "COMMIT", 7)
    master.finish()
    assert master.server.dump()["t"][1] == [(1, 10), (2, 11)]


def test_open_transactions_are_rolled_back_at_the_end_as_on_disconnect(make_master) -> None:
    master = make_master("ROW")
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE t SET b = 99 WHERE a = 1", 2)
    master.submit("con1", "INSERT INTO n VALUES (5, 5)", 3)
    master.finish()
    tables = master.server.dump()
    assert tables["t"][1] == [(1, 1), (2, 2)]
    assert tables["n"][1] == [(5, 5)]  # a MyISAM change survives the rollback
    # ROW: the N-row went out at statement end; the rolled-back T-row never reaches the binlog.
    assert events_after_schema(master) == ["BEGIN", "Table_map", "Write_rows", "COMMIT"]


KEYED = "CREATE TABLE u (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, UNIQUE KEY k (k)) ENGINE=InnoDB"


@pytest.mark.parametrize(
    ("holder", "waiter", "affected"),
    [
        # the waiter's duplicate check reaches the holder's uncommitted row
        ("INSERT INTO u (id, k) VALUES (4, 0)", "INSERT IGNORE INTO u (id) VALUES (3)", 1),
        ("INSERT INTO u (id, k) VALUES (1, 1)", "REPLACE INTO u (id, k) VALUES (0, 1)", 1),
        ("INSERT INTO u (id, k) VALUES (1, 1)", "INSERT INTO u (id, k) VALUES (2, 1)", 1),
        ("INSERT INTO u (id, k) VALUES (1, 1)", "INSERT INTO u (id, k) VALUES (2, 1) ON DUPLICATE KEY UPDATE k = 3", 1),
        # the waiter reaches by primary key a row the holder inserted (auto-increment id 1)
        ("INSERT INTO u (k) VALUES (7)", "UPDATE u SET k = 8 WHERE id = 1", 0),
        # the waiter's new row takes a key the holder locked while finding no row there
        ("UPDATE u SET k = 9 WHERE id = 2", "INSERT INTO u (k) VALUES (5), (6)", 2),
    ],
)
def test_a_statement_waits_for_the_rows_another_transaction_wrote_or_locked(make_master, holder: str, waiter: str, affected: int) -> None:
    master = make_master()
    master.submit("setup", KEYED)
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", holder, 2)
    waiting = master.submit("con2", waiter, 3)
    assert waiting.blocked_by == "con1"
    master.submit("con1", "ROLLBACK", 4)
    # it runs after the holder's rollback, on the table as the rollback left it
    assert waiting.status == "ok" and waiting.ran_after_step == 4 and waiting.affected_rows == affected
    master.finish()


def test_a_waiting_insert_takes_its_auto_increment_values_when_it_runs(make_master) -> None:
    master = make_master()
    master.submit("setup", KEYED)
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE u SET k = 9 WHERE id = 2", 2)
    waiting = master.submit("con2", "INSERT INTO u (k) VALUES (5), (6)", 3)
    assert master.server.dump()["u"][1] == []  # nothing of the waiting statement is visible
    master.submit("con1", "COMMIT", 4)
    master.finish()
    assert waiting.status == "ok" and master.server.dump()["u"][1] == [(1, 5), (2, 6)]


def test_a_waiting_statement_leaves_no_trace_of_its_first_attempt(make_master) -> None:
    """The attempt that ran into con1's row on the unique key is taken back whole: its row,
    the row id it took and its tick of the clock too, so the statements after it see the
    server as if it had not run yet, and it takes them again when it runs."""
    master = make_master()
    master.submit("setup", KEYED)
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "INSERT INTO u (id, k) VALUES (1, 1)", 2)
    table = master.server.catalog.get("u")
    next_row_id, clock = table.next_row_id, master.server.now()
    waiting = master.submit("con2", "INSERT INTO u (id, k) VALUES (3, 3), (2, 1)", 3)
    assert waiting.blocked_by == "con1"
    assert (table.next_row_id, master.server.now()) == (next_row_id, clock)
    master.submit("con1", "ROLLBACK", 4)
    assert waiting.status == "ok" and waiting.ran_after_step == 4
    assert table.next_row_id == next_row_id + 2 and master.server.now() == clock + dt.timedelta(seconds=1)
    master.finish()


def test_a_statement_naming_a_missing_table_fails_without_taking_locks(make_master) -> None:
    master = make_master()
    master.submit("con1", "BEGIN", 1)
    assert master.submit("con1", "REPLACE INTO missing SELECT * FROM t", 2).error.code == 1146
    assert master.submit("con2", "UPDATE t SET b = 5 WHERE a = 1", 3).blocked_by is None


def test_a_statement_that_ran_at_disconnect_is_rolled_back_with_its_transaction(make_master) -> None:
    master = make_master()
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE t SET b = 10 WHERE a = 1", 2)
    master.submit("con2", "BEGIN", 3)
    waiting = master.submit("con2", "UPDATE t SET b = 20 WHERE a = 1", 4)
    assert waiting.blocked_by == "con1"
    master.finish()  # con1 disconnects first, con2's UPDATE runs, then con2 disconnects
    assert waiting.status == "ok" and master.server.dump()["t"][1] == [(1, 1), (2, 2)]
    assert events_after_schema(master) == []


@pytest.mark.parametrize(
    ("statement", "end"),
    [
        ("UPDATE t SET b = 5 WHERE a = 1", "Xid"),
        ("UPDATE t SET b = 5 WHERE a = 9", "COMMIT"),  # reached no row: InnoDB stayed read-only
        ("UPDATE t SET b = 1 WHERE a = 1", "COMMIT"),  # the row is unchanged: no handler update
        ("DELETE FROM t WHERE b > 5", "COMMIT"),
        ("INSERT IGNORE INTO t VALUES (1, 7)", "Xid"),  # the handler was asked to write the row
    ],
)
def test_a_transaction_ends_with_xid_only_when_innodb_was_asked_to_write_a_row(make_master, statement: str, end: str) -> None:
    master = make_master()
    run_steps(master, ["BEGIN", statement, "COMMIT"])
    master.finish()
    assert events_after_schema(master) == ["BEGIN", statement, end]


@pytest.mark.parametrize(
    ("binlog_format", "expected"),
    [
        # Seed 004 layer 2/3, case 2.a (B T N C): STMT keeps both in the trx cache;
        # ROW sends the N-row at statement end and the T-row at commit.
        ("STATEMENT", ["BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "INSERT INTO n VALUES (1, 1)", "Xid"]),
        ("ROW", ["BEGIN", "Table_map", "Write_rows", "COMMIT", "BEGIN", "Table_map", "Update_rows", "Xid"]),
    ],
)
def test_b_t_n_commit_caches_and_flushes(make_master, binlog_format: str, expected: list[str]) -> None:
    master = make_master(binlog_format)
    for index, sql in enumerate(["BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "INSERT INTO n VALUES (1, 1)", "COMMIT"], 1):
        master.submit("con1", sql, index)
    master.finish()
    assert events_after_schema(master) == expected


def test_rollback_logs_the_transaction_with_rollback_only_when_it_changed_a_nontransactional_table(make_master) -> None:
    master = make_master("STATEMENT")
    for index, sql in enumerate(["BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "INSERT INTO n VALUES (1, 1)", "ROLLBACK"], 1):
        master.submit("con1", sql, index)
    for index, sql in enumerate(["BEGIN", "UPDATE t SET b = 6 WHERE a = 1", "ROLLBACK"], 5):
        master.submit("con2", sql, index)
    master.finish()
    assert events_after_schema(master) == ["BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "INSERT INTO n VALUES (1, 1)", "ROLLBACK"]


def test_failed_statement_on_a_nontransactional_table_is_logged_with_its_error_code(make_master) -> None:
    master = make_master("STATEMENT")
    master.submit("con1", "INSERT INTO n VALUES (1, 1)", 1)
    failed = master.submit("con1", "INSERT INTO n VALUES (2, 2), (1, 1), (3, 3)", 2)
    assert failed.error.code == 1062 and failed.logged_as == "STATEMENT"
    master.finish()
    query = [e.event for e in read_binlog(master.binlog_path) if isinstance(e.event, Query_log_event) and e.event.query.startswith("INSERT INTO n VALUES (2")]
    assert query[0].error_code == 1062
    assert master.server.dump()["n"][1] == [(1, 1), (2, 2)]


def test_failed_statement_on_a_transactional_table_is_undone_and_not_logged(make_master) -> None:
    master = make_master("STATEMENT")
    failed = master.submit("con1", "INSERT INTO t VALUES (3, 3), (1, 1)", 1)
    assert failed.error.code == 1062 and failed.logged_as == "none"
    master.finish()
    assert master.server.dump()["t"][1] == [(1, 1), (2, 2)]
    assert events_after_schema(master) == []


def test_rollback_to_savepoint_truncates_the_transaction_cache(make_master) -> None:
    master = make_master("ROW")
    for index, sql in enumerate(["BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "SAVEPOINT s1", "UPDATE t SET b = 6 WHERE a = 2", "ROLLBACK TO SAVEPOINT s1", "COMMIT"], 1):
        assert master.submit("con1", sql, index).error is None
    master.finish()
    assert master.server.dump()["t"][1] == [(1, 5), (2, 2)]
    events = events_after_schema(master)
    assert events.count("Update_rows") == 1 and events[-1] == "Xid"


def run_steps(master: Master, steps: list[str]) -> None:
    for index, sql in enumerate(steps, 1):
        assert master.submit("con1", sql, index).error is None
    master.finish()


def test_a_savepoint_before_anything_is_logged_is_not_logged(make_master) -> None:
    """ha_savepoint reaches the transaction's participants; the binlog is none before its first event."""
    master = make_master("MIXED")
    run_steps(master, ["BEGIN", "SAVEPOINT s1", "INSERT INTO n VALUES (5, 5)", "COMMIT"])
    # The trx cache stays empty, so the MyISAM insert is safe and logged as a statement.
    assert events_after_schema(master) == ["BEGIN", "INSERT INTO n VALUES (5, 5)", "COMMIT"]


def test_rollback_to_a_savepoint_set_before_the_binlog_joined_rolls_its_part_back_whole(make_master) -> None:
    master = make_master("STATEMENT")
    steps = ["BEGIN", "SAVEPOINT s1", "UPDATE t SET b = 5 WHERE a = 1", "INSERT INTO n VALUES (5, 5)", "ROLLBACK TO SAVEPOINT s1", "UPDATE t SET b = 7 WHERE a = 2", "COMMIT"]
    run_steps(master, steps)
    assert events_after_schema(master) == [
        "BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "INSERT INTO n VALUES (5, 5)", "ROLLBACK",
        "BEGIN", "UPDATE t SET b = 7 WHERE a = 2", "Xid",
    ]


def test_rollback_to_savepoint_is_logged_when_the_transaction_changed_a_nontransactional_table(make_master) -> None:
    """Also when that change came before the savepoint; InnoDB, joined after it, leaves: no Xid."""
    master = make_master("ROW")
    run_steps(master, ["BEGIN", "INSERT INTO n VALUES (6, 6)", "SAVEPOINT s1", "UPDATE t SET b = 5 WHERE a = 1", "ROLLBACK TO SAVEPOINT s1", "COMMIT"])
    assert events_after_schema(master)[4:] == ["BEGIN", "SAVEPOINT `s1`", "Table_map", "Update_rows", "ROLLBACK TO `s1`", "COMMIT"]


def test_ddl_commits_the_open_transaction_first(make_master) -> None:
    master = make_master("STATEMENT")
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE t SET b = 5 WHERE a = 1", 2)
    master.submit("con1", "CREATE TABLE u (a INT)", 3)
    master.submit("con1", "ROLLBACK", 4)
    master.finish()
    assert master.server.dump()["t"][1] == [(1, 5), (2, 2)]
    assert events_after_schema(master) == ["BEGIN", "UPDATE t SET b = 5 WHERE a = 1", "Xid", "CREATE TABLE u (a INT)"]


def test_statement_events_carry_their_context(make_master) -> None:
    master = make_master("STATEMENT")
    master.submit("con1", "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v DOUBLE, w INT)", 1)
    master.submit("con1", "SET @x = 42", 2)
    master.submit("con1", "INSERT INTO ai (v, w) VALUES (RAND(), @x)", 3)
    master.finish()
    names = [type_name_of(e.event) for e in read_binlog(master.binlog_path)]
    index = names.index("Intvar")
    assert names[index : index + 4] == ["Intvar", "RAND", "User var", "Query"]


def test_same_scenario_and_seed_give_the_same_binlog_byte_for_byte(make_master) -> None:
    binlogs = []
    for _ in range(2):
        master = make_master("STATEMENT")
        master.submit("con1", "INSERT INTO t VALUES (3, 3)", 1)
        master.submit("con1", "UPDATE t SET b = b + 1 LIMIT 1", 2)
        master.finish()
        binlogs.append(master.binlog_path.read_bytes())
    assert binlogs[0] == binlogs[1]
    assert any(isinstance(e.event, Xid_log_event) for e in read_binlog(master.binlog_path))


def _codes(result) -> list[int]:
    return [condition.code for condition in result.notes]


def test_rollback_of_non_transactional_changes_warns_1196(make_master) -> None:
    master = make_master()
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "INSERT INTO t VALUES (3, 3)", 2)
    master.submit("con1", "INSERT INTO n VALUES (3, 3)", 3)
    assert _codes(master.submit("con1", "ROLLBACK", 4)) == [1196]
    master.submit("con1", "BEGIN", 5)
    master.submit("con1", "INSERT INTO t VALUES (4, 4)", 6)
    assert _codes(master.submit("con1", "ROLLBACK", 7)) == []


def test_a_statement_that_fails_after_changing_a_myisam_table_warns_1196(make_master) -> None:
    master = make_master()
    master.submit("con1", "INSERT INTO n VALUES (5, 5)", 1)
    failed = master.submit("con1", "INSERT INTO n VALUES (6, 6), (5, 5)", 2)
    assert failed.error is not None and failed.error.code == 1062
    assert _codes(failed) == [1196]
    assert master.server.dump()["n"][1] == [(5, 5), (6, 6)]


@pytest.mark.parametrize(
    ("engine", "logged"),
    [("MyISAM", False), ("MEMORY", False), ("BLACKHOLE", False), ("InnoDB", True)],
)
def test_update_with_where_on_an_empty_table_is_logged_only_without_an_exact_row_count(make_master, engine: str, logged: bool) -> None:
    master = make_master()
    master.submit("setup", f"CREATE TABLE e (a INT PRIMARY KEY, b INT) ENGINE={engine}")
    start = master.writer.position
    result = master.submit("con1", "UPDATE e SET b = 1 WHERE a = 1", 1)
    assert result.error is None
    queries = [p.event.query for p in read_binlog(master.binlog_path) if p.position >= start and isinstance(p.event, Query_log_event)]
    assert ("UPDATE e SET b = 1 WHERE a = 1" in queries) is logged


def test_blackhole_update_in_row_format_warns_that_no_rows_are_logged(make_master) -> None:
    master = make_master("ROW")
    master.submit("setup", "CREATE TABLE b (a INT PRIMARY KEY, x INT) ENGINE=BLACKHOLE")
    result = master.submit("con1", "DELETE FROM b", 1)
    assert [(n.level, n.code, n.name) for n in result.notes] == [("Warning", 1105, "ER_UNKNOWN_ERROR")]
    assert "DELETE statements that modify BLACKHOLE tables in row format" in result.notes[0].message


def test_insert_select_reads_an_innodb_source_in_primary_key_order(make_master) -> None:
    master = make_master()
    master.submit("setup", "CREATE TABLE src (a INT PRIMARY KEY, k INT) ENGINE=InnoDB")
    master.submit("setup", "CREATE TABLE dst (k INT PRIMARY KEY, a INT) ENGINE=InnoDB")
    master.submit("setup", "INSERT INTO src VALUES (2, 10), (1, 10)")
    master.submit("con1", "INSERT IGNORE INTO dst SELECT k, a FROM src", 1)
    assert master.server.dump()["dst"][1] == [(10, 1)]


CREATE_SELECT = "CREATE TABLE c (k INT AUTO_INCREMENT PRIMARY KEY) ENGINE={engine} SELECT b FROM t"


@pytest.mark.parametrize(
    ("binlog_format", "engine", "expected"),
    [
        # R-log-create-select-statement-format: the whole statement, written directly.
        ("STATEMENT", "InnoDB", ["Intvar", CREATE_SELECT.format(engine="InnoDB")]),
        # R-log-create-select-row-format: CREATE TABLE without the SELECT, then BEGIN + rows + commit.
        (
            "ROW",
            "InnoDB",
            ["CREATE TABLE `c` (`k` INT NOT NULL AUTO_INCREMENT, `b` INT DEFAULT NULL, PRIMARY KEY (`k`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci", "BEGIN", "Table_map", "Write_rows", "Xid"],
        ),
        (
            "MIXED",
            "MyISAM",
            ["CREATE TABLE `c` (`k` INT NOT NULL AUTO_INCREMENT, `b` INT DEFAULT NULL, PRIMARY KEY (`k`)) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci", "BEGIN", "Table_map", "Write_rows", "COMMIT"],
        ),
    ],
)
def test_create_select_is_logged_as_seed_001_says(make_master, binlog_format: str, engine: str, expected: list[str]) -> None:
    master = make_master(binlog_format)
    result = master.submit("con1", CREATE_SELECT.format(engine=engine), 1)
    master.finish()
    assert result.error is None and result.unsafe == ["CREATE_SELECT_AUTOINC"]
    assert result.logged_as == ("STATEMENT" if binlog_format == "STATEMENT" else "ROW")
    assert events_after_schema(master) == expected


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "ROW"])
def test_failed_create_select_writes_nothing(make_master, binlog_format: str) -> None:
    master = make_master(binlog_format)
    result = master.submit("con1", "CREATE TABLE c (k INT PRIMARY KEY) ENGINE=MyISAM SELECT 1 AS k FROM t", 1)
    master.finish()
    assert result.error is not None and result.error.code == 1062
    assert (result.logged_as, events_after_schema(master)) == ("none", [])


@pytest.mark.parametrize(
    ("binlog_format", "expected"),
    [
        # Query_log_event: in autocommit temporary-table DDL goes to no cache (a bare
        # Query event), and the session's end drops what the slave has, newest first.
        ("STATEMENT", ["CREATE TEMPORARY TABLE c SELECT a FROM t", "CREATE TEMPORARY TABLE d (a INT)", "DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `d`,`c`"]),
        ("MIXED", []),
        ("ROW", []),
    ],
)
def test_temporary_create_select_is_logged_only_in_statement_format(make_master, binlog_format: str, expected: list[str]) -> None:
    master = make_master(binlog_format)
    assert master.submit("con1", "CREATE TEMPORARY TABLE c SELECT a FROM t", 1).error is None
    assert master.submit("con1", "CREATE TEMPORARY TABLE d (a INT)", 2).error is None
    master.finish()
    assert events_after_schema(master) == expected


def test_each_step_records_the_binlog_range_it_wrote(make_master) -> None:
    master = make_master("STATEMENT")
    begin, insert, commit = (master.submit("con1", sql, i) for i, sql in enumerate(["BEGIN", "INSERT INTO t VALUES (3, 3)", "COMMIT"], 1))
    master.finish()
    assert begin.binlog_ranges == [] and insert.binlog_ranges == []
    [(start, end)] = commit.binlog_ranges
    assert [p.position for p in read_binlog(master.binlog_path) if start <= p.position < end] != []
    assert [type(p.event) for p in read_binlog(master.binlog_path) if p.position >= end] == [Stop_log_event]  # written at shutdown


@pytest.mark.parametrize(
    ("binlog_format", "sql", "expected"),
    [
        # The cascade's child table is mapped (prelocked for writing), its rows are not logged.
        ("ROW", "DELETE FROM fp WHERE a = 1", ["BEGIN", "Table_map", "Table_map", "Delete_rows", "Xid"]),
        ("ROW", "UPDATE fp SET b = 2", ["BEGIN", "Table_map", "Update_rows", "Xid"]),
        ("STATEMENT", "DELETE FROM fp WHERE a = 1", ["BEGIN", "DELETE FROM fp WHERE a = 1", "Xid"]),
        ("STATEMENT", "DROP TABLE fc, fp", ["DROP TABLE `fc`,`fp` /* generated by server */"]),
        ("ROW", "DROP TABLE IF EXISTS fc, nope", ["DROP TABLE IF EXISTS `fc`,`nope` /* generated by server */"]),
    ],
)
def test_foreign_key_cascades_are_mapped_not_logged_and_drop_table_is_logged_as_generated(make_master, binlog_format: str, sql: str, expected: list[str]) -> None:
    master = make_master(binlog_format)
    for index, statement in enumerate(
        [
            "CREATE TABLE fp (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
            "CREATE TABLE fc (a INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES fp (a) ON DELETE CASCADE) ENGINE=InnoDB",
            "INSERT INTO fp VALUES (1, 1)",
            "INSERT INTO fc VALUES (1, 1)",
        ],
        1,
    ):
        master.submit("con1", statement, index)
    SCHEMA_END[master.binlog_path] = master.writer.position
    master.submit("con1", sql, 5)
    master.finish()
    assert events_after_schema(master) == expected


@pytest.mark.parametrize(
    ("holder", "blocked"),
    [
        ("UPDATE fc SET x = 5 WHERE a = 1", True),  # the cascade reaches the row con1 changed
        ("UPDATE fc SET x = 5 WHERE a = 2", False),  # a child row of another parent
    ],
)
def test_a_cascade_waits_for_the_child_rows_another_transaction_locked(make_master, holder: str, blocked: bool) -> None:
    master = make_master()
    for index, sql in enumerate(
        [
            "CREATE TABLE fp (a INT PRIMARY KEY) ENGINE=InnoDB",
            "CREATE TABLE fc (a INT PRIMARY KEY, p INT, x INT, FOREIGN KEY (p) REFERENCES fp (a) ON DELETE CASCADE) ENGINE=InnoDB",
            "INSERT INTO fp VALUES (1), (2)",
            "INSERT INTO fc VALUES (1, 1, 0), (2, 2, 0)",
            "BEGIN",
            holder,
        ],
        1,
    ):
        master.submit("con1", sql, index)
    waiting = master.submit("con2", "DELETE FROM fp WHERE a = 1", 7)
    assert (waiting.blocked_by == "con1") is blocked
    master.submit("con1", "COMMIT", 8)
    master.finish()
    assert waiting.status == "ok" and master.server.dump()["fc"][1] == [(2, 2, 5 if blocked is False else 0)]
