"""Which locks a statement asks for: InnoDB-like, before it runs and for the rows it wrote.

Rows reached by full primary-key equality are locked one by one, else the whole table;
once the statement has run, each row it changed or ran into on a unique key is locked
by that key (see locks.py for how requests are granted).
"""

from __future__ import annotations

from sqlglot import exp

from server_sim.catalog import Catalog
from server_sim.table import Table
from server_sim.execute.outcome import Outcome
from server_sim.session import Session
from server_sim.statement import Statement, StatementKind, source_nodes, target_tables

from .analysis import Analysis
from .locks import LockMode, LockRequest

_ISOLATION = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")


def statement_lock_requests(catalog: Catalog, owner: str, session: Session, statement: Statement, analysis: Analysis) -> list[LockRequest]:
    """The locks a statement takes before it runs; `owner` names its session's locks."""
    if statement.kind.is_ddl:
        return _ddl_requests(catalog, session, statement)
    if statement.ast is not None and statement.ast.find(exp.With) is None and any(
        catalog.resolve(node.db, node.name, session.thread_id) is None for node in source_nodes(statement)
    ):
        return []  # the server fails opening the tables (1146) before it locks any
    locking_read: LockMode | None = None
    if statement.kind is StatementKind.SELECT:
        lock = next(iter(statement.ast.args.get("locks") or []), None) if statement.ast is not None else None
        if lock is None:
            return []
        locking_read = LockMode.EXCLUSIVE if lock.args.get("update") else LockMode.SHARED
    requests = _write_requests(owner, analysis)
    isolation = session.variables["transaction_isolation"]
    reads_lock = locking_read or (
        LockMode.SHARED if _ISOLATION.index(isolation) >= _ISOLATION.index("REPEATABLE-READ") else None
    )
    if reads_lock is not None and (statement.kind.is_dml or locking_read is not None):
        for table in analysis.read_only if locking_read is None else analysis.reads:
            if _locks_rows(table):
                requests.append(LockRequest(_lock_name(table), reads_lock))
    return requests


def _ddl_requests(catalog: Catalog, session: Session, statement: Statement) -> list[LockRequest]:
    """DDL locks each existing non-temporary table it names, whole."""
    requests: list[LockRequest] = []
    for node in target_tables(statement):
        table = catalog.find(node.name, session.thread_id)
        if table is not None and not table.temporary:
            requests.append(LockRequest(_lock_name(table), LockMode.EXCLUSIVE))
    return requests


def _write_requests(owner: str, analysis: Analysis) -> list[LockRequest]:
    """Written tables: the rows reached by key, the new rows of a plain INSERT, or all."""
    requests: list[LockRequest] = []
    for table in analysis.writes:
        if not _locks_rows(table):
            continue
        keys = analysis.key_reach.get(table.name.lower())
        if keys is not None:
            requests.extend(LockRequest(_lock_name(table), LockMode.EXCLUSIVE, tuple(_key_text(v) for v in key)) for key in keys)
        elif table.name.lower() in analysis.inserts_only:
            # New rows take fresh keys: they only conflict with whole-table locks.
            requests.append(LockRequest(_lock_name(table), LockMode.EXCLUSIVE, ("insert", owner)))
        else:
            requests.append(LockRequest(_lock_name(table), LockMode.EXCLUSIVE))
    return requests


def row_lock_requests(outcome: Outcome) -> list[LockRequest]:
    """The record locks of the rows a statement changed (before and after; a foreign key's
    cascade included) or ran into on a unique key: by primary key, as the statement-level
    requests name rows, and by each unique key, which an insert's duplicate check reads."""
    requests: list[LockRequest] = []
    changed = [
        (change.table, row, LockMode.EXCLUSIVE) for change in [*outcome.changes, *outcome.cascaded] for row in (change.before, change.after) if row is not None
    ]
    for table, row, mode in changed + [(table, row, LockMode.SHARED) for table, row in outcome.duplicates]:
        if not _locks_rows(table):
            continue
        primary = table.primary_key
        for key in table.unique_keys():
            values = [row[table.column_index(column)] for column in key.columns]
            if any(value is None for value in values):
                continue
            text = tuple(_key_text(value) for value in values)
            requests.append(LockRequest(_lock_name(table), mode, text if key is primary else ("unique", key.name.lower(), *text)))
    return requests


def _locks_rows(table: Table) -> bool:
    return table.engine.transactional and not table.temporary


def _lock_name(table: Table) -> str:
    return table.name.lower()


def _key_text(value: object) -> object:
    return value.casefold() if isinstance(value, str) else value
