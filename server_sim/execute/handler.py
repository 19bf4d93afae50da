"""The handler calls of a statement, one row at a time: write, update and delete a stored
row, and the unique-key checks around them.

The executor's statements, the triggers they fire and the replica's applier (row events)
all change rows through these, so each change is recorded once, in the session's
transaction (for rollback) and in the statement's outcome (for the binlog).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass

from ..table import Column, Key, Table
from ..json_type import check_mariadb_json
from ..lenient_values import coerce_leniently, implicit_default
from ..temporal_types import TemporalRules
from ..errors import Condition, ErrorCode, SqlError
from ..server import Server
from ..session import ChangeKind, RowChange, Session
from .foreign_key_checks import check_child, on_parent_change
from .outcome import Outcome


class RowHandler:
    """Row changes of one statement (or one row event) of `session`, recorded in `outcome`."""

    def __init__(self, server: Server, session: Session, outcome: Outcome) -> None:
        self.server = server
        self.storage = server.storage
        self.session = session
        self.outcome = outcome
        # A write through a view WITH CHECK OPTION: called with each row before it is stored.
        self.row_check: Callable[[Table, tuple], None] | None = None

    def find_conflict(self, table: Table, values: tuple, exclude: int | None, keys: list[Key] | None = None) -> tuple[Key, tuple] | None:
        """The first unique key (in the server's checking order) another row already holds."""
        if not table.engine.stores_rows:
            return None
        for key in keys if keys is not None else table.unique_keys():
            key_values = _key_values(table, key, values)
            if key_values is None:
                continue
            found = self.storage.find_by_columns(table, key.columns, key_values, exclude)
            if found:
                return key, found[0]
        return None

    def duplicate_error(self, table: Table, key: Key, values: tuple) -> SqlError:
        """ER_DUP_ENTRY for `values` on `key`, the key named as the flavor's message names it."""
        shown = "-".join("NULL" if values[table.column_index(c)] is None else shown_value(values[table.column_index(c)]) for c in key.columns)
        key_name = f"{table.name}.{key.name}" if self.server.flavor.rows_event_version == 2 else key.name
        return SqlError(ErrorCode.ER_DUP_ENTRY, shown, key_name)

    def write_row(self, table: Table, values: tuple, assigned: frozenset[str], unless_duplicate: list[Key] | None = None) -> RowChange | None:
        """Write a row; with `unless_duplicate`, only if no other row holds its values of one
        of those unique keys, checked by the insert itself (None, and nothing written, when
        one does: find_conflict then tells which)."""
        row_id = table.next_row_id
        if self.row_check is not None:
            self.row_check(table, values)
        if table.engine.stores_rows:
            unless = [(key.columns, key_values) for key in unless_duplicate or [] if (key_values := _key_values(table, key, values)) is not None]
            if not self.storage.insert(table, row_id, values, unless):
                return None
        if table.foreign_keys:  # checked once the row is in (InnoDB: after the primary key)
            try:
                check_child(self.server, self.session, table, values)
            except SqlError:
                self.storage.delete(table, [row_id])
                raise
        table.next_row_id += 1
        return self._record(RowChange(table, ChangeKind.WRITE, row_id, None, values, assigned))

    def update_row(self, table: Table, row_id: int, before: tuple, after: tuple, assigned: frozenset[str]) -> RowChange:
        if self.row_check is not None:
            self.row_check(table, after)
        if table.foreign_keys:
            check_child(self.server, self.session, table, after, before)
        if self.server.catalog.foreign_keys_defined:
            on_parent_change(self.server, self.session, table, before, after, self.outcome.cascaded)
        if table.engine.stores_rows:
            self.storage.update(table, row_id, after)
        return self._record(RowChange(table, ChangeKind.UPDATE, row_id, before, after, assigned))

    def delete_row(self, table: Table, row_id: int, before: tuple) -> RowChange:
        if self.server.catalog.foreign_keys_defined:
            on_parent_change(self.server, self.session, table, before, None, self.outcome.cascaded)
        if table.engine.stores_rows:
            self.storage.delete(table, [row_id])
        return self._record(RowChange(table, ChangeKind.DELETE, row_id, before, None))

    def _record(self, change: RowChange) -> RowChange:
        self.session.ensure_transaction().record(change)
        self.outcome.changes.append(change)
        return change


@dataclass(frozen=True)
class Leniency:
    """How a statement that is not strict writes a row: its warnings go to `warnings`;
    `strict_mode` (a strict sql_mode whose error only the row's place in a
    non-transactional table made a warning) keeps 1406 for text cut short; `null_warns`:
    NULL for a NOT NULL column stores the implicit default with Warning 1048 (not in a
    single-row INSERT, which fails: count_cuted_fields)."""

    warnings: list[Condition]
    strict_mode: bool = False
    null_warns: bool = True
    bit_too_long: bool = False  # a BIT with too many bits warns 1406 (the flavor's)

    def coerce(self, column: Column, value: object, row_number: int, temporal_rules: TemporalRules | None) -> object:
        """The value as the column stores it, adjusted where it does not fit, its warning kept."""
        value, error = coerce_leniently(column.type, value, column.name, row_number, temporal_rules, self.strict_mode, self.bit_too_long)
        if error is not None:
            self.warnings.append(error.condition("Warning"))
        return value


def coerce_row(
    table: Table,
    values: list[object],
    row_number: int,
    temporal_rules: TemporalRules | None = None,
    leniency: Leniency | None = None,
    keep: Container[str] = (),
) -> tuple:
    """The row as the record stores it: each value of its column's type (temporal ones
    read by the server's `temporal_rules`), NOT NULL checked (1048). With a `leniency` (a
    statement that is not strict), a value the type adjusts is stored adjusted and its
    error appended there as a Warning instead. The columns named in `keep` hold a stored
    value already (one not assigned), taken as it is: an ENUM's '' is stored but cannot be
    assigned."""
    result = []
    for column, value in zip(table.columns, values):
        if column.name in keep:
            pass
        elif leniency is None:
            value = column.type.coerce(value, column.name, row_number, temporal_rules)
        else:
            value = leniency.coerce(column, value, row_number, temporal_rules)
        if column.type.json_check and value is not None:
            check_mariadb_json(value, column.name, table.name)  # type: ignore[arg-type]
        if value is None and not column.nullable:
            if leniency is None or not leniency.null_warns:
                raise SqlError(ErrorCode.ER_BAD_NULL_ERROR, column.name)
            value = implicit_default(column.type, column.name)
            leniency.warnings.append(SqlError(ErrorCode.ER_BAD_NULL_ERROR, column.name).condition("Warning"))
        result.append(value)
    return tuple(result)


def _key_values(table: Table, key: Key, values: tuple) -> list[object] | None:
    """A row's values of a unique key's columns; None when one is NULL, which never collides."""
    key_values = [values[table.column_index(name)] for name in key.columns]
    return None if any(value is None for value in key_values) else key_values


def shown_value(value: object) -> str:
    """A key value as ER_DUP_ENTRY's message shows it."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return str(value)
