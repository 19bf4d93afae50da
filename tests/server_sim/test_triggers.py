"""Triggers: the CREATE/DROP TRIGGER forms and errors, firing per timing and event, and the
prelocking facts decide_logging_format works from (AUTOINC_COLUMNS, the enlarged table lists).

Errors and texts are MariaDB 10.11's (recorded on the real server); firing follows
sql_insert.cc write_record, sql_update.cc and sql_delete.cc.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from master_sim.analysis import analyze
from master_sim.decision import LoggingFormat, TransactionState, decide_logging_format
from master_sim.unsafe import UnsafeReason
from server_sim.errors import SqlError
from server_sim.flavor import MARIADB_1011, MYSQL_80
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind, TriggerEvent, TriggerTiming, logged_create_trigger
from tests.support import Db


@pytest.fixture
def db() -> Iterator[Db]:
    server = Db(flavor=MARIADB_1011, sorted_rows=True)
    server.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    server.ok("CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(20), old_v INT, new_v INT) ENGINE=InnoDB")
    yield server
    server.server.close()


# -- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "name", "timing", "event", "table", "body_kind"),
    [
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "tr", "AFTER", "INSERT", "t", StatementKind.INSERT),
        ("create trigger tr before update on t for each row set new.v = old.v + 1", "tr", "BEFORE", "UPDATE", "t", None),
        ("CREATE DEFINER=`root`@`localhost` TRIGGER `my tr` BEFORE DELETE ON test.t FOR EACH ROW DELETE FROM log WHERE id = OLD.id", "my tr", "BEFORE", "DELETE", "t", StatementKind.DELETE),
        ("CREATE DEFINER=CURRENT_USER TRIGGER tr AFTER UPDATE ON t FOR EACH ROW UPDATE log SET new_v = NEW.v", "tr", "AFTER", "UPDATE", "t", StatementKind.UPDATE),
        ("CREATE TRIGGER tr AFTER DELETE ON t FOR EACH ROW REPLACE INTO log VALUES (OLD.id, 'gone', OLD.v, NULL)", "tr", "AFTER", "DELETE", "t", StatementKind.REPLACE),
        ("CREATE TRIGGER tr2 AFTER INSERT ON t FOR EACH ROW FOLLOWS tr INSERT INTO log (what) VALUES ('y')", "tr2", "AFTER", "INSERT", "t", StatementKind.INSERT),
    ],
)
def test_create_trigger_forms_parse(sql: str, name: str, timing: str, event: str, table: str, body_kind: StatementKind | None) -> None:
    statement = parse_statement(sql)
    assert statement.kind is StatementKind.CREATE_TRIGGER and statement.kind.is_ddl
    trigger = statement.trigger
    assert trigger is not None
    assert (trigger.name, trigger.timing, trigger.event, trigger.table) == (name, TriggerTiming(timing), TriggerEvent(event), table)
    assert (trigger.body.kind if trigger.body is not None else None) is body_kind


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (old_v) VALUES (OLD.v)", 1363, "There is no OLD row in on INSERT trigger"),
        ("CREATE TRIGGER tr AFTER DELETE ON t FOR EACH ROW INSERT INTO log (new_v) VALUES (NEW.v)", 1363, "There is no NEW row in on DELETE trigger"),
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW SET NEW.v = 1", 1362, "Updating of NEW row is not allowed in after trigger"),
        ("CREATE TRIGGER tr BEFORE UPDATE ON t FOR EACH ROW SET OLD.v = 1", 1362, "Updating of OLD row is not allowed in trigger"),
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SELECT 1", 1235, None),
        ("CREATE TRIGGER tr BEFORE INSERT t FOR EACH ROW SET NEW.v = 1", 1064, None),
    ],
)
def test_create_trigger_refused_by_the_parser(sql: str, code: int, message: str | None) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    assert raised.value.code == code
    if message is not None:
        assert raised.value.message == message


def test_drop_trigger_parses_as_ddl() -> None:
    statement = parse_statement("DROP TRIGGER IF EXISTS tr")
    assert statement.kind is StatementKind.DROP_TRIGGER and statement.kind.is_ddl


def test_logged_create_trigger_carries_the_definer_and_the_text_from_trigger_on() -> None:
    written = parse_statement("CREATE DEFINER=bob@'%' trigger tr before insert on t for each row set new.v = 1").trigger
    assert written is not None
    assert logged_create_trigger(written, "root@localhost") == "CREATE DEFINER=`root`@`localhost` trigger tr before insert on t for each row set new.v = 1"


# -- CREATE / DROP in the catalog ----------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("CREATE TRIGGER tr BEFORE INSERT ON nosuch FOR EACH ROW SET NEW.v = 1", 1146, "Table 'test.nosuch' doesn't exist"),
        ("CREATE TRIGGER tr BEFORE INSERT ON tmp FOR EACH ROW SET NEW.a = 1", 1361, "Trigger's 'tmp' is a view, temporary table or sequence"),
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.zz = 1", 1054, "Unknown column 'zz' in 'NEW'"),
        ("CREATE TRIGGER existing AFTER UPDATE ON t FOR EACH ROW SET @x = 1", 1235, None),
        ("CREATE TRIGGER existing BEFORE INSERT ON t FOR EACH ROW SET NEW.v = 2", 1359, "Trigger 'test.existing' already exists"),
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW PRECEDES nosuch SET NEW.v = 2", 4031, None),
        ("DROP TRIGGER nosuch", 1360, "Trigger does not exist"),
    ],
)
def test_trigger_ddl_errors(db: Db, sql: str, code: int, message: str | None) -> None:
    db.ok("CREATE TEMPORARY TABLE tmp (a INT)")
    db.ok("CREATE TRIGGER existing BEFORE INSERT ON t FOR EACH ROW SET NEW.v = 1")
    error = db.error(sql)
    assert error.code == code
    if message is not None:
        assert error.message == message


def test_drop_trigger_if_exists_notes_a_missing_trigger(db: Db) -> None:
    outcome = db.ok("DROP TRIGGER IF EXISTS nosuch")
    assert [(w.level, w.code) for w in outcome.warnings] == [("Note", 1360)]


def test_drop_table_drops_its_triggers(db: Db) -> None:
    db.ok("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')")
    db.ok("DROP TABLE t")
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    db.ok("INSERT INTO t VALUES (1, 1)")
    assert db.rows("log") == []
    db.ok("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')")


@pytest.mark.parametrize(
    ("second", "stored"),
    [
        ("CREATE TRIGGER b BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v * 10", (0 + 1) * 10),  # by creation: a, b
        ("CREATE TRIGGER b BEFORE INSERT ON t FOR EACH ROW PRECEDES a SET NEW.v = NEW.v * 10", 0 * 10 + 1),
        ("CREATE TRIGGER b BEFORE INSERT ON t FOR EACH ROW FOLLOWS a SET NEW.v = NEW.v * 10", (0 + 1) * 10),
    ],
)
def test_triggers_of_one_timing_and_event_fire_in_their_order(db: Db, second: str, stored: int) -> None:
    db.ok("CREATE TRIGGER a BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v + 1")
    db.ok(second)
    db.ok("INSERT INTO t VALUES (1, 0)")
    assert db.rows("t") == [(1, stored)]


# -- firing --------------------------------------------------------------------------------


LOG_ALL = [
    "CREATE TRIGGER bi BEFORE INSERT ON t FOR EACH ROW INSERT INTO log (what, new_v) VALUES ('bi', NEW.v)",
    "CREATE TRIGGER ai AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what, new_v) VALUES ('ai', NEW.v)",
    "CREATE TRIGGER bu BEFORE UPDATE ON t FOR EACH ROW INSERT INTO log (what, old_v, new_v) VALUES ('bu', OLD.v, NEW.v)",
    "CREATE TRIGGER au AFTER UPDATE ON t FOR EACH ROW INSERT INTO log (what, old_v, new_v) VALUES ('au', OLD.v, NEW.v)",
    "CREATE TRIGGER bd BEFORE DELETE ON t FOR EACH ROW INSERT INTO log (what, old_v) VALUES ('bd', OLD.v)",
    "CREATE TRIGGER ad AFTER DELETE ON t FOR EACH ROW INSERT INTO log (what, old_v) VALUES ('ad', OLD.v)",
]


@pytest.mark.parametrize(
    ("statement", "fired"),
    [
        ("INSERT INTO t VALUES (3, 30)", [("bi", None, 30), ("ai", None, 30)]),
        ("UPDATE t SET v = v + 1 WHERE id = 1", [("bu", 10, 11), ("au", 10, 11)]),
        # BEFORE UPDATE fires for every row reached, AFTER UPDATE only for a changed one.
        ("UPDATE t SET v = 10 WHERE id = 1", [("bu", 10, 10)]),
        ("DELETE FROM t WHERE id = 2", [("bd", 20, None), ("ad", 20, None)]),
        # With DELETE triggers REPLACE deletes the old row and inserts: BEFORE INSERT, the
        # delete's triggers, then AFTER INSERT.
        ("REPLACE INTO t VALUES (1, 15)", [("bi", None, 15), ("bd", 10, None), ("ad", 10, None), ("ai", None, 15)]),
        # ON DUPLICATE KEY UPDATE: BEFORE INSERT, then the update's triggers, no AFTER INSERT.
        ("INSERT INTO t VALUES (1, 99) ON DUPLICATE KEY UPDATE v = 12", [("bi", None, 99), ("bu", 10, 12), ("au", 10, 12)]),
        ("INSERT IGNORE INTO t VALUES (1, 99)", [("bi", None, 99)]),
        ("TRUNCATE TABLE t", []),
    ],
)
def test_row_operations_fire_their_triggers(db: Db, statement: str, fired: list[tuple[str, int | None, int | None]]) -> None:
    db.ok("INSERT INTO t VALUES (1, 10), (2, 20)")
    for sql in LOG_ALL:
        db.ok(sql)
    outcome = db.ok(statement)
    assert [(what, old, new) for _, what, old, new in sorted(db.rows("log"))] == fired
    assert sum(1 for change in outcome.changes if change.table.name == "log") == len(fired)


def test_replace_without_delete_triggers_updates_in_place_and_fires_after_insert(db: Db) -> None:
    db.ok("INSERT INTO t VALUES (1, 10)")
    db.ok(LOG_ALL[1])
    outcome = db.ok("REPLACE INTO t VALUES (1, 15)")
    assert [(change.table.name, change.kind.value) for change in outcome.changes] == [("t", "update"), ("log", "write")]


def test_before_insert_trigger_changes_the_row_before_not_null_and_auto_increment(db: Db) -> None:
    db.ok("CREATE TABLE n (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL, w INT) ENGINE=InnoDB")
    db.ok("CREATE TRIGGER fill BEFORE INSERT ON n FOR EACH ROW SET NEW.v = COALESCE(NEW.v, 7), NEW.w = NEW.v * 2")
    db.ok("INSERT INTO n (v) VALUES (NULL)")
    assert db.rows("n") == [(1, 7, 14)]


def test_before_update_trigger_can_change_the_new_row(db: Db) -> None:
    db.ok("INSERT INTO t VALUES (1, 10)")
    db.ok("CREATE TRIGGER clamp BEFORE UPDATE ON t FOR EACH ROW SET NEW.v = LEAST(NEW.v, 50)")
    db.ok("UPDATE t SET v = 99")
    assert db.rows("t") == [(1, 50)]


def test_an_error_in_a_trigger_fails_the_statement_with_the_rows_changed_so_far(db: Db) -> None:
    db.ok("CREATE TABLE once (k INT PRIMARY KEY) ENGINE=MyISAM")
    db.ok("CREATE TRIGGER only_once AFTER INSERT ON t FOR EACH ROW INSERT INTO once VALUES (NEW.v)")
    outcome = db.run("INSERT INTO t VALUES (1, 5), (2, 5)")
    assert outcome.error is not None and outcome.error.code == 1062
    assert [(change.table.name, change.after) for change in outcome.changes] == [("t", (1, 5)), ("once", (5,)), ("t", (2, 5))]


def test_a_trigger_may_not_change_the_table_of_its_statement(db: Db) -> None:
    db.ok("CREATE TRIGGER again AFTER INSERT ON t FOR EACH ROW INSERT INTO t VALUES (NEW.id + 100, 0)")
    assert db.error("INSERT INTO t VALUES (1, 1)").code == 1442


def test_triggers_nest_and_their_auto_increment_values_leave_last_insert_id_alone(db: Db) -> None:
    db.ok("CREATE TABLE archive (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(20)) ENGINE=InnoDB")
    db.ok("CREATE TRIGGER ai AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('ai')")
    db.ok("CREATE TRIGGER archived AFTER INSERT ON log FOR EACH ROW INSERT INTO archive (what) VALUES (NEW.what)")
    outcome = db.ok("INSERT INTO t VALUES (1, 1)")
    assert db.rows("archive") == [(1, "ai")]
    assert outcome.insert_id == 1  # the statement's first generated value, the log row's
    assert db.session.last_insert_id == 0


# -- prelocking and the logging decision ---------------------------------------------------


def _decide(db: Db, sql: str, binlog_format: str) -> tuple[list[str], list[str], LoggingFormat | None]:
    statement = parse_statement(sql)
    analysis = analyze(statement, db.server.catalog, db.session.thread_id, MYSQL_80)
    state = TransactionState(binlog_format, "REPEATABLE-READ", False, False, False)
    decision = decide_logging_format(analysis, state, MYSQL_80)
    return [t.name for t in analysis.writes], [reason.name for reason in decision.unsafe], decision.format


@pytest.mark.parametrize(
    ("trigger", "statement", "binlog_format", "writes", "unsafe", "logged"),
    [
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "INSERT INTO t VALUES (1, 1)", "STATEMENT", ["t", "log"], ["AUTOINC_COLUMNS"], "STATEMENT"),
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "INSERT INTO t VALUES (1, 1)", "MIXED", ["t", "log"], ["AUTOINC_COLUMNS"], "ROW"),
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "INSERT INTO t VALUES (1, 1)", "ROW", ["t", "log"], [], "ROW"),
        # Updating or deleting in an AUTO_INCREMENT table counts too (the table is write-locked).
        ("CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW UPDATE log SET new_v = NEW.v", "UPDATE t SET v = 2", "STATEMENT", ["t", "log"], ["AUTOINC_COLUMNS"], "STATEMENT"),
        # A trigger writing a table without AUTO_INCREMENT leaves the statement safe.
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO plain VALUES (NEW.v)", "INSERT INTO t VALUES (1, 1)", "MIXED", ["t", "plain"], [], "STATEMENT"),
        # Only the events the statement performs bring their triggers in.
        ("CREATE TRIGGER tr AFTER DELETE ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "INSERT INTO t VALUES (1, 1)", "MIXED", ["t"], [], "STATEMENT"),
        ("CREATE TRIGGER tr AFTER DELETE ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "REPLACE INTO t VALUES (1, 1)", "MIXED", ["t", "log"], ["AUTOINC_COLUMNS"], "ROW"),
        ("CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW INSERT INTO log (what) VALUES ('x')", "INSERT INTO t VALUES (1, 1) ON DUPLICATE KEY UPDATE v = 2", "MIXED", ["t", "log"], ["AUTOINC_COLUMNS"], "ROW"),
        # The body's parse-time reasons are the statement's; its read-only table makes the
        # AUTO_INCREMENT write order-dependent.
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.v = UUID_SHORT()", "INSERT INTO t VALUES (1, 1)", "MIXED", ["t"], ["SYSTEM_FUNCTION"], "ROW"),
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO log (what) SELECT 'x' FROM plain LIMIT 1", "INSERT INTO t VALUES (1, 1)", "STATEMENT", ["t", "log"], ["LIMIT", "AUTOINC_COLUMNS", "WRITE_AUTOINC_SELECT"], "STATEMENT"),
        # Mixed engines: the trigger's MyISAM table with the statement's InnoDB table.
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO plain_myisam VALUES (NEW.v)", "INSERT INTO t VALUES (1, 1)", "MIXED", ["t", "plain_myisam"], [], "STATEMENT"),
    ],
)
def test_prelocking_decides_the_logging_format(
    db: Db, trigger: str, statement: str, binlog_format: str, writes: list[str], unsafe: list[str], logged: str
) -> None:
    db.ok("CREATE TABLE plain (v INT) ENGINE=InnoDB")
    db.ok("CREATE TABLE plain_myisam (v INT) ENGINE=MyISAM")
    db.ok(trigger)
    assert _decide(db, statement, binlog_format) == (writes, unsafe, LoggingFormat(logged))


def test_mixed_engine_rules_see_the_trigger_tables_in_a_transaction(db: Db) -> None:
    db.ok("CREATE TABLE plain_myisam (v INT) ENGINE=MyISAM")
    db.ok("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO plain_myisam VALUES (NEW.v)")
    analysis = analyze(parse_statement("INSERT INTO t VALUES (1, 1)"), db.server.catalog, db.session.thread_id, MYSQL_80)
    state = TransactionState("MIXED", "REPEATABLE-READ", False, True, False)
    assert UnsafeReason.MIXED_STATEMENT in decide_logging_format(analysis, state, MYSQL_80).unsafe


@pytest.mark.parametrize(
    ("statement", "trigger", "after_columns"),
    [
        ("INSERT INTO t (id) VALUES (4)", "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v + 8", [True, True]),
        ("UPDATE t SET id = 9 WHERE id = 1", "CREATE TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW SET NEW.v = 5", [True, True]),
        ("UPDATE t SET id = 9 WHERE id = 1", "CREATE TRIGGER t_au AFTER UPDATE ON t FOR EACH ROW INSERT INTO log (what) VALUES ('u')", [True, False]),
    ],
    ids=["before insert", "before update", "after update assigns nothing"],
)
def test_columns_a_before_trigger_assigns_join_the_write_set(db: Db, statement: str, trigger: str, after_columns: list[bool]) -> None:
    """Table_triggers_list::mark_fields_used: a MINIMAL after image carries them (recorded
    on MariaDB in scenarios/oracle/trigger-sets-new-minimal-image.yaml)."""
    db.ok("INSERT INTO t VALUES (1, 1)")
    db.ok(trigger)
    outcome = db.ok(statement)
    change = next(c for c in outcome.changes if c.table.name == "t")
    assert [column.name in change.assigned for column in change.table.columns] == after_columns


@pytest.mark.parametrize(
    ("body", "inserted", "stored", "logged"),
    [
        ("BEGIN DECLARE k INT DEFAULT 3; IF NEW.v > 10 THEN SET NEW.v = NEW.v * k; ELSE SET NEW.v = 0; END IF; END", (1, 11), [(1, 33)], []),
        ("BEGIN DECLARE k INT DEFAULT 3; IF NEW.v > 10 THEN SET NEW.v = NEW.v * k; ELSE SET NEW.v = 0; END IF; END", (1, 2), [(1, 0)], []),
        ("BEGIN INSERT INTO log (what) VALUES (CONCAT('a', NEW.v)); INSERT INTO log (what) VALUES ('b'); END", (1, 2), [(1, 2)], ["a2", "b"]),
        ("CASE WHEN NEW.v < 0 THEN SET NEW.v = -NEW.v; ELSE BEGIN END; END CASE", (1, -4), [(1, 4)], []),
    ],
)
def test_a_compound_trigger_body_runs_per_row(db: Db, body: str, inserted: tuple, stored: list[tuple], logged: list[str]) -> None:
    db.ok(f"CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW {body}")
    db.ok(f"INSERT INTO t VALUES {inserted}")
    assert db.rows("t") == stored
    assert [row[1] for row in db.rows("log")] == logged


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW BEGIN SET NEW.v = 1; END", 1362),
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SIGNAL SQLSTATE '45000'; END", 1235),
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SELECT 1; END", 1415),
        ("CREATE TRIGGER tr BEFORE DELETE ON t FOR EACH ROW BEGIN IF NEW.v THEN SET @a = 1; END IF; END", 1363),
        ("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.nothing = 1; END", 1054),
    ],
)
def test_compound_trigger_bodies_are_checked_when_created(db: Db, sql: str, code: int) -> None:
    assert db.error(sql).code == code
