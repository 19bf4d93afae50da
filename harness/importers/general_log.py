"""The general query log (`log_output=FILE`) of MySQL 8.0 and MariaDB 10.11.

An entry is written when the server starts a command, under the log's mutex: the file's
order is the order the statements started. MySQL stamps every line
(`2026-01-01T10:00:00.123456Z\t   12 Query\tSELECT 1`); MariaDB stamps a line only when
the second changes (`261125 15:48:28\t     4 Query\t...`, else two tabs). A statement's
text runs on over the following lines until the next entry. SQL-level PREPARE and
EXECUTE are logged twice, as the `Query` the client sent and as the `Prepare` or
`Execute` the server ran; the importer keeps the `Execute` line, which carries the
statement with its parameters in place, exactly as for a binary-protocol execution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.importers.model import Capture, ImportFailure, Origin
from harness.importers.sessions import SessionTracker
from harness.importers.text import read_text

_MYSQL_ENTRY = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))\s+(\d+)\s([A-Z][A-Za-z_ ]*?)\t(.*)$")
_MARIADB_ENTRY = re.compile(r"^(\d{6}\s+\d{1,2}:\d\d:\d\d)?\t\t?\s*(\d+)\s([A-Z][A-Za-z_ ]*?)\t(.*)$")
_VERSION = re.compile(r"^\S.*, Version: (.*)\. started with:$")
_HEADER = (re.compile(r"^Tcp port: \d+\s+Unix socket: "), re.compile(r"^Time\s+Id\s+Command\s+Argument$"))
_SLOW_LOG = re.compile(r"^# (?:Time|User@Host|Query_time|Thread_id): ")
_SQL_EXECUTE = re.compile(r"^\s*EXECUTE\s", re.IGNORECASE)
_CONNECT_DATABASE = re.compile(r" on (\S*)(?: using \S+)?\s*$")
# Commands that only ask or tell the server something about the connection or protocol.
_HARMLESS = frozenset({"Quit", "Ping", "Statistics", "Field List", "Close stmt", "Reset stmt", "Set option", "Processlist", "Long Data", "Fetch", "Time", "Sleep", "Debug"})
# Commands that change sessions in ways a scenario does not model: listed, never dropped silently.
_UNMODELLED = frozenset({"Kill", "Change user", "Reset connection", "Refresh", "Shutdown", "Binlog Dump", "Register Slave", "Binlog Dump GTID", "Connect Out", "Delayed insert"})

ORDER = (
    "the steps follow the log, the order the statements started. A statement that waited for a lock "
    "is logged before the statement that released it; replayed in this order, it waits for the same "
    "lock in the runner (its session queues until the lock is released), so the commit order is the "
    "captured one. Statements logged in the same instant by different sessions keep the log's order."
)


@dataclass
class _Entry:
    session: str
    command: str
    argument: str
    origin: Origin


def import_general_log(path: Path, keep_reads: bool = False) -> Capture:
    """The sessions' statements of one general log file, in the order they started."""
    capture = Capture(kind="general", sources=(path,), order=ORDER)
    tracker = SessionTracker(capture, keep_reads)
    awaiting: dict[str, Origin] = {}  # session -> its SQL-level EXECUTE not yet expanded
    for entry in _entries(path, read_text(path), capture):
        if entry.session in awaiting and entry.command != "Execute":
            tracker.skip(awaiting.pop(entry.session), "EXECUTE with no Execute line after it: the statement it ran is not in the log")
        awaiting.pop(entry.session, None)
        if entry.command == "Query" and _SQL_EXECUTE.match(entry.argument):
            awaiting[entry.session] = entry.origin
        _apply(tracker, entry)
    for origin in awaiting.values():
        tracker.skip(origin, "EXECUTE with no Execute line after it: the statement it ran is not in the log")
    if tracker.guess_count:
        capture.guesses.insert(0, f"{tracker.guess_count} statement(s) started while another session's transaction held row locks")
    return capture


def _entries(path: Path, text: str, capture: Capture) -> list[_Entry]:
    """The log's entries, continuation lines joined to their statement; a restart header
    starts a new generation of connection ids."""
    entries: list[_Entry] = []
    generation = 0
    for number, line in enumerate(text.splitlines(), 1):
        version = _VERSION.match(line)
        if version:
            if entries or capture.server:
                generation += 1
                capture.notes.append(f"{path}:{number}: the server restarted (or the log was reopened); connection ids start over")
            capture.server = capture.server or version.group(1)
            continue
        if any(header.match(line) for header in _HEADER):
            continue
        match = _MYSQL_ENTRY.match(line) or _MARIADB_ENTRY.match(line)
        if match:
            _, thread, command, argument = match.groups()
            name = f"conn{thread}" if generation == 0 else f"conn{thread}_{generation}"
            entries.append(_Entry(name, command.strip(), argument, Origin(path, number)))
        elif _SLOW_LOG.match(line) and not entries:
            raise ImportFailure(f"{path}:{number}: this is a slow query log ({line.split(':')[0]} line), not a general log: import it as `slow`")
        elif entries:
            entries[-1].argument += "\n" + line
        elif line.strip():
            raise ImportFailure(f"{path}:{number}: not a general query log line: {line[:60]!r}")
    if not entries:
        raise ImportFailure(f"{path}: no general query log entries (expected lines such as '<time>\\t  <id> Query\\t<statement>')")
    return entries


def _apply(tracker: SessionTracker, entry: _Entry) -> None:
    command, argument, name = entry.command, entry.argument, entry.session
    if command == "Connect":
        database = _CONNECT_DATABASE.search(argument)
        tracker.session(name)
        if database:
            tracker.use(name, database.group(1))
        tracker.drop("command Connect")
    elif command == "Init DB":
        tracker.use(name, argument.strip())
        tracker.drop("command Init DB")
    elif command in ("Query", "Execute"):
        tracker.packet(name, argument.rstrip().removesuffix(";"), entry.origin)
    elif command == "Prepare":
        tracker.drop("prepared-statement command")
    elif command == "Quit":
        tracker.quit(name, entry.origin)
        tracker.drop("command Quit")
    elif command in _HARMLESS:
        tracker.drop(f"command {command}")
    elif command in _UNMODELLED:
        tracker.skip(entry.origin, f"{command} ({argument.strip()[:40]}): a scenario does not model this command")
    else:
        tracker.skip(entry.origin, f"unknown command {command!r}")
