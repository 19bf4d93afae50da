"""Unpacking row images onto the local tables: values converted, laid over defaults or found rows.

Columns match by position, as on real replicas: master column i is slave column i; master
columns beyond the slave's width are skipped, slave columns beyond the master's keep or
take their defaults.
"""

from __future__ import annotations

from server_sim.binlog.binary.columns import master_column_type
from server_sim.binlog.events import ColumnInfo
from server_sim.charsets import decode_text, encode_text
from server_sim.table import DefaultKind, Table
from server_sim.errors import Condition, ErrorCode, SqlError, note
from server_sim.flavor import Flavor
from server_sim.temporal_types import TemporalRules
from server_sim.json_type import text_of_document
from server_sim.types import ColumnType, TypeFamily

from .conversions import convert
from .find_row import FoundRow


def master_types(columns: list[ColumnInfo], slave: Table, database: str, table: str) -> list[ColumnType]:
    """The master's column types from its table map, what the event leaves open taken
    from the slave's own columns; 1677 for a shared column of a type the slave cannot take."""
    types = []
    for index, column in enumerate(columns):
        local = slave.columns[index].type if index < len(slave.columns) else None
        found = master_column_type(column.type_code or 0, column.metadata, column.unsigned, column.charset, local)
        if found is None:
            if local is not None:
                raise SqlError(ErrorCode.ER_SLAVE_CONVERSION_FAILED, index, database, table, column.type.lower(), local.sql.lower())
            found = ColumnType("LONGBLOB")  # a master column the slave does not have: never read
        types.append(found)
    return types


def master_value(value: object, master: ColumnType, slave: ColumnType) -> object:
    """A value as the binlog carried it, read as the master's column type: an integer
    whose signedness the event left open; text as the bytes it is, read in the slave
    column's charset, as a replica stores the bytes it is given (a charset the event
    names, MySQL's row metadata, does not convert them)."""
    if isinstance(value, int) and master.is_integer and master.unsigned and value < 0:
        return value + (1 << master.base.bits)
    if master.family is TypeFamily.JSON and value is not None:
        return text_of_document(value)  # the binary document, as the column's text
    if master.family is not TypeFamily.STRING or not isinstance(value, (str, bytes)):
        return value
    charset = slave.charset if slave.family is TypeFamily.STRING else master.charset
    if isinstance(value, str):
        if charset == master.charset:
            return value
        try:
            value = encode_text(value, master.charset)
        except UnicodeEncodeError:
            return value
    try:
        return decode_text(value, charset)
    except UnicodeDecodeError:
        return value.decode("latin-1")


def decode_image(values: list[object] | None, present: list[bool], master_types: list[ColumnType], slave: Table, temporal_rules: TemporalRules | None = None) -> dict[int, object]:
    """Slave column index -> value, for the image's columns that exist on the slave (its
    temporal values read by the slave's `temporal_rules`)."""
    if values is None:
        return {}
    image: dict[int, object] = {}
    stream = iter(values)
    for index, included in enumerate(present):
        if not included:
            continue
        encoded = next(stream)
        if index >= len(slave.columns):
            continue  # a master column the slave does not have
        master_type = master_types[index]
        column = slave.columns[index]
        image[index] = convert(master_value(encoded, master_type, column.type), master_type, column.type, column.name, temporal_rules)
    return image


def row_for_write(table: Table, after: dict[int, object], master_width: int, timestamp: object, flavor: Flavor, warnings: list[Condition]) -> list[object]:
    """A new slave row: the slave's defaults, with the after image laid on top (seed 003,
    DEFAULT VALUES R1). A column without a default gets its type's implicit default, with
    Warning 1364 where the flavor checks that column."""
    values: list[object] = []
    for index, column in enumerate(table.columns):
        if index in after:
            values.append(after[index])
        elif column.auto_increment:
            values.append(None)
        elif column.default_kind is DefaultKind.CURRENT_TIMESTAMP:
            values.append(timestamp)
        elif column.default_kind is DefaultKind.NONE:
            values.append(column.type.implicit_default())
            if index >= master_width or not flavor.missing_column_warning_beyond_master_only:
                warnings.append(note(ErrorCode.ER_NO_DEFAULT_FOR_FIELD, column.name, level="Warning"))
        else:
            values.append(column.default)
    return values


def row_for_update(found: FoundRow, after: dict[int, object]) -> list[object]:
    """The found row with the after image's columns replaced; the others keep slave values."""
    values = list(found.values)
    for index, value in after.items():
        values[index] = value
    return values


def missing_row_error(table: Table) -> SqlError:
    return SqlError(ErrorCode.ER_KEY_NOT_FOUND, table.name)
