"""What the log importers share: each captured statement classified, counted, kept or
dropped; each session's database followed through USE and Init DB; each session's open
transaction followed, to say where the replay order rests on the runner's lock waits."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.importers.classify import Kind, kind_of, named_databases
from harness.importers.model import Capture, Captured, ImportFailure, Origin, Skipped
from harness.importers.text import open_quote, split_sql
from server_sim.parser import split_statements

_USE = re.compile(r"^\s*USE\s+(`(?:[^`]|``)+`|\S+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_OPENS = re.compile(r"^\s*(?:BEGIN\b(?!\s*;?\s*$\s*END)|START\s+TRANSACTION\b)", re.IGNORECASE)
_CLOSES = re.compile(r"^\s*(?:COMMIT|ROLLBACK(?!\s+TO)|(?:CREATE|ALTER|DROP|TRUNCATE|RENAME)\b)", re.IGNORECASE)
_AUTOCOMMIT = re.compile(r"^\s*SET\s+(?:SESSION\s+|@@(?:SESSION\.)?)?autocommit\s*=\s*(\w+)", re.IGNORECASE)
GUESS_LIMIT = 10  # guesses listed one by one in the file's header; the rest are counted


@dataclass
class _Session:
    database: str = ""
    open_since: Origin | None = None  # the statement that opened its transaction
    wrote: bool = False  # its open transaction has changed rows (holds row locks)
    autocommit: bool = True


@dataclass
class SessionTracker:
    """Feeds statements into `capture`, keeping the replicating ones (and, with
    `keep_reads`, the rest)."""

    capture: Capture
    keep_reads: bool = False
    sessions: dict[str, _Session] = field(default_factory=dict)
    guess_count: int = 0

    def session(self, name: str) -> _Session:
        return self.sessions.setdefault(name, _Session())

    def use(self, name: str, database: str) -> None:
        """The session's default database is now `database` (Connect, Init DB, USE)."""
        self.session(name).database = database.strip("`").replace("``", "`")

    def drop(self, what: str) -> None:
        self.capture.dropped[what] += 1

    def skip(self, origin: Origin, reason: str) -> None:
        self.capture.skipped.append(Skipped(origin, reason))

    def packet(self, name: str, text: str, origin: Origin) -> None:
        """One query packet: several statements when the client sent them together."""
        if open_quote(text) is not None:
            self.skip(origin, f"statement cut inside {open_quote(text)!r} (the log is truncated there): {_short(text)}")
            return
        pieces = split_sql(text, origin.line)
        if len(pieces) > 1 and len(split_statements(text)) == 1:
            # CREATE PROCEDURE, FUNCTION or TRIGGER with a BEGIN ... END body: the server reads
            # the `;` inside the body as part of the one statement.
            pieces = [(text.strip().rstrip(";").rstrip(), origin.line)]
        for sql, line in pieces:
            self.statement(name, sql, Origin(origin.file, line))

    def statement(self, name: str, sql: str, origin: Origin, errors: tuple[int | str, ...] = ()) -> None:
        kind = kind_of(sql)
        session = self.session(name)
        if kind is Kind.DATABASE:
            use = _USE.match(sql)
            if use:
                self.use(name, use.group(1))
        if not kind.replicates and not (self.keep_reads and kind is Kind.READ):
            self.drop(kind.value)
            return
        self.capture.kept[kind.value] += 1
        if kind in (Kind.DATA, Kind.LOCKING_READ, Kind.DDL):
            self._note_waits(name, origin)
        self._follow_transaction(session, sql, kind, origin)
        self.capture.statements.append(Captured(name, sql, origin, session.database, errors))

    def quit(self, name: str, origin: Origin) -> None:
        session = self.sessions.pop(name, None)
        if session is not None and session.open_since is not None:
            self.capture.notes.append(
                f"{name} disconnected at {origin} with the transaction begun at {session.open_since} open: the server "
                "rolled it back then; the scenario's session keeps it open to the end"
            )

    def _follow_transaction(self, session: _Session, sql: str, kind: Kind, origin: Origin) -> None:
        autocommit = _AUTOCOMMIT.match(sql)
        if autocommit:
            session.autocommit = autocommit.group(1).upper() not in ("0", "OFF", "FALSE")
        if _CLOSES.match(sql):
            session.open_since, session.wrote = None, False
        elif _OPENS.match(sql) or (not session.autocommit and kind in (Kind.DATA, Kind.LOCKING_READ) and session.open_since is None):
            session.open_since = origin
        if session.open_since is not None and kind in (Kind.DATA, Kind.LOCKING_READ):
            session.wrote = True

    def _note_waits(self, name: str, origin: Origin) -> None:
        """A statement that starts while another session's transaction holds row locks
        may have waited for them: the log cannot say, the replay lets the runner decide."""
        for other, state in self.sessions.items():
            if other == name or not state.wrote or state.open_since is None:
                continue
            self.guess_count += 1
            if len(self.capture.guesses) < GUESS_LIMIT:
                self.capture.guesses.append(
                    f"{origin}: {name} starts while {other}'s transaction (begun at {state.open_since}) holds row locks; "
                    "if it waited for them, the replay waits too"
                )


def kept_database(capture: Capture) -> str:
    """The one database the kept statements use or name their tables with ('' when none
    was chosen); more than one is refused, since a scenario models one database. A
    statement expected to fail (a declared error) changes no database and does not count."""
    succeeding = [statement for statement in capture.statements if not statement.errors]
    databases = sorted(
        {statement.database for statement in succeeding if statement.database}
        | {database for statement in succeeding for database in named_databases(statement.sql)}
    )
    if len(databases) > 1:
        raise ImportFailure(
            f"{', '.join(map(str, capture.sources))}: the sessions use databases {', '.join(databases)}; "
            "a scenario models one database (capture one database's traffic, or split the log by database)"
        )
    return databases[0] if databases else ""


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def idle_points(statements: list[Captured]) -> set[int]:
    """The counts of leading statements after which no session has a transaction open:
    where a long capture can be cut into scenarios."""
    states: dict[str, _Session] = {}
    points: set[int] = set()
    for count, statement in enumerate(statements, 1):
        state = states.setdefault(statement.session, _Session())
        autocommit = _AUTOCOMMIT.match(statement.sql)
        if autocommit:
            state.autocommit = autocommit.group(1).upper() not in ("0", "OFF", "FALSE")
        if statement.reap:
            pass  # no statement: the session's transaction is as it was
        elif statement.disconnect or _CLOSES.match(statement.sql):
            state.open_since = None
        elif _OPENS.match(statement.sql) or not state.autocommit:
            state.open_since = statement.origin
        if all(other.open_since is None for other in states.values()):
            points.add(count)
    return points
