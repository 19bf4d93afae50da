"""The rows of a table ALTER TABLE changes, copied into its new definition as the server's
copying ALTER does: in the old table's scan order, each value converted to its new
column's type, auto-increment values given to the rows that lack one, every unique key
checked, then stored under new row ids (the new engine's physical order)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from ..catalog import ColumnDefaults, TableBuilder
from ..table import Column, DefaultKind, Key, Table
from ..collation import equality_key
from ..declined import Declined
from ..json_type import is_valid
from ..errors import ErrorCode, SqlError, not_supported
from ..storage import Storage
from ..sysvars import strict_sql_mode
from ..temporal_types import TemporalRules
from .foreign_key_ddl import check_stored_rows
from .run import StatementRun


@dataclass
class Alteration:
    """What ALTER TABLE makes of a table: the new definition (a copy, changed action by
    action) and, for each of its columns, the old column its values come from (None: an
    added column, filled with its default)."""

    table: Table
    origin: dict[str, str | None]
    auto_increment: int | None = None  # the AUTO_INCREMENT table option, when given
    new_name: exp.Table | None = None  # RENAME [TO | AS] name
    foreign_keys: list[tuple[str, exp.ForeignKey]] = field(default_factory=list)  # ADD [CONSTRAINT name] FOREIGN KEY
    utf8mb4_collation: str = "utf8mb4_general_ci"  # the flavor's, for CHARACTER SET utf8mb4
    blob_keys_by_prefix: bool = False  # the flavor's (TableBuilder)

    @property
    def builder(self) -> TableBuilder:
        return TableBuilder(self.table, self.blob_keys_by_prefix)

    @property
    def charsets(self) -> ColumnDefaults:
        """Where an added or changed text column takes its collation: the table's default."""
        return ColumnDefaults(self.table.collation, self.utf8mb4_collation)


class AutoCounter:
    """The auto-increment counter while rows are copied: a row without a value (NULL or 0)
    takes the next one, a row with one moves the counter past it."""

    def __init__(self, table: Table, start: int, temporal_rules: TemporalRules | None = None) -> None:
        self.temporal_rules = temporal_rules  # the server's reading of fractional seconds
        column = table.auto_increment_column
        self.position = table.columns.index(column) if column is not None else None
        self.value = start

    def row(self, table: Table, values: list[object], number: int) -> tuple:
        position = self.position
        if position is not None and values[position] in (None, 0):
            values[position] = self.value
        row = tuple(_converted(column, value, number, self.temporal_rules) for column, value in zip(table.columns, values))
        if position is not None and row[position] is not None:
            self.value = max(self.value, int(row[position]) + 1)
        return row


def copy_rows(run: StatementRun, table: Table, alteration: Alteration) -> None:
    """Copy the rows into the new definition (errors leave the table as it was), then make
    the catalog's table the new one: the same object, which other statements hold."""
    new = alteration.table
    old_rows = [tuple(row[1:]) for row in run.storage.scan(table)] if table.engine.stores_rows else []
    positions = {column.key: index for index, column in enumerate(table.columns)}
    counter = AutoCounter(new, table.auto_increment if alteration.auto_increment is None else alteration.auto_increment, run.temporal_rules)
    rows = []
    for number, old in enumerate(old_rows, start=1):
        values = []
        for column in new.columns:
            source = alteration.origin.get(column.key)
            values.append(fill_value(column) if source is None else old[positions[source]])
        try:
            rows.append(counter.row(new, values, number))
        except SqlError as error:
            if not strict_sql_mode(run.session.variables):  # ALTER TABLE: strict under either mode, whatever the engine
                raise not_supported(f"ALTER TABLE converting a value that does not fit ({error.message}) outside strict mode") from None
            raise
    duplicate = first_duplicate(run.storage, new, rows)
    if duplicate is not None:
        raise run.rows.duplicate_error(new, *duplicate)
    check_stored_rows(run, new, [fk for fk in new.foreign_keys if fk not in table.foreign_keys], rows)
    run.storage.drop(table)
    storage_name = table.storage_name
    table.columns, table.keys, table.engine, table.foreign_keys, table.collation = new.columns, new.keys, new.engine, new.foreign_keys, new.collation
    run.storage.create(table, storage_name)
    for row_id, values in enumerate(rows, start=1):
        run.storage.insert(table, row_id, values)
    table.next_row_id = len(rows) + 1
    table.auto_increment = counter.value


def _converted(column: Column, value: object, number: int, temporal_rules: TemporalRules | None = None) -> object:
    """A copied value in its new column: too long text or a NULL in a column made NOT NULL
    is 1265 in ALTER TABLE (where INSERT says 1406 and 1048)."""
    if value is None and not column.nullable:
        raise SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column.name, number)
    if column.type.json_check and value is not None and not is_valid(str(value)):
        raise not_supported(f"ALTER TABLE making `{column.name}` MariaDB's JSON over a value that is not JSON (its CHECK fails, 4025)")
    try:
        return column.type.coerce(value, column.name, number, temporal_rules)
    except SqlError as error:
        if error.error is ErrorCode.ER_DATA_TOO_LONG:
            raise SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column.name, number) from None
        raise


def first_duplicate(storage: Storage, table: Table, rows: Sequence[tuple]) -> tuple[Key, tuple] | None:
    """The first row that repeats a unique key of an earlier one, with the key (NULL never does)."""
    keys = [(key, [table.column_index(name) for name in key.columns]) for key in table.unique_keys()]
    seen: dict[str, set[tuple]] = {key.name: set() for key, _ in keys}
    for row in rows:
        for key, positions in keys:
            values = [row[position] for position in positions]
            if any(value is None for value in values):
                continue
            compared = tuple(value if table.columns[position].type.compares_exactly else _comparable(storage, value) for value, position in zip(values, positions))
            if compared in seen[key.name]:
                return key, row
            seen[key.name].add(compared)
    return None


def _comparable(storage: Storage, value: object) -> object:
    """A key value as the collation compares it; text beyond ASCII as DuckDB's collation
    folds it (without case or accents)."""
    try:
        return equality_key(value)
    except Declined:
        [(folded,)] = storage.query("SELECT lower(strip_accents(?))", [value], reads_tables=False)
        return folded


def fill_value(column: Column) -> object:
    """What existing rows hold in a column ALTER TABLE adds."""
    if column.default_kind is DefaultKind.VALUE and column.default is not None:
        return column.default
    return None if column.nullable else column.type.implicit_default()
