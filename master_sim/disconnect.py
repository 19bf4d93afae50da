"""A session's end when its client disconnects (THD cleanup): its open transaction rolls
back, its temporary tables are dropped, its user-level and table locks are released.

The rollback logs what any ROLLBACK logs (the cached statements and ROLLBACK when they
changed a non-transactional table). A temporary table whose CREATE reached the binlog gets
a `DROP /*!40005 TEMPORARY */ TABLE IF EXISTS` there (close_temporary_tables), so that the
replica's copy goes too; one never logged is dropped quietly
(TransactionControl.disconnect, which also ends every session at the end of a run).
"""

from __future__ import annotations

from .sessions import MasterSession
from .transactions import TransactionControl


def end_session(transactions: TransactionControl, ms: MasterSession) -> None:
    """Everything the server does when the session's client goes away."""
    transactions.rollback(ms)
    transactions.disconnect(ms)
    transactions.server.user_locks.release_all(ms.session.thread_id)
    transactions.locks.release(ms.name)
