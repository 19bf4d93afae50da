"""A row event's rows as mysqlbinlog -v prints them: `### INSERT INTO ...` pseudo-SQL, each
value as the client's log_event_print_value writes it, and with -vv a comment naming the
column's type the client's way (SHORTINT, LONGINT, VARSTRING(n) ...), from the table map's
type code and metadata alone."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ..bit_type import bit_literal_text
from .binary import columns as c
from .binary.json_binary import JsonDiff, json_diff_text, json_text
from .events import ColumnInfo, Rows_log_event, Table_map_log_event, Update_rows_log_event

TYPED = 2  # -vv: values with their columns' types

_INTEGER_NAMES = {c.MYSQL_TYPE_TINY: "TINYINT", c.MYSQL_TYPE_SHORT: "SHORTINT", c.MYSQL_TYPE_INT24: "MEDIUMINT", c.MYSQL_TYPE_LONG: "INT", c.MYSQL_TYPE_LONGLONG: "LONGINT"}
_BLOB_NAMES = {1: "TINYBLOB/TINYTEXT", 2: "BLOB/TEXT", 3: "MEDIUMBLOB/MEDIUMTEXT", 4: "LONGBLOB/LONGTEXT"}
_PLAIN_NAMES = {
    c.MYSQL_TYPE_FLOAT: "FLOAT", c.MYSQL_TYPE_DOUBLE: "DOUBLE", c.MYSQL_TYPE_TIMESTAMP: "TIMESTAMP", c.MYSQL_TYPE_DATETIME: "DATETIME",
    c.MYSQL_TYPE_TIME: "TIME", c.MYSQL_TYPE_NEWDATE: "DATE", c.MYSQL_TYPE_DATE: "DATE", c.MYSQL_TYPE_YEAR: "YEAR",
    c.MYSQL_TYPE_JSON: "JSON", c.MYSQL_TYPE_GEOMETRY: "GEOMETRY",
}
_FRACTIONAL = {c.MYSQL_TYPE_TIMESTAMP2: "TIMESTAMP", c.MYSQL_TYPE_DATETIME2: "DATETIME", c.MYSQL_TYPE_TIME2: "TIME"}


def type_text(type_code: int | None, metadata: int) -> str:
    """The column's type as the -vv comment names it (log_event_print_value's typestr)."""
    code = type_code if type_code is not None else -1
    if code == c.MYSQL_TYPE_STRING:
        real, length = c.string_real_type(metadata)
        if real == c.MYSQL_TYPE_ENUM:
            return "ENUM(1 byte)" if length == 1 else "ENUM(2 bytes)"
        if real == c.MYSQL_TYPE_SET:
            return f"SET({length} bytes)"
        return f"STRING({length})"
    if code in _INTEGER_NAMES:
        return _INTEGER_NAMES[code]
    if code == c.MYSQL_TYPE_NEWDECIMAL:
        return f"DECIMAL({metadata >> 8},{metadata & 0xFF})"
    if code in (c.MYSQL_TYPE_VARCHAR, c.MYSQL_TYPE_VAR_STRING):
        return f"VARSTRING({metadata})"
    if code == c.MYSQL_TYPE_BLOB:
        return _BLOB_NAMES.get(metadata, "BLOB")
    if code in _FRACTIONAL:
        return f"{_FRACTIONAL[code]}({metadata})"
    if code == c.MYSQL_TYPE_BIT:
        return f"BIT({(metadata >> 8) * 8 + (metadata & 0xFF)})"
    return _PLAIN_NAMES.get(code, f"TYPE({code})")


def _quoted(value: str | bytes) -> str:
    """A string as the client quotes it (my_b_write_quoted): bytes below 0x20 as \\xNN,
    every other byte as it is, quotes and backslashes included (the client's escapes for
    them sit behind its `> 0x1F` test and never run); shown as UTF-8."""
    data = value.encode() if isinstance(value, str) else value
    out = bytearray(b"'")
    for byte in data:
        out += f"\\x{byte:02x}".encode() if byte < 0x20 else bytes((byte,))
    return out.decode("utf-8", "replace") + "'"


def _fraction(microsecond: int, digits: int) -> str:
    return f".{microsecond:06d}"[: digits + 1] if digits else ""


def _temporal_text(value: dt.date | dt.timedelta, code: int | None, metadata: int) -> str:
    if isinstance(value, dt.timedelta):
        sign, value = ("-", -value) if value < dt.timedelta(0) else ("", value)
        seconds = value.days * 86400 + value.seconds
        return f"'{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{_fraction(value.microseconds, metadata)}'"
    if isinstance(value, dt.datetime):
        if code == c.MYSQL_TYPE_TIMESTAMP2:
            if value == dt.datetime(1, 1, 1):
                return "0" + _fraction(0, metadata)
            return str(int(value.replace(tzinfo=dt.timezone.utc).timestamp())) + _fraction(value.microsecond, metadata)
        if value == dt.datetime(1, 1, 1):
            return "'0000-00-00 00:00:00" + _fraction(0, metadata) + "'"
        return f"'{value:%Y-%m-%d %H:%M:%S}{_fraction(value.microsecond, metadata if code == c.MYSQL_TYPE_DATETIME2 else 0)}'"
    return f"'{value:%Y:%m:%d}'" if value != dt.date(1, 1, 1) else "'0000:00:00'"


def _set_bits(value: int, size: int) -> str:
    """A SET's bitmask as the client prints it (my_b_write_bit): its bytes in the order
    the row holds them (little-endian), each most significant bit first."""
    return "b'" + "".join(f"{byte:08b}" for byte in value.to_bytes(size, "little")) + "'"


def value_text(value: object, column: ColumnInfo | None) -> str:
    """A value as mysqlbinlog -v prints it: strings quoted, dates with colons, an integer
    whose top bit is set followed by its unsigned reading."""
    if value is None:
        return "NULL"
    code = column.type_code if column else None
    metadata = column.metadata if column else 0
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int) and code == c.MYSQL_TYPE_BIT:
        return bit_literal_text(value, (metadata >> 8) * 8 + (metadata & 0xFF))
    if isinstance(value, int) and code in c.INTEGER_CODES:
        bits = c.INTEGER_CODES[code]
        signed = value - (1 << bits) if value >= 1 << (bits - 1) else value
        return f"{signed} ({signed + (1 << bits)})" if signed < 0 else str(signed)
    if isinstance(value, int) and code == c.MYSQL_TYPE_STRING and c.string_real_type(metadata)[0] == c.MYSQL_TYPE_SET:
        return _set_bits(value, metadata & 0xFF)
    if isinstance(value, (dt.date, dt.timedelta)):
        return _temporal_text(value, code, metadata)
    if code == c.MYSQL_TYPE_YEAR and isinstance(value, int):
        return f"{value or 1900:04d}"  # the byte plus 1900: YEAR 0000 (byte 0) prints as 1900
    if isinstance(value, (str, bytes)):
        return _quoted(value)
    if isinstance(value, float):
        return f"{value:<20g}" if code == c.MYSQL_TYPE_FLOAT else f"{value:.20g}"
    if isinstance(value, (Decimal, int)):
        return str(value)
    if code == c.MYSQL_TYPE_JSON:
        return _quoted(json_text(value))
    return _quoted(str(value))


def _image(label: str, values: list[object], present: list[bool], table_map: Table_map_log_event | None, verbosity: int) -> list[str]:
    lines = [f"### {label}"]
    columns = iter(values)
    for index, included in enumerate(present, start=1):
        if not included:
            continue
        value = next(columns, None)
        info = table_map.columns[index - 1] if table_map and index - 1 < len(table_map.columns) else None
        comment = ""
        if verbosity >= TYPED:
            type_name, meta, nullable = (type_text(info.type_code, info.metadata), info.metadata, int(info.nullable)) if info else ("?", 0, 1)
            comment = f" /* {type_name} meta={meta} nullable={nullable} is_null={int(value is None)} */"
        if isinstance(value, list) and value and all(isinstance(item, JsonDiff) for item in value):
            shown = json_diff_text(f"@{index}", value)  # Update_rows_partial: the diffs to the old document
        else:
            shown = value_text(value, info)
        lines.append(f"###   @{index}={shown}{comment}")
    return lines


def row_lines(event: Rows_log_event, table_map: Table_map_log_event | None, verbosity: int) -> list[str]:
    """A row event's rows as `### INSERT INTO ...` pseudo-SQL, as mysqlbinlog -v prints them."""
    lines: list[str] = []
    target = f"`{table_map.database}`.`{table_map.table}`" if table_map else f"table id {event.table_id}"
    for row in event.rows:
        if isinstance(event, Update_rows_log_event):
            lines.append(f"### UPDATE {target}")
            lines.extend(_image("WHERE", row.before or [], event.columns_before, table_map, verbosity))
            lines.extend(_image("SET", row.after or [], event.columns_after, table_map, verbosity))
        elif row.after is not None:
            lines.append(f"### INSERT INTO {target}")
            lines.extend(_image("SET", row.after, event.columns_after, table_map, verbosity))
        else:
            lines.append(f"### DELETE FROM {target}")
            lines.extend(_image("WHERE", row.before or [], event.columns_before, table_map, verbosity))
    return lines
