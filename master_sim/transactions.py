"""Transaction control on the master: BEGIN, COMMIT, ROLLBACK, savepoints, implicit commits,
and the binlog's side of each (WL#2687 layer 3: flushing the caches).

The transaction cache is written at COMMIT, with Xid when a transactional engine joined
the transaction with a change; at ROLLBACK only when it holds a non-transactional change,
which no rollback can take back. The statement cache is written when its statement ends.
"""

from __future__ import annotations

import datetime as dt

from server_sim.binlog.events import Log_event
from server_sim.binlog.file import BinlogWriter
from server_sim.errors import ErrorCode, SqlError, note
from server_sim.flavor import Flavor
from server_sim.server import Server
from server_sim.session import Savepoint, Transaction
from server_sim.statement import Statement, StatementKind
from server_sim.table import Table

from .binlog_cache import BinlogCache, EventFactory
from .decision import TransactionState
from .locks import LockManager
from .results import StepResult
from .sessions import BinlogSavepoint, MasterSession


def unix_time(moment: dt.datetime) -> int:
    """An event's timestamp: the server clock's seconds since the epoch."""
    return int(moment.replace(tzinfo=dt.timezone.utc).timestamp())


def transaction_state(ms: MasterSession) -> TransactionState:
    """What decide_logging_format gets from the session for its next statement."""
    variables = ms.session.variables
    return TransactionState(
        binlog_format=variables["binlog_format"],
        isolation=variables["transaction_isolation"],
        direct=variables["binlog_direct_non_transactional_updates"] == "ON",
        multi_statement=ms.session.in_multi_statement_transaction,
        trx_cache_nonempty=not ms.trx_cache.empty,
        row_sticks=ms.row_sticks,
    )


class TransactionControl:
    """Ends statements and transactions, and writes the caches when they end."""

    def __init__(self, server: Server, writer: BinlogWriter, events: EventFactory, locks: LockManager) -> None:
        self.server = server
        self.writer = writer
        self.events = events
        self.locks = locks

    def run(self, ms: MasterSession, statement: Statement, result: StepResult) -> None:
        """BEGIN, COMMIT, ROLLBACK and the savepoint statements."""
        kind = statement.kind
        if kind is StatementKind.BEGIN:
            self.commit(ms)
            self.locks.unlock_tables(ms.name)  # START TRANSACTION ends LOCK TABLES
            ms.session.begin(explicit=True)
        elif kind is StatementKind.COMMIT:
            self.commit(ms)
        elif kind is StatementKind.ROLLBACK:
            self._warn_incomplete_rollback(ms, result)
            self._warn_temporary_tables_kept(ms, result)
            self.rollback(ms)
        else:
            self._savepoint(ms, statement)
            if kind is StatementKind.ROLLBACK_TO_SAVEPOINT:
                self._warn_incomplete_rollback(ms, result, to_savepoint=True)

    def end_statement(self, ms: MasterSession, failed: bool = False) -> None:
        """Flush the statement cache; in autocommit the statement's transaction ends too: a
        failed statement's is rolled back (MYSQL_BIN_LOG::rollback with ending_trans), so a
        transaction cache it left a non-transactional change in ends with ROLLBACK."""
        ending = not ms.session.in_multi_statement_transaction
        if ending and not failed and self.server.flavor.autocommit_caches_in_one_group and not ms.stmt_cache.empty and not ms.trx_cache.empty:
            self._write_group(ms, [*ms.stmt_cache.events, *ms.trx_cache.events], "COMMIT", xid=ms.touched_transactional)
            ms.stmt_cache.clear()
            ms.trx_cache.clear()
            self._end_transaction(ms)
            return
        self._flush(ms, ms.stmt_cache, "COMMIT", xid=False)
        if ms.session.in_multi_statement_transaction:
            return
        if failed:
            self._rollback_binlog(ms, ms.trx_cache.has_nontransactional)
            self._end_transaction(ms)
        else:
            self.commit(ms)

    def commit(self, ms: MasterSession) -> None:
        """COMMIT (or an implicit commit): BEGIN + transaction cache + Xid or COMMIT."""
        self._flush(ms, ms.trx_cache, "COMMIT", xid=ms.touched_transactional)
        self._end_transaction(ms)

    def rollback(self, ms: MasterSession) -> None:
        """ROLLBACK: transactional changes undone; the cache is logged only if it holds N-changes."""
        transaction = ms.session.transaction
        if transaction is not None:
            transaction.undo_to(0, self.server.storage)
        # cannot_safely_rollback(): a non-transactional change, or a temporary table created
        # or dropped (in row format too, where the CREATE itself is not logged).
        changed_temporary = transaction is not None and transaction.changed_temporary_tables
        self._rollback_binlog(ms, ms.trx_cache.has_nontransactional or changed_temporary or self._format_keeps_log(ms, transaction))
        self._end_transaction(ms)

    def _format_keeps_log(self, ms: MasterSession, transaction: Transaction | None) -> bool:
        """MariaDB's rollback rule by format (Flavor.rollback_logged_by_format)."""
        if transaction is None or not self.server.flavor.rollback_logged_by_format:
            return False
        binlog_format = ms.session.variables.get("binlog_format")
        return (binlog_format == "STATEMENT" and transaction.wrote_nontransactional) or (
            binlog_format == "MIXED" and transaction.wrote_nontransactional_temporary
        )

    def disconnect(self, ms: MasterSession) -> None:
        """The session ends: its temporary tables go, and those whose CREATE reached the
        binlog are dropped on the slave by the DROP the server writes (close_temporary_tables),
        newest first, grouped as the flavor groups them (drop_groups)."""
        catalog, thread_id = self.server.catalog, ms.session.thread_id
        tables = [t for name in reversed(ms.logged_temporary) if (t := catalog.find(name, thread_id)) is not None and t.temporary]
        for table in [t for t in catalog.temporary.values() if t.owner == thread_id]:
            self.server.storage.drop(table)
            catalog.remove(table)
        ms.logged_temporary.clear()
        if ms.session.variables.get("sql_log_bin", "ON") != "ON":
            return
        for group in drop_groups(self.server.flavor, tables):
            names = ",".join(f"`{table.name.replace('`', '``')}`" for table in group)
            text = f"DROP /*!40005 TEMPORARY */ TABLE IF EXISTS {names}"
            self.writer.write_group([self.events.query(text, unix_time(self.server.now()), thread_id, variables=ms.session.variables)])

    def _flush(self, ms: MasterSession, cache: BinlogCache, end: str, xid: bool) -> None:
        """flush_with_boundaries: the cache as one binlog transaction, BEGIN ... `end` (or Xid)."""
        if cache.empty:
            return
        self._write_group(ms, cache.events, end, xid)
        cache.clear()

    def _write_group(self, ms: MasterSession, events: list[Log_event], end: str, xid: bool) -> None:
        timestamp = events[0].timestamp
        now = unix_time(self.server.now())
        closing = self.events.xid(now) if xid else self.events.query(end, now, ms.session.thread_id, variables=ms.session.variables)
        begin = self.events.query("BEGIN", timestamp, ms.session.thread_id, variables=ms.session.variables)
        self.writer.write_group([begin, *events, closing])

    def _warn_incomplete_rollback(self, ms: MasterSession, result: StepResult, to_savepoint: bool = False) -> None:
        """Warning 1196: the transaction changed tables a rollback cannot restore (or, for
        ROLLBACK TO on MariaDB, created or dropped a temporary table)."""
        transaction = ms.session.transaction
        if transaction is not None and (transaction.wrote_nontransactional or (to_savepoint and self._keeps_log(transaction))):
            result.notes.append(note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK, level="Warning"))

    def _warn_temporary_tables_kept(self, ms: MasterSession, result: StepResult) -> None:
        """MySQL's Warnings 1751 and 1752: temporary tables created or dropped in the
        transaction stay created or dropped after its ROLLBACK."""
        transaction = ms.session.transaction
        if transaction is None or not self.server.flavor.rollback_warns_temporary_tables:
            return
        if transaction.created_temporary_table:
            result.notes.append(note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK_WITH_CREATED_TEMP_TABLE, level="Warning"))
        if transaction.dropped_temporary_table:
            result.notes.append(note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK_WITH_DROPPED_TEMP_TABLE, level="Warning"))

    def _keeps_log(self, transaction: Transaction) -> bool:
        """MariaDB's OPTION_KEEP_LOG: a temporary table created or dropped in the transaction."""
        return self.server.flavor.temporary_ddl_keeps_log and transaction.changed_temporary_tables

    def _rollback_binlog(self, ms: MasterSession, logged: bool) -> None:
        """The binlog's part of a rollback: the transaction cache is logged with ROLLBACK when
        the changes cannot all be undone, else dropped; the binlog leaves the participants."""
        if logged:
            self._flush(ms, ms.trx_cache, "ROLLBACK", xid=False)
        ms.trx_cache.clear()
        ms.binlog_participant = False

    def _end_transaction(self, ms: MasterSession) -> None:
        """The transaction is over: its savepoints go, and its locks, which may wake others."""
        ms.session.transaction = None
        ms.savepoints.clear()
        ms.binlog_participant = False
        ms.touched_transactional = False
        self.locks.release(ms.name)

    # -- savepoints ------------------------------------------------------------------------

    def _savepoint(self, ms: MasterSession, statement: Statement) -> None:
        """SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT (1305 for an unknown name)."""
        transaction = ms.session.transaction
        name = statement.savepoint or ""
        if statement.kind is StatementKind.SAVEPOINT:
            if transaction is not None:
                self._set_savepoint(ms, transaction, name)
            return
        savepoint = next((s for s in (transaction.savepoints if transaction else []) if s.name.lower() == name.lower()), None)
        if savepoint is None or transaction is None:
            raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST_SAVEPOINT, name)
        saved = ms.savepoints[name.lower()]
        keep = transaction.savepoints.index(savepoint) + (1 if statement.kind is StatementKind.ROLLBACK_TO_SAVEPOINT else 0)
        for dropped in transaction.savepoints[keep:]:
            ms.savepoints.pop(dropped.name.lower(), None)
        transaction.savepoints = transaction.savepoints[:keep]
        if statement.kind is StatementKind.ROLLBACK_TO_SAVEPOINT:
            self._rollback_to(ms, transaction, savepoint, saved, name)

    def _set_savepoint(self, ms: MasterSession, transaction: Transaction, name: str) -> None:
        """SAVEPOINT: the engines remember their undo mark; the binlog, if a participant,
        caches a SAVEPOINT event where a ROLLBACK TO can cut the cache back."""
        transaction.savepoints = [s for s in transaction.savepoints if s.name.lower() != name.lower()]
        transaction.savepoints.append(Savepoint(name, len(transaction.undo)))
        position = len(ms.trx_cache.events) if ms.binlog_participant else None
        if position is not None and self.server.flavor.savepoint_event_survives_rollback_to:
            position += 1  # recorded once its SAVEPOINT event is written
        ms.savepoints[name.lower()] = BinlogSavepoint(position, ms.touched_transactional)
        if position is None:
            return
        timestamp = unix_time(self.server.tick())
        ms.trx_cache.add([self.events.query(f"SAVEPOINT `{name}`", timestamp, ms.session.thread_id, variables=ms.session.variables)], nontransactional=False)

    def _rollback_to(self, ms: MasterSession, transaction: Transaction, savepoint: Savepoint, saved: BinlogSavepoint, name: str) -> None:
        """ROLLBACK TO SAVEPOINT.

        ha_rollback_to_savepoint rolls back, whole, each participant that joined after the
        savepoint; the others go back to it. The binlog keeps a record of the rollback
        (binlog_savepoint_rollback) when the transaction changed a non-transactional table."""
        transaction.undo_to(savepoint.undo_mark, self.server.storage)
        ms.touched_transactional = ms.touched_transactional and saved.touched_transactional
        kept = transaction.wrote_nontransactional or self._keeps_log(transaction)
        if saved.position is None:
            self._rollback_binlog(ms, kept)
        elif kept:
            timestamp = unix_time(self.server.tick())
            ms.trx_cache.add([self.events.query(f"ROLLBACK TO `{name}`", timestamp, ms.session.thread_id, variables=ms.session.variables)], nontransactional=False)
        else:
            ms.trx_cache.truncate(saved.position)


def drop_groups(flavor: Flavor, tables: list[Table]) -> list[list[Table]]:
    """The DROP statements for a session's logged temporary tables, newest first in each:
    MySQL logs the transactional tables' apart from the others' (first); MariaDB one for all."""
    if not tables:
        return []
    if not flavor.disconnect_drops_by_engine:
        return [tables]
    groups = [[t for t in tables if t.engine.transactional], [t for t in tables if not t.engine.transactional]]
    return [group for group in groups if group]
