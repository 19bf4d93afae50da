"""A session's end when its client disconnects (THD cleanup): its open transaction rolls
back, its temporary tables are dropped, its user-level and table locks are released.

The rollback logs what any ROLLBACK logs (the cached statements and ROLLBACK when they
changed a non-transactional table). A temporary table whose CREATE reached the binlog gets
a `DROP /*!40005 TEMPORARY */ TABLE IF EXISTS` there (close_temporary_tables), so that the
replica's copy goes too; one never logged is dropped quietly. How the tables are grouped
into statements and ordered is the flavor's (`Flavor.disconnect_drop_groups`).
"""

from __future__ import annotations

from server_sim.execute.outcome import Outcome
from server_sim.server import Server
from server_sim.statement import Statement, StatementKind, target_tables
from server_sim.table import Table

from .sessions import MasterSession
from .transactions import TransactionControl, unix_time


def mark_temporary_creation_logged(server: Server, ms: MasterSession, statement: Statement, outcome: Outcome) -> None:
    """Remember that a CREATE TEMPORARY TABLE was logged: the session's disconnect logs its DROP."""
    if statement.kind is not StatementKind.CREATE_TABLE or not statement.temporary or outcome.error is not None:
        return
    for node in target_tables(statement):
        table = server.catalog.find(node.name, ms.session.thread_id)
        if table is not None and table.temporary:
            table.creation_logged = True


def end_session(transactions: TransactionControl, ms: MasterSession) -> None:
    """Everything the server does when the session's client goes away."""
    server = transactions.server
    transactions.rollback(ms)
    thread_id = ms.session.thread_id
    # Newest first, as the servers keep a session's temporary tables.
    tables = [table for (owner, _), table in reversed(server.catalog.temporary.items()) if owner == thread_id]
    for table in tables:
        server.storage.drop(table)
        server.catalog.remove(table)
    logging = ms.session.variables.get("sql_log_bin", "ON") == "ON"
    if logging:
        for group in drop_groups(server, [table for table in tables if table.creation_logged]):
            sql = "DROP /*!40005 TEMPORARY */ TABLE IF EXISTS " + ",".join(f"`{t.name.replace('`', '``')}`" for t in group)
            event = transactions.events.query(sql, unix_time(server.now()), thread_id, variables=ms.session.variables)
            transactions.writer.write_group([event])
    server.user_locks.release_all(thread_id)
    transactions.locks.release(ms.name)


def drop_groups(server: Server, tables: list[Table]) -> list[list[Table]]:
    """The DROP statements for the logged tables, newest first in each: MySQL logs the
    transactional tables' apart from the others' (first); MariaDB one for all."""
    if not tables:
        return []
    if not server.flavor.disconnect_drops_by_engine:
        return [tables]
    groups = [[t for t in tables if t.engine.transactional], [t for t in tables if not t.engine.transactional]]
    return [group for group in groups if group]
