"""What the mysqltest importer knows by name: mysqltest's commands, the replication
framework's include files, `--error` lists; and the two passes over the statements read:
session settings every connection makes first become the scenario's settings, and the
clean-up after the last check (the DROPs every mtr test ends with) is left out."""

from __future__ import annotations

import re

from harness.importers.model import Capture

# What mysql-test-run's configuration (include/default_mysqld.cnf) gives every server,
# where it changes outcomes the simulator models: stored functions are created without
# the DETERMINISTIC / NO SQL / READS SQL DATA check (else 1418). The servers of an
# imported test run with them, as under mtr.
MTR_DEFAULT_SETTINGS: dict[str, str] = {"log_bin_trust_function_creators": "ON"}
REPLICATION_SETUP = frozenset({"include/master-slave.inc", "include/rpl_init.inc"})
# The connections the replication set-up opens, and the server each is on.
SLAVE_CONNECTIONS = {
    "master": "master", "master1": "master", "server_1": "master", "server_1_1": "master", "default": "master",
    "slave": "slave", "slave1": "slave", "server_2": "slave", "server_2_1": "slave",
}  # fmt: skip
BINLOG_FORMAT_INCLUDES: dict[str, tuple[str, ...]] = {
    "include/have_binlog_format_row.inc": ("ROW",),
    "include/have_binlog_format_statement.inc": ("STATEMENT",),
    "include/have_binlog_format_mixed.inc": ("MIXED",),
    "include/have_binlog_format_mixed_or_row.inc": ("MIXED", "ROW"),
    "include/have_binlog_format_mixed_or_statement.inc": ("STATEMENT", "MIXED"),
    "include/have_binlog_format_row_or_statement.inc": ("STATEMENT", "ROW"),
}
# Waiting until the slave has applied what the master logged (and rpl_reset.inc, which
# then empties both servers' logs): the harness applies it all.
SYNC_INCLUDES = frozenset({
    "include/sync_slave_sql_with_master.inc", "include/sync_slave_io_with_master.inc", "include/rpl_sync.inc",
    "include/save_master_gtid.inc", "include/rpl_reset.inc", "include/wait_for_binlog_event.inc", "include/sync_with_master_gtid.inc",
})  # fmt: skip
# Requirements of the test environment, waits and checks whose answer the harness
# computes itself (the tables compared after every run), and stopping and starting the
# applier around its settings.
IGNORED_INCLUDES = frozenset({
    "include/have_innodb.inc", "include/have_myisam.inc", "include/not_embedded.inc", "include/have_log_bin.inc",
    "include/have_binlog_checksum_off.inc", "include/count_sessions.inc", "include/wait_until_count_sessions.inc",
    "include/diff_tables.inc", "include/wait_condition.inc", "include/check_slave_is_running.inc",
    "include/check_slave_no_error.inc", "include/stop_slave.inc", "include/start_slave.inc",
    "include/wait_until_disconnected.inc", "include/no_valgrind_without_big.inc", "include/have_blackhole.inc",
    "include/have_archive.inc", "include/default_charset.inc", "include/rpl_end.inc", "include/show_binlog_events.inc",
    "include/show_binlog_events2.inc", "include/show_slave_status.inc", "include/show_master_status.inc",
"include/have_debug.inc", "include/have_debug_sync.inc",
})  # fmt: skip
# mtr's requirement checks by their names' convention (have_innodb.inc, not_windows.inc,
# big_test.inc, ...) and the bookkeeping every framework include wraps itself in.
REQUIREMENT_INCLUDE = re.compile(r"^include/(?:have|not|big|no|skip|only)_\w*\.inc$")
FRAMEWORK_INCLUDES = frozenset({
    "include/begin_include_file.inc", "include/end_include_file.inc", "include/save_binlog_position.inc",
    "include/assert.inc", "include/assert_grep.inc", "include/force_restart.inc", "include/force_restart_if_skipped.inc",
})  # fmt: skip
# include/rpl_connection_master.inc and its kind: `connection master` with an echo.
CONNECTION_INCLUDE = re.compile(r"^include/rpl_connection_(\w+)\.inc$")
# Commands that shape the .result file only.
OUTPUT_COMMANDS = frozenset({
    "replace_result", "replace_column", "replace_regex", "sorted_result", "vertical_results", "horizontal_results",
    "lowercase_result", "start_timer", "end_timer", "character_set", "result_format", "partially_sorted_result",
})  # fmt: skip
# mysqltest's command names (client/mysqltest.cc): a line starting with one is a command, not SQL.
MYSQLTEST_COMMANDS = OUTPUT_COMMANDS | frozenset({
    "connection", "query", "connect", "sleep", "real_sleep", "inc", "dec", "source", "disconnect", "let", "echo",
    "while", "end", "system", "result", "require", "save_master_pos", "sync_with_master", "sync_slave_with_master",
    "error", "send", "reap", "dirty_close", "ping", "eval", "enable_query_log", "disable_query_log",
    "enable_result_log", "disable_result_log", "enable_warnings", "disable_warnings", "enable_info",
    "disable_info", "enable_metadata", "disable_metadata", "enable_abort_on_error", "disable_abort_on_error",
    "exec", "execw", "exec_in_background", "delimiter", "die", "exit", "skip", "chmod", "append_file",
    "cat_file", "diff_files", "send_quit", "change_user", "mkdir", "rmdir", "list_files", "list_files_write_file",
    "list_files_append_file", "send_shutdown", "shutdown_server", "move_file", "remove_files_wildcard",
    "copy_files_wildcard", "send_eval", "write_file", "copy_file", "perl", "remove_file", "file_exists",
    "query_get_value", "query_vertical", "query_horizontal", "wait_for_slave_to_stop", "if", "reset_connection",
    "enable_connect_log", "disable_connect_log", "enable_ps_protocol", "disable_ps_protocol",
    "enable_reconnect", "disable_reconnect", "enable_parsing", "disable_parsing", "output", "block",
})  # fmt: skip
_SET_SESSION = re.compile(r"^\s*SET\s+(?:SESSION\s+|@@SESSION\.|LOCAL\s+)?(?!@|GLOBAL\b|NAMES\b)(\w+)\s*=\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)
DROP = re.compile(r"^\s*DROP\s+(?:TEMPORARY\s+)?(?:TABLE|TABLES|TRIGGER|FUNCTION|VIEW|PROCEDURE|EVENT)\b", re.IGNORECASE)


def error_list(text: str) -> tuple[tuple[int | str, ...], str]:
    """`--error 1062,ER_DUP_KEY,0` as codes and names; SQLSTATEs (`S23000`) cannot be
    checked and come back as the problem to list."""
    codes: list[int | str] = []
    for item in (part.strip() for part in text.replace(" ", ",").split(",") if part.strip()):
        if item.isdigit():
            codes.append(int(item))
        elif re.fullmatch(r"ER_[A-Z0-9_]+", item.upper()):
            codes.append(item.upper())
        else:
            return (), f"--error {text}: {item} is not an error code or ER_ name (SQLSTATEs are not checked)"
    return tuple(codes), ""


# Variables whose value one statement uses up or that stand for a moment (the next
# auto-increment value, the clock, RAND's seeds), and sql_mode, which the schema's CREATE
# TABLE reads too (a DEFAULT strict mode refuses): a setting would apply them to the
# schema's statements as well, so their SETs stay steps.
_ONE_SHOT = frozenset({"insert_id", "last_insert_id", "identity", "timestamp", "rand_seed1", "rand_seed2", "sql_mode"})


def extract_settings(capture: Capture, master_connections: set[str]) -> None:
    """A `SET SESSION name = value` every master connection makes identically before its
    first other statement is a setting of the whole scenario: those SETs become `settings`."""
    leading: dict[str, dict[str, tuple[str, int]]] = {}
    done: set[str] = set()
    for index, statement in enumerate(capture.statements):
        match = _SET_SESSION.match(statement.sql)
        if statement.session in done or match is None or statement.errors or match.group(1).lower() in _ONE_SHOT:
            done.add(statement.session)
            continue
        leading.setdefault(statement.session, {})[match.group(1).lower()] = (match.group(2).strip("'\""), index)
    sessions = {statement.session for statement in capture.statements} & master_connections
    if not sessions:
        return
    shared = set.intersection(*(set(leading.get(session, {})) for session in sessions))
    removed: set[int] = set()
    for name in shared:
        values = {leading[session][name][0] for session in sessions}
        if len(values) == 1:
            capture.settings[name] = values.pop()
            removed |= {leading[session][name][1] for session in sessions}
    capture.statements[:] = [statement for index, statement in enumerate(capture.statements) if index not in removed]
    if removed:
        capture.kept["session setting"] -= len(removed)
        capture.dropped["session setting made by every connection (a scenario setting)"] += len(removed)


def remove_final_disconnects(capture: Capture) -> None:
    """The disconnects that end the test: every scenario's sessions end with its run."""
    statements = capture.statements
    while statements and statements[-1].disconnect:
        statements.pop()


def remove_cleanup(capture: Capture, checkpoints: set[int]) -> None:
    """The DROPs that end the test right after a sync or a table check: the clean-up
    every mtr test ends with, which would leave nothing to compare."""
    statements = capture.statements
    end = max((checkpoint for checkpoint in checkpoints if checkpoint < len(statements)), default=len(statements))
    after = statements[end:]
    if after and all(statement.disconnect or statement.reap or (DROP.match(statement.sql) and not statement.errors) for statement in after):
        drops = sum(not statement.disconnect and not statement.reap for statement in after)
        capture.dropped["clean-up after the last check"] += drops
        capture.kept["DDL"] -= drops
        del statements[end:]
