"""Row values packed as the servers' Field::pack writes them, and read back.

Which layout a value has comes from its Table_map column: the type code and metadata
(and, for how the bytes read back, signedness and charset when the event carries them).
Values are Python values: int, Decimal, float, str (text of a known charset), bytes
(binary strings, or text whose charset the event does not say), date, datetime,
timedelta (TIME). MySQL's zero date and zero datetime are read as date(1, 1, 1) and
datetime(1, 1, 1), the catalog's stand-ins for them, and written back as zeros.
"""

from __future__ import annotations

import calendar
import datetime as dt
import struct
from collections.abc import Callable
from decimal import Decimal

from server_sim.charsets import COLLATION_NAMES, COLLATIONS, decode_text, encode_text

from . import columns as c
from .json_binary import decode_json_binary, encode_json_binary
from .packing import Cursor, EventDecodeError

_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
_ZERO_DATE = dt.date(1, 1, 1)
_ZERO_DATETIME = dt.datetime(1, 1, 1)
_FIXED = {
    c.MYSQL_TYPE_TINY: 1, c.MYSQL_TYPE_SHORT: 2, c.MYSQL_TYPE_INT24: 3, c.MYSQL_TYPE_LONG: 4, c.MYSQL_TYPE_LONGLONG: 8,
}
_UTF8_CHARSETS = frozenset({33, 45, 46, 76, 83, 255, *range(192, 248), *range(256, 324)})
_LATIN1_CHARSETS = frozenset({5, 8, 15, 31, 47, 48, 49, 94})


class UnsupportedValueError(EventDecodeError):
    """A column type whose values this reader cannot decode yet."""


def decimal_size(precision: int, scale: int) -> int:
    integer = precision - scale
    return integer // 9 * 4 + _DIG2BYTES[integer % 9] + scale // 9 * 4 + _DIG2BYTES[scale % 9]


def pack_decimal(value: Decimal, precision: int, scale: int) -> bytes:
    """decimal2bin: 9-digit groups as 4 bytes BE, partial groups in fewer bytes, the sign
    in the first bit, a negative value with every byte inverted."""
    negative = value.is_signed() and value != 0
    digits = f"{value.copy_abs():.{scale}f}"
    whole, _, fraction = digits.partition(".")
    integer = precision - scale
    whole = whole.lstrip("0").rjust(integer, "0")[-integer:] if integer else ""
    out = bytearray()
    lead = integer % 9
    if lead:
        out += int(whole[:lead]).to_bytes(_DIG2BYTES[lead], "big")
    for start in range(lead, integer, 9):
        out += int(whole[start : start + 9]).to_bytes(4, "big")
    for start in range(0, scale - scale % 9, 9):
        out += int(fraction[start : start + 9]).to_bytes(4, "big")
    if scale % 9:
        out += int(fraction[scale - scale % 9 :]).to_bytes(_DIG2BYTES[scale % 9], "big")
    if negative:
        out = bytearray(b ^ 0xFF for b in out)
    out[0] ^= 0x80
    return bytes(out)


def unpack_decimal(data: bytes, precision: int, scale: int) -> Decimal:
    negative = not data[0] & 0x80
    raw = bytearray(data)
    raw[0] ^= 0x80
    if negative:
        raw = bytearray(b ^ 0xFF for b in raw)
    integer = precision - scale
    offset, whole, fraction = 0, "", ""
    for size, width, target in _decimal_groups(integer, scale):
        number = int.from_bytes(raw[offset : offset + size], "big")
        offset += size
        if number >= 10**width:
            raise EventDecodeError(f"DECIMAL({precision},{scale}) group {number} has more than {width} digits")
        if target == "whole":
            whole += str(number).rjust(width, "0")
        else:
            fraction += str(number).rjust(width, "0")
    text = f"{'-' if negative else ''}{whole or '0'}" + (f".{fraction}" if scale else "")
    return Decimal(text)


def _decimal_groups(integer: int, scale: int) -> list[tuple[int, int, str]]:
    groups = [(_DIG2BYTES[integer % 9], integer % 9, "whole")] if integer % 9 else []
    groups += [(4, 9, "whole")] * (integer // 9) + [(4, 9, "fraction")] * (scale // 9)
    if scale % 9:
        groups.append((_DIG2BYTES[scale % 9], scale % 9, "fraction"))
    return groups


def _fraction_bytes(fsp: int) -> int:
    return (fsp + 1) // 2


def _pack_fraction(microsecond: int, fsp: int) -> bytes:
    size = _fraction_bytes(fsp)
    return (microsecond // 100 ** (3 - size)).to_bytes(size, "big") if size else b""


def _unpack_fraction(cursor: Cursor, fsp: int) -> int:
    size = _fraction_bytes(fsp)
    return int.from_bytes(cursor.take(size), "big") * 100 ** (3 - size) if size else 0


def pack_datetime2(value: dt.datetime, fsp: int) -> bytes:
    if value == _ZERO_DATETIME:
        ymd = hms = 0
    else:
        ymd = (value.year * 13 + value.month) << 5 | value.day
        hms = value.hour << 12 | value.minute << 6 | value.second
    return ((ymd << 17 | hms) + 0x8000000000).to_bytes(5, "big") + _pack_fraction(value.microsecond, fsp)


def unpack_datetime2(cursor: Cursor, fsp: int) -> dt.datetime | str:
    packed = int.from_bytes(cursor.take(5), "big") - 0x8000000000
    micro = _unpack_fraction(cursor, fsp)
    ymd, hms = packed >> 17, packed & 0x1FFFF
    year_month, day = ymd >> 5, ymd & 0x1F
    year, month = divmod(year_month, 13)
    hour, minute, second = hms >> 12, hms >> 6 & 0x3F, hms & 0x3F
    if packed == 0 and micro == 0:
        return _ZERO_DATETIME
    try:
        return dt.datetime(year, month, day, hour, minute, second, micro)
    except ValueError:
        return f"{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}" + (f".{micro:06}"[: fsp + 1] if fsp else "")


def pack_time2(value: dt.timedelta, fsp: int) -> bytes:
    micro_total = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    sign = -1 if micro_total < 0 else 1
    seconds, micro = divmod(abs(micro_total), 1_000_000)
    hours, rest = divmod(seconds, 3600)
    packed = sign * (((hours << 12 | (rest // 60) << 6 | rest % 60) << 24) + micro)
    if _fraction_bytes(fsp) == 3:
        return (packed + 0x800000000000).to_bytes(6, "big")
    intpart = packed >> 24
    fraction = packed - (intpart << 24) if packed >= 0 else -((-packed) % (1 << 24))
    size = _fraction_bytes(fsp)
    head = (intpart + 0x800000).to_bytes(3, "big")
    if not size:
        return head
    unit = 100 ** (3 - size)
    scaled = fraction // unit if fraction >= 0 else -(-fraction // unit)
    return head + (scaled & (0xFF if size == 1 else 0xFFFF)).to_bytes(size, "big")


def unpack_time2(cursor: Cursor, fsp: int) -> dt.timedelta:
    size = _fraction_bytes(fsp)
    if size == 3:
        packed = int.from_bytes(cursor.take(6), "big") - 0x800000000000
    else:
        intpart = int.from_bytes(cursor.take(3), "big") - 0x800000
        fraction = int.from_bytes(cursor.take(size), "big") if size else 0
        if intpart < 0 and fraction:
            intpart += 1
            fraction -= 0x100 if size == 1 else 0x10000
        packed = (intpart << 24) + fraction * 100 ** (3 - size)
    sign = -1 if packed < 0 else 1
    hms, micro = divmod(abs(packed), 1 << 24)
    seconds = (hms >> 12 & 0x3FF) * 3600 + (hms >> 6 & 0x3F) * 60 + (hms & 0x3F)
    return sign * dt.timedelta(seconds=seconds, microseconds=micro)


def pack_value(value: object, type_code: int, metadata: int, charset: int | None = None) -> bytes:
    """Field::pack of one non-NULL value; text in the column's `charset` (a collation id)."""
    if isinstance(value, str) and charset in COLLATION_NAMES and c.is_character(type_code, metadata):
        return _pack_text(value, type_code, metadata, COLLATIONS[COLLATION_NAMES[charset]].charset)
    if type_code in _FIXED:
        size = _FIXED[type_code]
        return (int(value) & ((1 << size * 8) - 1)).to_bytes(size, "little")
    packer = _PACKERS.get(type_code)
    if packer is None:
        raise ValueError(f"cannot write values of column type {type_code}")
    return packer(value, metadata)


# Bytes of the length prefix of a text value, by type code, from its metadata.
_TEXT_PREFIXES: dict[int, Callable[[int], int]] = {
    c.MYSQL_TYPE_VARCHAR: lambda m: 1 if m < 256 else 2,
    c.MYSQL_TYPE_VAR_STRING: lambda m: 1 if m < 256 else 2,
    c.MYSQL_TYPE_STRING: lambda m: 1 if c.string_real_type(m)[1] < 256 else 2,
    c.MYSQL_TYPE_BLOB: lambda m: m,
}


def _pack_text(value: str, type_code: int, metadata: int, charset: str) -> bytes:
    """A text value as its column's charset stores it, after its length (1 or 2 bytes for
    CHAR and VARCHAR: 2 when the column's byte length is over 255; a BLOB's pack length)."""
    try:
        data = encode_text(value, charset)
    except UnicodeEncodeError:
        data = value.encode()  # no column holds such text: its type check refused it
    return _length_prefixed(data, _TEXT_PREFIXES[type_code](metadata))


def _pack_string(value: object, metadata: int) -> bytes:
    data = value.encode() if isinstance(value, str) else bytes(value)
    return _length_prefixed(data, 1 if metadata < 256 else 2)


def _pack_char(value: object, metadata: int) -> bytes:
    real, length = c.string_real_type(metadata)
    if real in (c.MYSQL_TYPE_ENUM, c.MYSQL_TYPE_SET):
        return int(value).to_bytes(metadata & 0xFF, "little")
    # Field_string::pack leaves out the padding: a CHAR's trailing spaces (the catalog keeps
    # none), a BINARY's trailing 0x00 bytes (the applier pads them back).
    data = value.encode() if isinstance(value, str) else bytes(value).rstrip(b"\0")
    return _length_prefixed(data, 1 if length < 256 else 2)


def _length_prefixed(data: bytes, prefix: int) -> bytes:
    return len(data).to_bytes(prefix, "little") + data


def _pack_date(value: object, metadata: int) -> bytes:
    if value == _ZERO_DATE:
        return b"\0\0\0"
    return (value.day | value.month << 5 | value.year << 9).to_bytes(3, "little")


def _pack_timestamp2(value: object, metadata: int) -> bytes:
    seconds = 0 if value == _ZERO_DATETIME else calendar.timegm(value.timetuple())
    return seconds.to_bytes(4, "big") + _pack_fraction(value.microsecond, metadata)


_PACKERS: dict[int, Callable[[object, int], bytes]] = {
    c.MYSQL_TYPE_NEWDECIMAL: lambda v, m: pack_decimal(Decimal(v), m >> 8, m & 0xFF),
    c.MYSQL_TYPE_FLOAT: lambda v, m: struct.pack("<f", v),
    c.MYSQL_TYPE_DOUBLE: lambda v, m: struct.pack("<d", v),
    c.MYSQL_TYPE_VARCHAR: _pack_string,
    c.MYSQL_TYPE_VAR_STRING: _pack_string,
    c.MYSQL_TYPE_STRING: _pack_char,
    c.MYSQL_TYPE_BLOB: lambda v, m: _length_prefixed(v.encode() if isinstance(v, str) else bytes(v), m),
    c.MYSQL_TYPE_GEOMETRY: lambda v, m: _length_prefixed(bytes(v), m),
    c.MYSQL_TYPE_JSON: lambda v, m: _length_prefixed(encode_json_binary(v), m),
    c.MYSQL_TYPE_DATE: _pack_date,
    c.MYSQL_TYPE_NEWDATE: _pack_date,
    c.MYSQL_TYPE_DATETIME2: lambda v, m: pack_datetime2(v, m),
    c.MYSQL_TYPE_TIMESTAMP2: _pack_timestamp2,
    c.MYSQL_TYPE_TIME2: lambda v, m: pack_time2(v, m),
    c.MYSQL_TYPE_YEAR: lambda v, m: bytes((v - 1900 if v else 0,)),
    c.MYSQL_TYPE_BIT: lambda v, m: int(v).to_bytes((m >> 8) + (1 if m & 0xFF else 0), "big"),
}


def unpack_value(cursor: Cursor, type_code: int, metadata: int, unsigned: bool | None, charset: int | None) -> object:
    """The value of one non-NULL column at the cursor."""
    size = _FIXED.get(type_code)
    if size is not None:
        return int.from_bytes(cursor.take(size), "little", signed=not unsigned)
    if type_code in (c.MYSQL_TYPE_VARCHAR, c.MYSQL_TYPE_VAR_STRING):
        return _text(cursor.take(cursor.u8() if metadata < 256 else cursor.u16()), charset)
    if type_code == c.MYSQL_TYPE_STRING:
        real, length = c.string_real_type(metadata)
        if real in (c.MYSQL_TYPE_ENUM, c.MYSQL_TYPE_SET):
            return int.from_bytes(cursor.take(metadata & 0xFF), "little")
        return _text(cursor.take(cursor.u8() if length < 256 else cursor.u16()), charset)
    if type_code == c.MYSQL_TYPE_BLOB:
        return _text(cursor.take(int.from_bytes(cursor.take(metadata), "little")), charset)
    if type_code == c.MYSQL_TYPE_JSON:
        return _json(cursor.take(int.from_bytes(cursor.take(metadata), "little")))
    unpacker = _UNPACKERS.get(type_code)
    if unpacker is None:
        raise UnsupportedValueError(f"values of column type {type_code} are not supported")
    return unpacker(cursor, metadata)


def _text(data: bytes, charset: int | None) -> str | bytes:
    try:
        if charset in COLLATION_NAMES and charset != c.BINARY_CHARSET:
            return decode_text(data, COLLATIONS[COLLATION_NAMES[charset]].charset)
        if charset in _UTF8_CHARSETS:
            return data.decode("utf-8")
        if charset in _LATIN1_CHARSETS:
            return data.decode("cp1252")
    except UnicodeDecodeError:
        pass
    return data


def _json(data: bytes) -> object:
    """MySQL's binary JSON; bytes it cannot decode are the event's corruption."""
    try:
        return decode_json_binary(data)
    except ValueError as error:
        raise UnsupportedValueError(f"binary JSON value: {error}") from None


def _unpack_date(cursor: Cursor, metadata: int) -> dt.date | str:
    packed = cursor.u24()
    day, month, year = packed & 0x1F, packed >> 5 & 0x0F, packed >> 9
    if packed == 0:
        return _ZERO_DATE
    try:
        return dt.date(year, month, day)
    except ValueError:
        return f"{year:04}-{month:02}-{day:02}"


def _unpack_timestamp2(cursor: Cursor, metadata: int) -> dt.datetime:
    seconds = int.from_bytes(cursor.take(4), "big")
    micro = _unpack_fraction(cursor, metadata)
    if seconds == 0 and micro == 0:
        return _ZERO_DATETIME
    return dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds, microseconds=micro)


def _unpack_decimal_at(cursor: Cursor, metadata: int) -> Decimal:
    precision, scale = metadata >> 8, metadata & 0xFF
    if not 0 < precision <= 65 or scale > precision:
        raise EventDecodeError(f"DECIMAL({precision},{scale}) is not a valid column type")
    return unpack_decimal(cursor.take(decimal_size(precision, scale)), precision, scale)


_UNPACKERS: dict[int, Callable[[Cursor, int], object]] = {
    c.MYSQL_TYPE_NEWDECIMAL: _unpack_decimal_at,
    c.MYSQL_TYPE_FLOAT: lambda cur, m: struct.unpack("<f", cur.take(4))[0],
    c.MYSQL_TYPE_DOUBLE: lambda cur, m: struct.unpack("<d", cur.take(8))[0],
    c.MYSQL_TYPE_DATE: _unpack_date,
    c.MYSQL_TYPE_NEWDATE: _unpack_date,
    c.MYSQL_TYPE_DATETIME2: lambda cur, m: unpack_datetime2(cur, m),
    c.MYSQL_TYPE_TIMESTAMP2: _unpack_timestamp2,
    c.MYSQL_TYPE_TIME2: lambda cur, m: unpack_time2(cur, m),
    c.MYSQL_TYPE_YEAR: lambda cur, m: (lambda y: y + 1900 if y else 0)(cur.u8()),
    c.MYSQL_TYPE_BIT: lambda cur, m: int.from_bytes(cur.take((m >> 8) + (1 if m & 0xFF else 0)), "big"),
    c.MYSQL_TYPE_GEOMETRY: lambda cur, m: cur.take(int.from_bytes(cur.take(m), "little")),
}
