"""InnoDB's foreign key checks and cascades, row by row, where the handler changes rows
(so that the replica's applier checks and cascades as its engine would).

A child row must have its parent row (1452). A change of a referenced parent row either
fails (RESTRICT, NO ACTION: 1451) or reaches the child rows (CASCADE, SET NULL). The
cascaded changes are the engine's, not the statement's: they go into the transaction
(a rollback takes them back) but not into the statement's row events, which is why a
row-logged replica cascades by itself. Triggers do not fire for them. With
foreign_key_checks off nothing is checked or cascaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from ..table import Table
from ..collation import equality_key
from ..declined import Declined
from ..errors import ErrorCode, SqlError
from ..foreign_keys import ForeignKey, ReferentialAction
from ..server import Server
from ..session import ChangeKind, RowChange, Session

# How deep cascades may go (InnoDB's FK_MAX_CASCADE_DEL): beyond it the statement fails.
MAX_CASCADE_DEPTH = 15


def checks_on(session: Session) -> bool:
    return session.variables.get("foreign_key_checks", "ON").upper() not in ("OFF", "0")


def _values(table: Table, row: Sequence[object], columns: Sequence[str]) -> list[object]:
    return [row[table.column_index(column)] for column in columns]


def _exact(table: Table, columns: Sequence[str]) -> bool:
    return any(table.column(name).type.compares_exactly for name in columns)


def _same(left: Sequence[object], right: Sequence[object], exact: bool = False) -> bool:
    """Key values equal as the collation compares them (text beyond ASCII, and text of a
    _bin column: exactly)."""
    if exact:
        return list(left) == list(right)
    try:
        return [equality_key(v) for v in left] == [equality_key(v) for v in right]
    except Declined:
        return list(left) == list(right)


def check_child(server: Server, session: Session, table: Table, row: tuple, before: tuple | None = None) -> None:
    """1452 when a written or updated child row has no parent row."""
    if not checks_on(session):
        return
    for fk in table.foreign_keys:
        values = _values(table, row, fk.columns)
        if any(value is None for value in values):
            continue
        if before is not None and _same(values, _values(table, before, fk.columns), _exact(table, fk.columns)):
            continue  # the constrained columns kept their values: InnoDB does not look again
        if not _has_parent(server, table, fk, row, values):
            database = server.catalog.database
            raise SqlError(ErrorCode.ER_NO_REFERENCED_ROW_2, database, table.name, fk.describe(database))


def _has_parent(server: Server, table: Table, fk: ForeignKey, row: tuple, values: list[object]) -> bool:
    parent = table if fk.parent == table.name else server.catalog.find(fk.parent)
    if parent is None:
        return False
    if parent is table and _same(values, _values(table, row, fk.parent_columns), _exact(table, fk.columns)):
        return True  # a row that references itself
    return bool(server.storage.find_by_columns(parent, fk.parent_columns, values, None))


def first_orphan(server: Server, table: Table, fk: ForeignKey, rows: Sequence[tuple]) -> tuple | None:
    """The first of `rows` (of `table`) whose parent row is missing."""
    for row in rows:
        values = _values(table, row, fk.columns)
        if not any(value is None for value in values) and not _has_parent(server, table, fk, row, values):
            return row
    return None


def on_parent_change(server: Server, session: Session, table: Table, before: tuple, after: tuple | None, cascaded: list[RowChange], depth: int = 0) -> None:
    """What deleting (`after` None) or updating a parent row does to its child rows, before
    the parent row changes: 1451 for RESTRICT / NO ACTION, else the cascade, whose row
    changes are added to `cascaded`."""
    catalog = server.catalog
    if not checks_on(session):
        return
    for child, fk in catalog.referencing(table):
        old = _values(table, before, fk.parent_columns)
        if any(value is None for value in old):
            continue
        if after is not None and _same(old, _values(table, after, fk.parent_columns)):
            continue
        children = server.storage.find_by_columns(child, fk.columns, old, None) if child.engine.stores_rows else []
        if child is table and after is None:
            children = [found for found in children if tuple(found[1:]) != before]
        if not children:
            continue
        action = fk.on_delete if after is None else fk.on_update
        if action.refuses or depth >= MAX_CASCADE_DEPTH:
            raise SqlError(ErrorCode.ER_ROW_IS_REFERENCED_2, catalog.database, child.name, fk.describe(catalog.database))
        for row_id, *values in children:
            _cascade(server, session, child, fk, row_id, tuple(values), action, after, cascaded, depth)


def _cascade(
    server: Server, session: Session, child: Table, fk: ForeignKey, row_id: int, row: tuple, action: ReferentialAction, parent_after: tuple | None, cascaded: list[RowChange], depth: int
) -> None:
    """One child row deleted or changed by the engine, recorded for rollback only."""
    transaction = session.ensure_transaction()
    if action is ReferentialAction.CASCADE and parent_after is None:
        on_parent_change(server, session, child, row, None, cascaded, depth + 1)
        server.storage.delete(child, [row_id])
        change = RowChange(child, ChangeKind.DELETE, row_id, row, None)
        transaction.record(change)
        cascaded.append(change)
        return
    new = list(row)
    parent = server.catalog.find(fk.parent)
    for column, parent_column in zip(fk.columns, fk.parent_columns):
        value = None if action is ReferentialAction.SET_NULL else parent_after[parent.column_index(parent_column)]  # type: ignore[index, union-attr]
        new[child.column_index(column)] = value
    after = tuple(new)
    on_parent_change(server, session, child, row, after, cascaded, depth + 1)
    server.storage.update(child, row_id, after)
    change = RowChange(child, ChangeKind.UPDATE, row_id, row, after)
    transaction.record(change)
    cascaded.append(change)
