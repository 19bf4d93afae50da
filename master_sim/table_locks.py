"""LOCK TABLES and UNLOCK TABLES on the master, and what they mean for other statements.

LOCK TABLES commits the open transaction, releases the session's earlier table locks and
takes the new ones once no other session holds a conflicting lock, its own or its open
transaction's (the tables that transaction used: metadata locks); UNLOCK TABLES commits
when the session held table locks (OPTION_TABLE_LOCK) and releases them; START
TRANSACTION releases them too. Neither statement is logged; the statements under the
locks are logged as they would be without them (autocommit: each its own transaction).

The session that holds table locks may open only the tables it locked, each once per
statement and under its own name (ER_TABLE_NOT_LOCKED names the first other one, by the
name the statement gives it), and write only those it locked WRITE
(ER_TABLE_NOT_LOCKED_FOR_WRITE); temporary tables need no lock. Other sessions wait while
they would read a WRITE-locked table or write a locked one. What the server does under
LOCK TABLES and the simulator does not model is refused: DDL on base tables, locking a
view or a table with triggers (whose tables the server locks implicitly), and statements
whose stored functions open other tables.
"""

from __future__ import annotations

from sqlglot import exp

from server_sim.errors import ErrorCode, SqlError, not_supported
from server_sim.server import Server
from server_sim.statement import Statement, StatementKind, source_nodes, target_tables
from server_sim.table_lock_statements import TableLockMode

from .analysis import Analysis
from .locks import LockManager, LockMode
from .sessions import MasterSession
from .transactions import TransactionControl

# Tables the server opens without a table lock: its own views of its state.
_UNLOCKED_DATABASES = frozenset({"information_schema", "performance_schema"})
_MODES = {TableLockMode.READ: LockMode.SHARED, TableLockMode.WRITE: LockMode.EXCLUSIVE}


class TableLockControl:
    """The sessions' LOCK TABLES locks, taken, checked and released."""

    def __init__(self, server: Server, locks: LockManager, transactions: TransactionControl) -> None:
        self.server = server
        self.locks = locks
        self.transactions = transactions

    def run(self, ms: MasterSession, statement: Statement) -> str | None:
        """LOCK TABLES or UNLOCK TABLES; the session to wait for, if the locks are not free."""
        if statement.kind is StatementKind.UNLOCK_TABLES:
            if ms.name in self.locks.table_locks:
                self.transactions.commit(ms)
                self.locks.unlock_tables(ms.name)
            return None
        self.locks.unlock_tables(ms.name)
        self.transactions.commit(ms)
        return self.locks.lock_tables(ms.name, self._wanted(ms, statement))

    def _wanted(self, ms: MasterSession, statement: Statement) -> dict[str, LockMode]:
        """The locks LOCK TABLES asks for, by table; 1146 for a table that does not exist."""
        catalog = self.server.catalog
        wanted: dict[str, LockMode] = {}
        for item in statement.table_locks:
            if (not item.db or item.db == catalog.database) and item.name in catalog.views:
                raise not_supported("LOCK TABLES on a view (the server locks its tables implicitly)")
            table = catalog.require(item.db, item.name, ms.session.thread_id)
            if table.temporary:
                continue
            if any(trigger.table.lower() == table.name.lower() for trigger in catalog.triggers):
                raise not_supported("LOCK TABLES on a table with triggers (the server locks their tables implicitly)")
            wanted[table.name.lower()] = _MODES[item.mode]
        return wanted

    def release(self, ms: MasterSession) -> None:
        """START TRANSACTION, or the session's disconnect: its table locks go."""
        self.locks.unlock_tables(ms.name)

    def check_opened(self, ms: MasterSession, statement: Statement) -> None:
        """Under the session's own LOCK TABLES, before anything is opened: every table the
        statement opens must be locked (1100), and a written one locked WRITE (1099)."""
        locked = self.locks.table_locks.get(ms.name)
        if locked is None or statement.ast is None:
            return
        if statement.kind.is_ddl and not statement.temporary:
            raise not_supported(f"{statement.kind.value} while the session holds LOCK TABLES")
        written = {id(node) for node in target_tables(statement)}
        if _locks_for_update(statement):
            written |= {id(node) for node in statement.table_nodes}  # FOR UPDATE asks for TL_WRITE
        created = written if statement.kind is StatementKind.CREATE_TABLE else set()
        used: set[str] = set()
        for node in source_nodes(statement):
            if id(node) in created or node.db.lower() in _UNLOCKED_DATABASES or self._temporary(ms, node):
                continue
            name = node.alias_or_name
            if name.lower() in used or name.lower() not in locked or name.lower() != node.name.lower():
                raise SqlError(ErrorCode.ER_TABLE_NOT_LOCKED, name)
            used.add(name.lower())
            if id(node) in written and locked[name.lower()] is LockMode.SHARED:
                raise SqlError(ErrorCode.ER_TABLE_NOT_LOCKED_FOR_WRITE, name)

    def check_analysed(self, ms: MasterSession, analysis: Analysis, row_logged: bool) -> None:
        """Under the session's own LOCK TABLES, what the analysis found beyond the tables
        written as named: a multi-table statement's written tables (1099), and tables its
        triggers or stored functions open (refused). A row-logged statement maps every
        table the session locked WRITE (write_locked_table_maps), into the cache of each
        table's engine, and the servers keep those maps across statements as the caches
        keep them: modelled only with one table locked WRITE, which is then the one the
        statement maps anyway."""
        locked = self.locks.table_locks.get(ms.name)
        if locked is None:
            return
        if row_logged and sum(mode is LockMode.EXCLUSIVE for mode in locked.values()) > 1:
            raise not_supported("a row-logged statement under LOCK TABLES with more than one table locked WRITE (the server maps them all)")
        for table in [*analysis.reads, *analysis.writes]:
            if not table.temporary and table.name.lower() not in locked:
                raise not_supported("a statement under LOCK TABLES whose stored functions or triggers open other tables")
        for table in analysis.writes:
            if not table.temporary and locked[table.name.lower()] is LockMode.SHARED:
                raise SqlError(ErrorCode.ER_TABLE_NOT_LOCKED_FOR_WRITE, table.name)

    def open(self, ms: MasterSession, statement: Statement, analysis: Analysis) -> str | None:
        """The other session whose table locks this statement must wait for: one that has
        a table it reads locked WRITE, or one it writes locked at all. Once none is, the
        tables are the transaction's until it ends (its metadata locks, which a later LOCK
        TABLES of another session waits for)."""
        uses = {table.name.lower(): LockMode.SHARED for table in analysis.reads if not table.temporary}
        written = [*analysis.writes, *analysis.prelocked_writes]
        if statement.kind.is_ddl:
            written += [t for node in target_tables(statement) if (t := self.server.catalog.find(node.name, ms.session.thread_id)) is not None]
        uses.update({table.name.lower(): LockMode.EXCLUSIVE for table in written if not table.temporary})
        holder = self.locks.table_lock_blocker(ms.name, uses) if self.locks.table_locks else None
        if holder is None:
            # A non-transactional table the transaction wrote is kept only as read
            # (recorded on MariaDB: LOCK TABLES m READ does not wait for it, WRITE does).
            tables = {table.name.lower(): table for table in [*analysis.reads, *written]}
            self.locks.open_tables(ms.name, {name: mode if tables[name].engine.transactional else LockMode.SHARED for name, mode in uses.items()})
        return holder

    def _temporary(self, ms: MasterSession, node: exp.Table) -> bool:
        table = self.server.catalog.resolve(node.db, node.name, ms.session.thread_id)
        return table is not None and table.temporary


def _locks_for_update(statement: Statement) -> bool:
    """SELECT ... FOR UPDATE: the server opens its tables for writing."""
    ast = statement.ast
    return isinstance(ast, exp.Select) and any(lock.args.get("update") for lock in ast.args.get("locks") or [])
