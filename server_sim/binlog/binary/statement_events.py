"""Query, Intvar, Rand, User_var and Xid bodies, and Rotate and Stop.

Query's status variables go in the flavor's order (code order, with the catalog, 6,
right after sql_mode); those the event fields do not model are kept raw and written back
in place, so an event from a real server is written back byte for byte. A reader stops
at a status code it does not know (its length is unknown): the rest is kept raw too.
"""

from __future__ import annotations

import struct
from decimal import Decimal
from functools import lru_cache

from ..control_events import Rotate_log_event, Stop_log_event
from ..events import (
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    Ignorable_log_event,
    Intvar_log_event,
    Log_event,
    Query_log_event,
    Rand_log_event,
    Unknown_log_event,
    User_var_log_event,
    Xid_log_event,
)
from .codec import EventCodec, FormatContext, header_fields, raw, text
from .format_description import default_charset
from .header import EventHeader
from .packing import Cursor, EventDecodeError, u8, u16, u32, u64
from .sql_mode import sql_mode_bits, sql_mode_text
from .values import decimal_size, pack_decimal, unpack_decimal

Q_FLAGS2, Q_SQL_MODE, Q_CATALOG, Q_AUTO_INCREMENT, Q_CHARSET, Q_TIME_ZONE, Q_CATALOG_NZ = 0, 1, 2, 3, 4, 5, 6
_ORDER = {code: index for index, code in enumerate((0, 1, 6, 3, 4, 5))}
# Status variables of a fixed size; 2, 5, 6, 11, 12 and 130 have their own layouts.
_FIXED_STATUS = {7: 2, 8: 2, 9: 8, 10: 4, 13: 3, 14: 8, 16: 1, 17: 8, 18: 2, 19: 1, 20: 1, 128: 3, 129: 8}
_QUERY_POST_HEADER = 13
_QUERY_HEAD = struct.Struct("<IIBHH")
_INTVAR_KINDS = {1: INTVAR_LAST_INSERT_ID, 2: INTVAR_INSERT_ID}
_USER_VAR_TYPES = {0: "STRING", 1: "REAL", 2: "INT", 4: "DECIMAL"}
_USER_VAR_CODES = {name: code for code, name in _USER_VAR_TYPES.items()}


def _order(code: int) -> tuple[int, int]:
    return (0, _ORDER[code]) if code in _ORDER else (1, code)


def _status_vars(event: Query_log_event, ctx: FormatContext) -> bytes:
    return _status_block(
        event.flags2,
        event.sql_mode,
        event.charset,
        event.auto_increment_increment,
        event.auto_increment_offset,
        event.time_zone,
        event.other_status,
        ctx.flavor,
    )


# A session logs statement after statement with the same settings: their status block is
# worked out once.
@lru_cache(maxsize=1024)
def _status_block(
    flags2: int,
    sql_mode: str,
    charset: tuple[int, int, int] | None,
    increment: int,
    offset: int,
    time_zone: str,
    other_status: tuple[tuple[int, bytes], ...],
    flavor: str,
) -> bytes:
    status: list[tuple[int, bytes]] = [
        (Q_FLAGS2, u32(flags2)),
        (Q_SQL_MODE, u64(sql_mode_bits(sql_mode, flavor))),
        (Q_CATALOG_NZ, b"\x03std"),
        (Q_CHARSET, b"".join(u16(part) for part in charset or default_charset(flavor))),
    ]
    if (increment, offset) != (1, 1):
        status.append((Q_AUTO_INCREMENT, u16(increment) + u16(offset)))
    if time_zone != "SYSTEM":
        zone = raw(time_zone)
        status.append((Q_TIME_ZONE, u8(len(zone)) + zone))
    status.extend(other_status)
    status.sort(key=lambda item: _order(item[0]))
    return b"".join(u8(code) + value for code, value in status)


def encode_query(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Query_log_event)
    status = _status_vars(event, ctx)
    db = raw(event.db)
    head = u32(event.thread_id) + u32(event.exec_time) + u8(len(db)) + u16(event.error_code) + u16(len(status))
    return head + status + db + b"\0" + raw(event.query)


def decode_query(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    thread_id, exec_time, db_len, error_code, status_len = cursor.unpack(_QUERY_HEAD)
    cursor.take(ctx.post_header_length(2, _QUERY_POST_HEADER) - _QUERY_POST_HEADER)
    fields = _status_fields(cursor.take(status_len), ctx.flavor)
    db = text(cursor.cstring(db_len))
    return Query_log_event(
        **header_fields(header), thread_id=thread_id, exec_time=exec_time, db=db, error_code=error_code, query=text(cursor.rest()), **fields
    )


@lru_cache(maxsize=1024)
def _status_fields(block: bytes, flavor: str) -> dict[str, object]:
    """The fields of a status block (read once per distinct block: the values are immutable,
    and the caller only unpacks the dict)."""
    return _read_status(Cursor(block), flavor)


def _read_status(cursor: Cursor, flavor: str) -> dict[str, object]:
    fields: dict[str, object] = {}
    other: list[tuple[int, bytes]] = []
    while cursor.remaining:
        code = cursor.u8()
        if code == Q_FLAGS2:
            fields["flags2"] = cursor.u32()
        elif code == Q_SQL_MODE:
            fields["sql_mode"] = sql_mode_text(cursor.u64(), flavor)
        elif code == Q_CATALOG_NZ:
            if cursor.take(cursor.u8()) != b"std":
                raise EventDecodeError("a catalog other than 'std'")
        elif code == Q_AUTO_INCREMENT:
            increment, offset = cursor.u16(), cursor.u16()
            if not increment or not offset:
                raise EventDecodeError(f"auto_increment_increment {increment}, offset {offset}: both must be at least 1")
            fields["auto_increment_increment"], fields["auto_increment_offset"] = increment, offset
        elif code == Q_CHARSET:
            fields["charset"] = (cursor.u16(), cursor.u16(), cursor.u16())
        elif code == Q_TIME_ZONE:
            zone = cursor.take(cursor.u8())
            if zone == b"SYSTEM":  # written out although it is the default: kept as read
                other.append((code, b"\x06SYSTEM"))
            else:
                fields["time_zone"] = text(zone)
        else:
            other.append((code, _raw_status(code, cursor)))
    fields["other_status"] = tuple(other)
    return fields


def _raw_status(code: int, cursor: Cursor) -> bytes:
    """The bytes of a status variable the event fields do not model (all that is left for an unknown code)."""
    start = cursor.offset
    if code in _FIXED_STATUS:
        cursor.take(_FIXED_STATUS[code])
    elif code == Q_CATALOG:
        cursor.take(cursor.u8() + 1)
    elif code == 11:  # invoker: user, then host
        cursor.take(cursor.u8())
        cursor.take(cursor.u8())
    elif code == 12:  # updated db names: a count (254: too many to list), then NUL-terminated names
        count = cursor.u8()
        for _ in range(count if count != 254 else 0):
            while cursor.u8():
                pass
    elif code == 130:  # MariaDB's GTID flags3, with a sequence number for ALTER's later phases
        if cursor.u8() & 0x0C:
            cursor.take(8)
    else:
        cursor.rest()
    return cursor.data[start : cursor.offset]


def encode_intvar(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Intvar_log_event)
    return u8(1 if event.kind == INTVAR_LAST_INSERT_ID else 2) + u64(event.value)


def decode_intvar(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    kind = _INTVAR_KINDS.get(cursor.u8())
    if kind is None:
        raise EventDecodeError(f"Intvar type {body[0]} is neither LAST_INSERT_ID (1) nor INSERT_ID (2)")
    return Intvar_log_event(**header_fields(header), kind=kind, value=cursor.u64())


def encode_rand(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Rand_log_event)
    return u64(event.seed1) + u64(event.seed2)


def decode_rand(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    return Rand_log_event(**header_fields(header), seed1=cursor.u64(), seed2=cursor.u64())


def encode_user_var(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, User_var_log_event)
    name = raw(event.name)
    head = u32(len(name)) + name
    if event.value is None:
        return head + b"\1"
    value = _user_var_bytes(event)
    charset = event.value_charset or default_charset(ctx.flavor)[0]
    flags = event.value_flags
    if flags is None and (not ctx.mariadb or event.value_type == "INT"):
        flags = 1 if event.value_type == "INT" and isinstance(event.value, int) and event.value >= 1 << 63 else 0
    tail = b"" if flags is None else u8(flags)
    return head + b"\0" + u8(_USER_VAR_CODES[event.value_type]) + u32(charset) + u32(len(value)) + value + tail


def _user_var_bytes(event: User_var_log_event) -> bytes:
    value = event.value
    if event.value_type == "REAL":
        return struct.pack("<d", float(value))
    if event.value_type == "INT":
        return u64(int(value))
    if event.value_type == "DECIMAL":
        decimal = Decimal(str(value))
        digits = decimal.as_tuple()
        scale = max(0, -int(digits.exponent))
        precision = max(len(digits.digits), scale + 1)
        return u8(precision) + u8(scale) + pack_decimal(decimal, precision, scale)
    return raw(str(value))


def decode_user_var(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    name = text(cursor.take(cursor.u32()))
    fields = header_fields(header)
    if cursor.u8():
        return User_var_log_event(**fields, name=name, value=None)
    code = cursor.u8()
    kind = _USER_VAR_TYPES.get(code)
    if kind is None:
        raise EventDecodeError(f"User_var type {code} is not STRING (0), REAL (1), INT (2) or DECIMAL (4)")
    charset = cursor.u32()
    data = cursor.take(cursor.u32())
    flags = cursor.u8() if cursor.remaining else None
    value = _user_var_value(data, kind, flags)
    return User_var_log_event(**fields, name=name, value=value, value_type=kind, value_charset=charset, value_flags=flags)


def _user_var_value(data: bytes, kind: str, flags: int | None) -> object:
    if kind == "REAL":
        if len(data) != 8:
            raise EventDecodeError(f"a REAL user variable of {len(data)} bytes")
        return struct.unpack("<d", data)[0]
    if kind == "INT":
        if len(data) != 8:
            raise EventDecodeError(f"an INT user variable of {len(data)} bytes")
        return int.from_bytes(data, "little", signed=not (flags or 0) & 1)
    if kind == "DECIMAL":
        cursor = Cursor(data)
        precision, scale = cursor.u8(), cursor.u8()
        if not 0 < precision <= 65 or scale > precision or cursor.remaining != decimal_size(precision, scale):
            raise EventDecodeError(f"a DECIMAL user variable of precision {precision}, scale {scale} in {len(data)} bytes")
        return unpack_decimal(cursor.rest(), precision, scale)
    return text(data)


def encode_xid(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Xid_log_event)
    return u64(event.xid)


def decode_xid(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    return Xid_log_event(**header_fields(header), xid=Cursor(body).u64())


def encode_rotate(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Rotate_log_event)
    return u64(event.position) + raw(event.new_log_ident)


def decode_rotate(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    cursor = Cursor(body)
    return Rotate_log_event(**header_fields(header), position=cursor.u64(), new_log_ident=text(cursor.rest()))


def decode_stop(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    return Stop_log_event(**header_fields(header))


def decode_ignorable(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    if body:
        return Unknown_log_event(**header_fields(header), unknown_type_code=header.type_code, raw=body)
    return Ignorable_log_event(**header_fields(header))


CODECS: dict[int, EventCodec] = {
    2: EventCodec(encode_query, decode_query),
    3: EventCodec(lambda event, ctx: b"", decode_stop),
    4: EventCodec(encode_rotate, decode_rotate),
    5: EventCodec(encode_intvar, decode_intvar),
    13: EventCodec(encode_rand, decode_rand),
    14: EventCodec(encode_user_var, decode_user_var),
    16: EventCodec(encode_xid, decode_xid),
    28: EventCodec(lambda event, ctx: b"", decode_ignorable),
}
