"""The slow query log of MySQL 8.0 and MariaDB 10.11, captured with `long_query_time=0`
so that every statement is in it.

An entry is written when its statement completes: a statement that waited for a lock is
written after statements that started later. Each entry is a block of `# ` lines
(MariaDB: `# Thread_id: 5  Schema: d1`; MySQL: `# User@Host: ... Id: 5`, and with
log_slow_extra `Start:`), then `use db;` when the database written last changes, the
server's `SET timestamp=N;`, and the statement. MariaDB's `SET timestamp` is the second
the statement started; MySQL's `# Time:` is when it ended, to the microsecond, so its
start is that less `Query_time`. The importer orders entries by start; entries that
started in the same second keep the order they completed in.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.importers.classify import Kind, kind_of
from harness.importers.model import Capture, ImportFailure, Origin
from harness.importers.sessions import GUESS_LIMIT, SessionTracker
from harness.importers.text import read_text

_ENTRY_START = re.compile(r"^# (?:Time|User@Host): ")
_FIELD = re.compile(r"\b(Thread_id|Id|Schema|Query_time|Start|Time):\s+(\S*)")
_USE = re.compile(r"^use (`(?:[^`]|``)+`|\S+);$")
_TIMESTAMP = re.compile(r"^SET timestamp=(\d+)(?:\.\d+)?;$")
_ADMIN = re.compile(r"^# administrator command: (.*?);?$")
_VERSION = re.compile(r"^\S.*, Version: (.*)\. started with:$")
_FILE_HEADER = (_VERSION, re.compile(r"^Tcp port: \d+\s+Unix socket: "), re.compile(r"^Time\s+Id\s+Command\s+Argument$"))
_GENERAL_ENTRY = re.compile(r"^(?:\d{4}-\d\d-\d\dT\S+|\d{6}\s+\d{1,2}:\d\d:\d\d)?\t\t?\s*\d+\s[A-Z][A-Za-z ]*\t")
ORDER = (
    "the slow log is written as statements complete; the steps are ordered by the second each statement "
    "started (MariaDB's SET timestamp, or MySQL's end time less Query_time), so a statement that waited for "
    "a lock comes before the statement that released it and the runner's lock waits replay the wait. "
    "Statements that started in the same second keep the order they completed in."
)


@dataclass
class _Entry:
    origin: Origin
    fields: dict[str, str] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)
    database: str | None = None
    start: float = 0.0
    body_line: int = 0  # where the lines after the `# ` block start
    has_user: bool = False  # its `# User@Host:` line is read (a `# Time:` line may come first)


def import_slow_log(path: Path, keep_reads: bool = False) -> Capture:
    """The sessions' statements of one slow log file, ordered by when they started."""
    capture = Capture(kind="slow", sources=(path,), order=ORDER)
    entries = _entries(path, read_text(path), capture)
    ordered = _by_start(entries, capture)
    tracker = SessionTracker(capture, keep_reads)
    for entry in ordered:
        _apply(tracker, entry)
    return capture


def _entries(path: Path, text: str, capture: Capture) -> list[_Entry]:
    entries: list[_Entry] = []
    in_header = False
    for number, line in enumerate(text.splitlines(), 1):
        version = _VERSION.match(line)
        if version:
            capture.server = capture.server or version.group(1)
        if any(header.match(line) for header in _FILE_HEADER):
            continue
        if _ENTRY_START.match(line) and not (in_header and line.startswith("# User@Host") and not entries[-1].has_user):
            entries.append(_Entry(Origin(path, number)))
            in_header = True
        if not entries:
            if _GENERAL_ENTRY.match(line):
                raise ImportFailure(f"{path}:{number}: this is a general query log (a '<time> <id> <command>' line), not a slow log: import it as `general`")
            if line.strip():
                raise ImportFailure(f"{path}:{number}: not a slow query log line: {line[:60]!r}")
            continue
        entry = entries[-1]
        if in_header and line.startswith("# "):
            entry.fields.update(_FIELD.findall(line))
            entry.has_user = entry.has_user or line.startswith("# User@Host")
            continue
        if in_header:
            entry.body_line, in_header = number, False
        entry.body.append(line)
    if not entries:
        raise ImportFailure(f"{path}: no slow query log entries (expected '# User@Host:' blocks)")
    return entries


def _by_start(entries: list[_Entry], capture: Capture) -> list[_Entry]:
    """The entries by start time; a session's own entries never change order."""
    mariadb = "MariaDB" in capture.server or any("Thread_id" in entry.fields for entry in entries)
    database = ""
    last_start: dict[str, float] = {}
    for entry in entries:
        use = _USE.match(entry.body[0]) if entry.body else None
        if use:
            database = use.group(1)
            entry.body.pop(0)
            entry.body_line += 1
        entry.database = entry.fields.get("Schema", database) if mariadb else database
        stamp = _TIMESTAMP.match(entry.body[0]) if entry.body else None
        if stamp:
            entry.body.pop(0)
            entry.body_line += 1
        entry.start = _start(entry, stamp, mariadb)
        session = _session(entry)
        entry.start = max(entry.start, last_start.get(session, entry.start))
        last_start[session] = entry.start
    ordered = sorted(entries, key=lambda entry: entry.start)
    moved = sum(1 for index, entry in enumerate(ordered) if entry is not entries[index])
    if moved:
        capture.notes.append(f"{moved} entries are placed by their start time, not where the log wrote them")
    _same_second_guesses(ordered, capture)
    return ordered


def _start(entry: _Entry, stamp: re.Match[str] | None, mariadb: bool) -> float:
    if "Start" in entry.fields:
        return _iso(entry.fields["Start"])
    if mariadb or "Time" not in entry.fields or "T" not in entry.fields["Time"]:
        return float(stamp.group(1)) if stamp else 0.0
    return _iso(entry.fields["Time"]) - float(entry.fields.get("Query_time", "0") or 0)


def _iso(text: str) -> float:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _session(entry: _Entry) -> str:
    return f"conn{entry.fields.get('Thread_id') or entry.fields.get('Id') or '0'}"


def _same_second_guesses(ordered: list[_Entry], capture: Capture) -> None:
    """Writes of different sessions that started in the same whole second: their order is
    the order they completed, which for a waiting statement is not the order they ran."""
    ties = 0
    for before, after in zip(ordered, ordered[1:]):
        if _session(before) == _session(after) or int(before.start) != int(after.start) or before.start != int(before.start):
            continue
        if all(kind_of("\n".join(entry.body)) in (Kind.DATA, Kind.DDL, Kind.LOCKING_READ) for entry in (before, after)):
            ties += 1
            if ties <= GUESS_LIMIT:
                capture.guesses.append(
                    f"{after.origin}: {_session(after)} and {_session(before)} ({before.origin}) started in the same second; "
                    "kept in the order they completed"
                )
    if ties > GUESS_LIMIT:
        capture.guesses.append(f"{ties - GUESS_LIMIT} more pairs of statements started in the same second")


def _apply(tracker: SessionTracker, entry: _Entry) -> None:
    name = _session(entry)
    if entry.database is not None:
        tracker.use(name, entry.database)
    text = "\n".join(entry.body).strip()
    admin = _ADMIN.match(text)
    if admin:
        tracker.drop(f"command {admin.group(1)}")
        return
    if not text:
        tracker.skip(entry.origin, "entry without a statement (the log is truncated there)")
        return
    if re.match(r"^\s*EXECUTE\s", text, re.IGNORECASE):
        tracker.skip(entry.origin, "EXECUTE names a prepared statement; the slow log does not say what it ran")
        return
    tracker.packet(name, text.removesuffix(";"), Origin(entry.origin.file, entry.body_line))
