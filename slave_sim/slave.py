"""The slave: an applier loop over a binlog, like a replica's SQL thread, and where it stands.

Each event is applied by slave_sim/events (statements through the same SQL layer as on
the master, row events through the server's row applier). Any failure stops the applier
with the server's error code and the event's position; nothing after it is applied, and
the open transaction is rolled back. A slave kept in a file commits each binlog
transaction with the position after it (relay_log_info), so it resumes after a crash
without losing or repeating a change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
from tenacity import RetryCallState, Retrying, retry_if_exception, retry_if_exception_type, stop_after_attempt, wait_exponential

from server_sim.binlog.control_events import Gtid_log_event, Mysql_gtid_log_event, Rotate_log_event
from server_sim.binlog.events import type_name_of
from server_sim.binlog.file import BinlogCorruptError, BinlogReader, PositionedEvent
from server_sim.engines import EngineRegistry
from server_sim.errors import Condition, ErrorCode, SqlError
from server_sim.execute.executor import Executor
from server_sim.execute.outcome import Outcome
from server_sim.flavor import Flavor
from server_sim.parser import parse_statement
from server_sim.server import EPOCH, Server, ServerIdentity
from server_sim.session import Session
from server_sim.sysvars import VariableRegistry

from .events import EventApplier
from .relay_log_info import AppliedPosition, RelayLogInfo
from .status import Retry, SlaveConfigurationError, SlaveStatus, SlaveStop, TransientStop

SLAVE_SERVER_ID = 2
# A group's GTID event belongs to the group it opens: the position moves past the group only.
GROUP_OPENERS = (Gtid_log_event, Mysql_gtid_log_event)


# Errors the applier retries, as the server's has_temporary_error(): the transaction lost a
# lock race, not a replication problem.
TRANSIENT_ERRORS = frozenset({ErrorCode.ER_LOCK_WAIT_TIMEOUT.code, ErrorCode.ER_LOCK_DEADLOCK.code})
# Backoff between retries of one transaction: exponential from 10 ms, at most 1 s.
RETRY_WAIT = wait_exponential(multiplier=0.01, max=1.0)


class Slave:
    """A slave server and its applier.

    The slave's database is in memory, or in a DuckDB file that survives the process. In a
    file, each binlog transaction is applied in one DuckDB transaction that also records the
    position after it and the server state (relay_log_info), so a slave reopened after a
    crash resumes exactly where the data says it stopped. In memory nothing outlives the
    process, so there is nothing to record: changes apply as they come, and a transient
    error, which only a recorded transaction start could take back, stops the applier.
    """

    def __init__(
        self,
        flavor: Flavor,
        settings: dict[str, str],
        seed: int,
        engines: EngineRegistry | None = None,
        lag_seconds: int = 3,
        database: Path | None = None,
    ) -> None:
        self.flavor = flavor
        identity = ServerIdentity(SLAVE_SERVER_ID, "slave", seed + 1, clock_start=EPOCH + dt.timedelta(seconds=lag_seconds))
        self.status = SlaveStatus()
        self.server = self._open_server(identity, engines, database, settings)
        self.server.global_variables.update(settings)
        self.executor = Executor(self.server)
        self.events = EventApplier(flavor, self.server, self.executor, self.status)
        self._position = 0
        self._event_name = ""
        self._relay_log_info = RelayLogInfo(self.server.connection) if database is not None else None
        self.master_log_name = ""
        self.rotate: Rotate_log_event | None = None  # the Rotate the last apply ended with
        recorded = self._relay_log_info.load() if self._relay_log_info is not None else None
        if recorded is None:
            self._begin()
            self._checkpoint(0)
        else:
            self._restore(recorded)
            self._begin()
        # A database that has followed a binlog before; a new one is not bound to any yet.
        self.resumed = self.master_log_name != ""

    def _open_server(self, identity: ServerIdentity, engines: EngineRegistry | None, database: Path | None, settings: dict[str, str]) -> Server:
        """The slave server; a database file another process holds is waited for, as a lock."""
        if database is None:
            return Server(self.flavor, identity, engines)  # nothing to wait for in memory
        variables = {**VariableRegistry(self.flavor).defaults(), **settings}
        retrying = Retrying(
            stop=stop_after_attempt(int(variables["slave_transaction_retries"]) + 1),
            wait=RETRY_WAIT,
            retry=retry_if_exception(_database_locked),
            before_sleep=self._report_lock_wait,
            reraise=True,
        )
        try:
            return retrying(Server, self.flavor, identity, engines, database=database)
        except duckdb.IOException as error:
            raise SlaveConfigurationError(f"{database}: {error}") from None

    def _report_lock_wait(self, state: RetryCallState) -> None:
        wait = state.next_action.sleep if state.next_action else 0.0
        reason = str(state.outcome.exception()).splitlines()[0]
        self.status.retries.append(Retry(0, state.attempt_number, ErrorCode.ER_LOCK_WAIT_TIMEOUT.code, reason, wait))

    @property
    def session(self) -> Session:
        """The applier's session (the replica's SQL thread)."""
        return self.events.session

    # -- crash safety ------------------------------------------------------------------------

    @property
    def crash_safe(self) -> bool:
        """Whether the slave is kept in a file and records each transaction it applies."""
        return self._relay_log_info is not None

    def _begin(self) -> None:
        if self.crash_safe:
            self.server.connection.execute("BEGIN TRANSACTION")

    def _checkpoint(self, position: int) -> None:
        """Count what is applied, up to `position`; in a file, commit it with that position
        and open the next transaction."""
        self.status.applied_position = position
        self.status.events_applied += self.events.pending_events
        self.events.pending_events = 0
        if self._relay_log_info is None:
            return
        state = {**self.server.state_document(), "applier": {"rand_seed1": self.session.rand_seed1, "rand_seed2": self.session.rand_seed2}}
        self.server.storage.flush()
        self._relay_log_info.save(AppliedPosition(self.master_log_name, position), state)
        self.server.connection.execute("COMMIT")
        self._begin()

    def _restore(self, recorded: tuple[AppliedPosition, dict[str, Any]]) -> None:
        """Take up the committed position and server state; the applier session starts afresh."""
        position, state = recorded
        session = self.server.new_session(self.flavor.applier_user, slave_thread=True)
        self.server.restore_state(state)
        session.rand_seed1 = state["applier"]["rand_seed1"]
        session.rand_seed2 = state["applier"]["rand_seed2"]
        self.master_log_name = position.master_log_name
        self.status.applied_position = position.master_log_pos
        self.events.reset(session)

    def _roll_back_to_checkpoint(self) -> None:
        """Discard everything since the last commit, in the database and in memory."""
        assert self._relay_log_info is not None  # only a slave kept in a file commits
        self.server.connection.execute("ROLLBACK")
        self.server.storage.forget_rows()
        recorded = self._relay_log_info.load()
        assert recorded is not None  # the constructor commits a first checkpoint
        self._restore(recorded)
        self._begin()

    # -- applying ----------------------------------------------------------------------------

    def execute_local(self, sql: str) -> Outcome:
        """Run a statement on the slave alone (its own schema changes), as a local client."""
        outcome = self._run_local(sql)
        self._checkpoint(self.status.applied_position)
        return outcome

    def provision(self, statements: list[str], binlog: str, start: int) -> list[tuple[str, Condition]]:
        """Prepare a new slave kept in a file with its own schema and data, all or nothing:
        the failing statements, or none when every statement ran and the result is committed
        in one transaction with the binlog it follows and the position it starts at, so a
        database is never provisioned without being bound (nor bound without its data)."""
        if not self.crash_safe:
            raise SlaveConfigurationError("only a slave kept in a file is provisioned; one in memory runs its schema with execute_local")
        errors: list[tuple[str, Condition]] = []
        for sql in statements:
            try:
                outcome = self._run_local(sql)
            except SqlError as error:  # a statement the parser refuses
                errors.append((sql, error.condition()))
                continue
            if outcome.error is not None:
                errors.append((sql, outcome.error.condition()))
        if errors:
            self._roll_back_to_checkpoint()
        else:
            self.master_log_name = binlog
            self._checkpoint(start)
        return errors

    def _run_local(self, sql: str) -> Outcome:
        session = self.server.new_session("root@localhost")
        statement = parse_statement(sql, self.server.flavor.comment_rules)
        outcome = self.executor.run(session, statement, self.server.statement_context(session, self.server.tick()))
        session.transaction = None
        return outcome

    def apply(self, binlog: Path, start: int = 0, stop: int | None = None) -> SlaveStatus:
        """Apply the events of `binlog` from position `start` (or the recorded position, if
        later) up to `stop` (or the end), one transaction at a time, until the first error."""
        status = self.status
        if not status.running:
            return status
        if self.master_log_name and self.master_log_name != binlog.name and status.applied_position > 0:
            raise SlaveConfigurationError(
                f"the slave is applying {self.master_log_name} (position {status.applied_position}), not {binlog.name}"
            )
        self.master_log_name = binlog.name
        if start > status.applied_position:
            self._checkpoint(start)  # CHANGE MASTER TO MASTER_LOG_POS: the first event to apply
        position: int | None = status.applied_position
        try:
            with BinlogReader(binlog) as reader:
                while position is not None:
                    position = self._apply_with_retries(reader, position, stop)
        except SlaveStop as halt:
            self._stop(halt.error, self._position, self._event_name)
        except BinlogCorruptError as error:
            self._stop(SqlError(ErrorCode.ER_SLAVE_RELAY_LOG_READ_FAILURE, str(error)), error.position, "corrupt event")
        return status

    def apply_files(self, binlogs: Sequence[Path], start: int = 0) -> SlaveStatus:
        """Apply a sequence of binlog files as a replica reads its master's: from the file
        the slave is at (the first one for a new slave, at `start`) to its end, then, where
        the file ends in a Rotate naming the next file of the sequence, on in that file from
        the Rotate's position; the position recorded names the file."""
        files = {path.name: path for path in binlogs}
        current = files.get(self.master_log_name) if self.resumed else None
        if self.resumed and current is None:
            raise SlaveConfigurationError(f"the slave is applying {self.master_log_name} (position {self.status.applied_position}), which is not among the binlogs given")
        current = current or binlogs[0]
        while True:
            self.rotate = None
            status = self.apply(current, start)
            rotate = self.rotate or (_rotate_ending_at(current, status.applied_position) if status.running else None)
            if not status.running or rotate is None or rotate.new_log_ident not in files:
                return status
            current, start = files[rotate.new_log_ident], rotate.position
            self.master_log_name = current.name
            self._checkpoint(start)

    def _apply_with_retries(self, reader: BinlogReader, position: int, stop: int | None) -> int | None:
        """One transaction, run again after a transient error up to slave_transaction_retries times."""
        if not self.crash_safe:
            return self._apply_transaction(reader, position, stop)
        retrying = Retrying(
            stop=stop_after_attempt(int(self.server.global_variables["slave_transaction_retries"]) + 1),
            wait=RETRY_WAIT,
            retry=retry_if_exception_type(TransientStop),
            before_sleep=lambda state: self._report_retry(position, state),
            reraise=True,
        )
        return retrying(self._apply_transaction, reader, position, stop)

    def _report_retry(self, position: int, state: RetryCallState) -> None:
        error = state.outcome.exception().error
        wait = state.next_action.sleep if state.next_action else 0.0
        self.status.retries.append(Retry(position, state.attempt_number, error.code, error.message, wait))

    def _apply_transaction(self, reader: BinlogReader, position: int, stop: int | None) -> int | None:
        """Apply events from `position` to the end of the transaction they open, commit it
        with the position after it and return that position; None at the end of the binlog."""
        events = reader.events(position)
        try:
            for positioned in events:
                if stop is not None and positioned.position >= stop:
                    break
                if self._apply_event(positioned):
                    return positioned.end_log_pos
        except BinlogCorruptError as error:
            if not error.truncated:
                raise
            self.status.waiting = f"the binlog ends inside the event at position {error.position} ({error.reason})"
        finally:
            events.close()
        if self.session.transaction is not None:
            self._end_inside_transaction()
        return None

    def _apply_event(self, positioned: PositionedEvent) -> bool:
        """Apply one event; True when it ends a transaction, which is then committed."""
        self._position = positioned.position
        self._event_name = type_name_of(positioned.event)
        try:
            self.events.apply(positioned)
        except SlaveStop as halt:
            transaction = self.session.transaction
            if self.crash_safe and halt.error.code in TRANSIENT_ERRORS and not (transaction and transaction.wrote_nontransactional):
                self._roll_back_to_checkpoint()
                raise TransientStop(halt.error) from None
            raise
        self.events.pending_events += 1
        if isinstance(positioned.event, Rotate_log_event):
            self.rotate = positioned.event  # where the master's next file starts
        if self.session.transaction is not None or isinstance(positioned.event, GROUP_OPENERS):
            return False
        try:
            self._checkpoint(positioned.end_log_pos)
        except (SqlError, duckdb.Error) as error:  # DuckDB aborted the transaction earlier
            raise SlaveStop(error if isinstance(error, SqlError) else SqlError(ErrorCode.ER_UNKNOWN_ERROR, str(error))) from None
        return True

    def _end_inside_transaction(self) -> None:
        """The binlog ends inside a transaction (a file still being written, or cut): none
        of it is applied or recorded, its events are read again from its start next time.
        In a file that takes its non-transactional changes back too, as they are in the
        same DuckDB transaction; in memory nothing takes those back."""
        start = self.status.applied_position
        self.status.waiting = f"{self.status.waiting or 'the binlog ends'}; the transaction at position {start} waits for the rest"
        if self.crash_safe:
            self._roll_back_to_checkpoint()
        else:
            self.events.rollback()
            self._checkpoint(start)

    def _stop(self, error: SqlError, position: int, event: str) -> None:
        """The SQL thread stops: the failed transaction's transactional changes are undone,
        its non-transactional ones stay, and the position stays at its start."""
        self.events.rollback()
        try:
            self._checkpoint(self.status.applied_position)
        except (SqlError, duckdb.Error):
            # DuckDB aborted the transaction (a statement failed inside it): nothing of it
            # can be committed, the position stays at its start all the same.
            self._roll_back_to_checkpoint()
        self.status.running = False
        condition = error.condition()
        if error.error is ErrorCode.ER_INCONSISTENT_ERROR:
            condition = replace(condition, code=self.flavor.inconsistent_error_code)
        self.status.error = condition
        self.status.error_position = position
        self.status.error_event = event

    def close(self) -> None:
        if self.crash_safe:
            self.server.connection.execute("ROLLBACK")
        self.server.close()


def _rotate_ending_at(binlog: Path, position: int) -> Rotate_log_event | None:
    """The Rotate a slave resumed at `position` applied before (its file's last event)."""
    try:
        with BinlogReader(binlog) as reader:
            for positioned in reader.events():
                if positioned.end_log_pos == position and isinstance(positioned.event, Rotate_log_event):
                    return positioned.event
    except BinlogCorruptError:
        return None
    return None


def _database_locked(error: BaseException) -> bool:
    return isinstance(error, duckdb.IOException) and "lock" in str(error).lower()
