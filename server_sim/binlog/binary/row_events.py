"""Table_map, the Rows events (v1 for MariaDB, v2 for MySQL) and the statement text
before them (MySQL's Rows_query, MariaDB's Annotate_rows).

A Table_map carries each column's type code, metadata and nullability; MySQL's default
binlog_row_metadata=MINIMAL adds SIGNEDNESS (one bit per numeric column, most
significant bit first) and DEFAULT_CHARSET (the most used collation of the character
columns, then (index, collation) for the others). A row image is a null bitmap over the
present columns, then their values; its unused bits are 1 on MariaDB (pack_row) and 0
on MySQL, whose full-image column bitmap is padded with 1s.
"""

from __future__ import annotations

from collections import Counter

from ..events import (
    ColumnInfo,
    Delete_rows_log_event,
    Log_event,
    Partial_update_rows_log_event,
    Row,
    Rows_log_event,
    Rows_query_log_event,
    Table_map_log_event,
    Update_rows_log_event,
    Write_rows_log_event,
    Annotate_rows_log_event,
)
from . import columns as c
from .codec import EventCodec, FormatContext, header_fields, raw, text
from .header import EventHeader
from .json_binary import decode_json_diff, encode_json_diff
from .packing import Cursor, EventDecodeError, bitmap, lenenc, u8, u16, u48
from .values import pack_value, unpack_value

class UnmappedTableError(EventDecodeError):
    """A row event whose table id no table map before it maps: its values cannot be read."""

    def __init__(self, type_name: str, table_id: int) -> None:
        self.type_name = type_name
        self.table_id = table_id
        super().__init__(f"{type_name} event for table id {table_id}, which no table map before it maps")


SIGNEDNESS, DEFAULT_CHARSET, COLUMN_CHARSET, COLUMN_NAME, SET_STR_VALUE, ENUM_STR_VALUE = 1, 2, 3, 4, 5, 6
_MAX_FSP = 6


def _metadata_bytes(type_code: int, metadata: int) -> bytes:
    size = c.METADATA_SIZE.get(type_code, 0)
    if size == 1:
        return u8(metadata)
    if size == 0:
        return b""
    if type_code == c.MYSQL_TYPE_VARCHAR or type_code == c.MYSQL_TYPE_VAR_STRING:
        return u16(metadata)
    if type_code == c.MYSQL_TYPE_BIT:
        return bytes((metadata & 0xFF, metadata >> 8))
    return bytes((metadata >> 8, metadata & 0xFF))


def _read_metadata(cursor: Cursor, type_code: int) -> int:
    size = c.METADATA_SIZE.get(type_code, 0)
    if size == 1:
        metadata = cursor.u8()
        if type_code in (c.MYSQL_TYPE_TIME2, c.MYSQL_TYPE_DATETIME2, c.MYSQL_TYPE_TIMESTAMP2) and metadata > _MAX_FSP:
            raise EventDecodeError(f"fractional second precision {metadata} is over 6")
        if type_code in (c.MYSQL_TYPE_BLOB, c.MYSQL_TYPE_GEOMETRY, c.MYSQL_TYPE_JSON) and not 1 <= metadata <= 4:
            raise EventDecodeError(f"a BLOB length prefix of {metadata} bytes")
        return metadata
    if size == 0:
        return 0
    if type_code in (c.MYSQL_TYPE_VARCHAR, c.MYSQL_TYPE_VAR_STRING):
        return cursor.u16()
    first, second = cursor.u8(), cursor.u8()
    if type_code == c.MYSQL_TYPE_BIT:
        return second << 8 | first
    return first << 8 | second


def _optional_metadata(columns: list[ColumnInfo]) -> bytes:
    """MySQL's MINIMAL optional metadata: SIGNEDNESS and DEFAULT_CHARSET."""
    out = b""
    signs = [bool(col.unsigned) for col in columns if col.type_code in c.NUMERIC_CODES]
    if signs:
        value = bytes(int("".join("1" if s else "0" for s in signs[i : i + 8]).ljust(8, "0"), 2) for i in range(0, len(signs), 8))
        out += u8(SIGNEDNESS) + lenenc(len(value)) + value
    charsets = [col.charset or 0 for col in columns if c.is_character(col.type_code or 0, col.metadata)]
    if charsets:
        counts = Counter(charsets)
        default = max(sorted(counts), key=lambda cs: counts[cs])
        value = lenenc(default) + b"".join(lenenc(i) + lenenc(cs) for i, cs in enumerate(charsets) if cs != default)
        out += u8(DEFAULT_CHARSET) + lenenc(len(value)) + value
    return out + _member_lists(columns)


def _member_lists(columns: list[ColumnInfo]) -> bytes:
    """FULL row metadata's SET_STR_VALUE and ENUM_STR_VALUE: per SET (then ENUM) column,
    the count of its members and each as a length-prefixed string; written for the
    columns whose table map carries their members."""
    out = b""
    for kind, real in ((SET_STR_VALUE, c.MYSQL_TYPE_SET), (ENUM_STR_VALUE, c.MYSQL_TYPE_ENUM)):
        lists = [col.members for col in columns if col.members is not None and _real_type(col) == real]
        if lists:
            value = b"".join(lenenc(len(members)) + b"".join(lenenc(len(raw(m))) + raw(m) for m in members) for members in lists)
            out += u8(kind) + lenenc(len(value)) + value
    return out


def _real_type(column: ColumnInfo) -> int | None:
    """A STRING column's real type (CHAR, ENUM or SET); None for other columns."""
    if column.type_code != c.MYSQL_TYPE_STRING:
        return None
    return c.string_real_type(column.metadata)[0]


def encode_table_map(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Table_map_log_event)
    db, table = raw(event.database), raw(event.table)
    columns = event.columns
    if any(col.type_code is None for col in columns):
        raise ValueError(f"table map of {event.database}.{event.table} has a column without a type code")
    metadata = b"".join(_metadata_bytes(col.type_code or 0, col.metadata) for col in columns)
    out = u48(event.table_id) + u16(event.map_flags) + u8(len(db)) + db + b"\0" + u8(len(table)) + table + b"\0"
    out += lenenc(len(columns)) + bytes(col.type_code or 0 for col in columns) + lenenc(len(metadata)) + metadata
    out += bitmap([col.nullable for col in columns])
    if event.other_metadata:
        return out + b"".join(u8(kind) + lenenc(len(value)) + value for kind, value in event.other_metadata)
    return out + (b"" if ctx.mariadb else _optional_metadata(columns))


def decode_table_map(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    table_id = cursor.u48() if ctx.post_header_length(19, 8) != 6 else cursor.u32()
    map_flags = cursor.u16()
    database = text(cursor.cstring(cursor.u8()))
    table = text(cursor.cstring(cursor.u8()))
    count = cursor.lenenc()
    if count > cursor.remaining:
        raise EventDecodeError(f"{count} columns in a table map of {cursor.remaining} bytes")
    types = cursor.take(count)
    meta = Cursor(cursor.take(cursor.lenenc()))
    metadata = [_read_metadata(meta, code) for code in types]
    if meta.remaining:
        raise EventDecodeError(f"{meta.remaining} metadata bytes left over after the last column")
    nullable = cursor.bitmap(count)
    tlvs: list[tuple[int, bytes]] = []
    while cursor.remaining:
        kind = cursor.u8()
        tlvs.append((kind, cursor.take(cursor.lenenc())))
    unsigned, charsets, names = _column_extras(tlvs, list(types), metadata)
    members = _members(tlvs, list(types), metadata)
    columns = [
        ColumnInfo(c.display_type(code, metadata[i], unsigned[i]), nullable[i], code, metadata[i], unsigned[i], charsets[i], names[i], members[i])
        for i, code in enumerate(types)
    ]
    return Table_map_log_event(
        **header_fields(header), table_id=table_id, database=database, table=table, columns=columns, map_flags=map_flags, other_metadata=tuple(tlvs)
    )


def _column_extras(tlvs: list[tuple[int, bytes]], types: list[int], metadata: list[int]) -> tuple[list, list, list]:
    """Signedness, charset and name per column, from the optional metadata (None where absent)."""
    n = len(types)
    unsigned: list[bool | None] = [None] * n
    charsets: list[int | None] = [None] * n
    names: list[str | None] = [None] * n
    numeric = [i for i, code in enumerate(types) if code in c.NUMERIC_CODES]
    character = [i for i, code in enumerate(types) if c.is_character(code, metadata[i])]
    for kind, value in tlvs:
        cursor = Cursor(value)
        if kind == SIGNEDNESS:
            flags = [bool(value[k >> 3] >> (7 - (k & 7)) & 1) if (k >> 3) < len(value) else False for k in range(len(numeric))]
            for index, flag in zip(numeric, flags):
                unsigned[index] = flag
        elif kind == DEFAULT_CHARSET:
            default = cursor.lenenc()
            for index in character:
                charsets[index] = default
            while cursor.remaining:
                position, charset = cursor.lenenc(), cursor.lenenc()
                if position >= len(character):
                    raise EventDecodeError(f"DEFAULT_CHARSET names character column {position} of {len(character)}")
                charsets[character[position]] = charset
        elif kind == COLUMN_CHARSET:
            for index in character:
                charsets[index] = cursor.lenenc()
        elif kind == COLUMN_NAME:
            for index in range(n):
                names[index] = text(cursor.take(cursor.lenenc()))
    return unsigned, charsets, names


def _members(tlvs: list[tuple[int, bytes]], types: list[int], metadata: list[int]) -> list[tuple[str, ...] | None]:
    """Each ENUM/SET column's members from SET_STR_VALUE / ENUM_STR_VALUE (None where absent)."""
    found: list[tuple[str, ...] | None] = [None] * len(types)
    for kind, value in tlvs:
        if kind not in (SET_STR_VALUE, ENUM_STR_VALUE):
            continue
        real = c.MYSQL_TYPE_SET if kind == SET_STR_VALUE else c.MYSQL_TYPE_ENUM
        cursor = Cursor(value)
        for index in [i for i, code in enumerate(types) if code == c.MYSQL_TYPE_STRING and c.string_real_type(metadata[i])[0] == real]:
            if not cursor.remaining:
                raise EventDecodeError(f"{'SET' if kind == SET_STR_VALUE else 'ENUM'}_STR_VALUE has no members for column {index + 1}")
            found[index] = tuple(text(cursor.take(cursor.lenenc())) for _ in range(cursor.lenenc()))
    return found


def _row_image(values: list[object], present: list[bool], columns: list[ColumnInfo], mariadb: bool, diffs: frozenset[int] = frozenset()) -> bytes:
    """`diffs`: the columns whose value is a partial JSON update's diffs."""
    indexes = [i for i, p in enumerate(present) if p]
    if len(values) != len(indexes):
        raise ValueError(f"a row image of {len(values)} values for {len(indexes)} present columns")
    out = bytearray(bitmap([v is None for v in values], pad=mariadb))
    for index, value in zip(indexes, values):
        if value is None:
            continue
        col = columns[index]
        if index in diffs:
            data = encode_json_diff(value)  # type: ignore[arg-type]
            out += len(data).to_bytes(col.metadata, "little") + data
        else:
            out += pack_value(value, col.type_code or 0, col.metadata, col.charset)
    return bytes(out)


def _read_image(cursor: Cursor, present: list[bool], columns: list[ColumnInfo], diffs: frozenset[int] = frozenset()) -> list[object]:
    indexes = [i for i, p in enumerate(present) if p]
    nulls = cursor.bitmap(len(indexes))
    values: list[object] = []
    for index, is_null in zip(indexes, nulls):
        if is_null:
            values.append(None)
        elif index >= len(columns):
            raise EventDecodeError(f"a row has column {index + 1}, its table map {len(columns)} columns")
        elif index in diffs:
            data = cursor.take(int.from_bytes(cursor.take(columns[index].metadata), "little"))
            try:
                values.append(decode_json_diff(data))
            except ValueError as error:
                raise EventDecodeError(f"partial JSON update of column {index + 1}: {error}") from None
        else:
            col = columns[index]
            values.append(unpack_value(cursor, col.type_code or 0, col.metadata, col.unsigned, col.charset))
    return values


PARTIAL_JSON_UPDATES = 1  # a row's value options: its JSON columns may hold diffs


def _json_columns(present: list[bool], columns: list[ColumnInfo]) -> list[int]:
    """The after image's JSON columns, which a partial-update bitmap covers in order."""
    return [i for i, p in enumerate(present) if p and i < len(columns) and columns[i].type_code == c.MYSQL_TYPE_JSON]


def _partial_diffs(event: Partial_update_rows_log_event, number: int, columns: list[ColumnInfo]) -> frozenset[int]:
    if number >= len(event.partial_columns):
        return frozenset()
    json_columns = _json_columns(event.columns_after, columns)
    return frozenset(column for column, flagged in zip(json_columns, event.partial_columns[number]) if flagged)


def _encode_value_options(event: Rows_log_event, number: int) -> bytes:
    if not isinstance(event, Partial_update_rows_log_event):
        return b""
    options = event.row_options[number] if number < len(event.row_options) else 0
    out = lenenc(options)
    if options & PARTIAL_JSON_UPDATES:
        out += bitmap(event.partial_columns[number] if number < len(event.partial_columns) else [])
    return out


def _read_value_options(cursor: Cursor, after: list[bool], columns: list[ColumnInfo], event_rows: tuple[list[int], list[list[bool]]]) -> frozenset[int]:
    """A partial update row's value options: the after image's columns that hold diffs."""
    options = cursor.lenenc()
    json_columns = _json_columns(after, columns)
    flags = cursor.bitmap(len(json_columns)) if options & PARTIAL_JSON_UPDATES else []
    event_rows[0].append(options)
    event_rows[1].append(flags)
    return frozenset(column for column, flagged in zip(json_columns, flags) if flagged)


def encode_rows(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Rows_log_event)
    table_map = ctx.table_maps.get(event.table_id)
    if table_map is None:
        raise ValueError(f"row event for table id {event.table_id} without its table map")
    out = u48(event.table_id) + u16(event.rows_flags)
    if event.version == 2:
        out += u16(2 + len(event.extra_data)) + event.extra_data
    pad = not ctx.mariadb and all(event.columns_before or event.columns_after)
    out += lenenc(event.width)
    for bits in _bitmaps(event):
        out += bitmap(bits, pad=pad and all(bits))
    partial = isinstance(event, Partial_update_rows_log_event)
    for number, row in enumerate(event.rows):
        if row.before is not None:
            out += _row_image(row.before, event.columns_before, table_map.columns, ctx.mariadb)
        out += _encode_value_options(event, number)
        if row.after is not None:
            diffs = _partial_diffs(event, number, table_map.columns) if partial else frozenset()  # type: ignore[arg-type]
            out += _row_image(row.after, event.columns_after, table_map.columns, ctx.mariadb, diffs)
    return out


def _bitmaps(event: Rows_log_event) -> list[list[bool]]:
    if isinstance(event, Update_rows_log_event):
        return [event.columns_before, event.columns_after]
    return [event.columns_after if isinstance(event, Write_rows_log_event) else event.columns_before]


_ROWS_CLASSES = {
    23: (Write_rows_log_event, 1), 24: (Update_rows_log_event, 1), 25: (Delete_rows_log_event, 1),
    30: (Write_rows_log_event, 2), 31: (Update_rows_log_event, 2), 32: (Delete_rows_log_event, 2),
    39: (Partial_update_rows_log_event, 2),
}


def decode_rows(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cls, version = _ROWS_CLASSES[header.type_code]
    cursor = Cursor(body)
    table_id = cursor.u48() if ctx.post_header_length(header.type_code, 8) != 6 else cursor.u32()
    flags = cursor.u16()
    extra = cursor.take(cursor.u16() - 2) if version == 2 else b""
    width = cursor.lenenc()
    if width > 8 * cursor.remaining:
        raise EventDecodeError(f"a row event of {width} columns in {cursor.remaining} bytes")
    table_map = ctx.table_maps.get(table_id)
    if table_map is None:
        raise UnmappedTableError(cls.type_name, table_id)
    before = cursor.bitmap(width) if cls is not Write_rows_log_event else []
    after = cursor.bitmap(width) if cls is not Delete_rows_log_event else []
    rows: list[Row] = []
    options: tuple[list[int], list[list[bool]]] = ([], [])
    while cursor.remaining:
        row = Row()
        if cls is not Write_rows_log_event:
            row.before = _read_image(cursor, before, table_map.columns)
        diffs = _read_value_options(cursor, after, table_map.columns, options) if cls is Partial_update_rows_log_event else frozenset()
        if cls is not Delete_rows_log_event:
            row.after = _read_image(cursor, after, table_map.columns, diffs)
        rows.append(row)
    event = cls(
        **header_fields(header), version=version, table_id=table_id, rows_flags=flags, width=width,
        columns_before=before, columns_after=after, rows=rows, extra_data=extra,
    )
    if isinstance(event, Partial_update_rows_log_event):
        event.row_options, event.partial_columns = options
    return event


def encode_rows_query(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Rows_query_log_event)
    query = raw(event.query)
    return u8(min(len(query), 255)) + query


def decode_rows_query(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    cursor.u8()  # a length byte readers ignore: the text runs to the end
    return Rows_query_log_event(**header_fields(header), query=text(cursor.rest()))


def encode_annotate_rows(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Annotate_rows_log_event)
    return raw(event.query)


def decode_annotate_rows(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    return Annotate_rows_log_event(**header_fields(header), query=text(body))


CODECS: dict[int, EventCodec] = {
    19: EventCodec(encode_table_map, decode_table_map),
    29: EventCodec(encode_rows_query, decode_rows_query),
    160: EventCodec(encode_annotate_rows, decode_annotate_rows),
    **{code: EventCodec(encode_rows, decode_rows) for code in _ROWS_CLASSES},
}
