"""MySQL 8.0's binary JSON (`sql-common/json_binary.cc`), the value of a JSON column in
a row event, and the partial update diffs of PARTIAL_UPDATE_ROWS_EVENT (`json_diff.cc`).

A value is a type byte and its data. Objects and arrays come in a small form (2-byte
counts, sizes and offsets) and a large one (4 bytes); the server writes the small one
unless something does not fit, and then makes the enclosing small containers large too.
An object's keys are sorted by length, then bytes. Literals, 16-bit integers (and 32-bit
ones in the large form) sit in their value entry; other values follow the keys, at the
offset the entry gives. DECIMAL and temporal values are "opaque": a MySQL column type,
a variable-length size, the column's own bytes.

Decoded values are Python's: dict, list, str, int, float, bool, None, Decimal, date,
datetime, timedelta (TIME); `JsonUint` marks an integer stored unsigned, `JsonTimestamp`
a TIMESTAMP, `JsonOpaque` any other opaque value, so that encoding a decoded value gives
the server's bytes back.
"""

from __future__ import annotations

import base64
import datetime as dt
import enum
import json
import struct
from dataclasses import dataclass
from decimal import Decimal

from .packed_integer import pack_integer, read_integer

SMALL_OBJECT, LARGE_OBJECT, SMALL_ARRAY, LARGE_ARRAY, LITERAL = 0x00, 0x01, 0x02, 0x03, 0x04
INT16, UINT16, INT32, UINT32, INT64, UINT64, DOUBLE, STRING, OPAQUE = 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0F
NULL_LITERAL, TRUE_LITERAL, FALSE_LITERAL = 0x00, 0x01, 0x02
MAX_DEPTH = 100  # JSON_DOCUMENT_MAX_DEPTH
TIMESTAMP, DATE, TIME, DATETIME, NEWDECIMAL = 7, 10, 11, 12, 246  # MySQL column types of opaque values
_DIGIT_BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)  # decimal2bin: bytes for 0-9 leftover digits
_INTEGERS = {INT16: ("<h", 2), UINT16: ("<H", 2), INT32: ("<i", 4), UINT32: ("<I", 4), INT64: ("<q", 8), UINT64: ("<Q", 8)}


class JsonUint(int):
    """An integer the server stored unsigned (UINT16/32/64): equal to the int, encoded back as unsigned."""


class JsonTimestamp(dt.datetime):
    """A TIMESTAMP opaque value (a DATETIME one decodes to a plain datetime)."""


class JsonDecimal(Decimal):
    """A DECIMAL value with the precision the server stored it with (a CAST's, which may
    exceed its digits: 9.00 AS DECIMAL(11,2)); a plain Decimal encodes with its digits'."""

    precision: int

    def __new__(cls, value: str, precision: int) -> JsonDecimal:
        instance = super().__new__(cls, value)
        instance.precision = precision
        return instance


@dataclass(frozen=True)
class JsonOpaque:
    """An opaque value of another column type (BLOB, BIT, GEOMETRY ...): its type and bytes."""

    field_type: int
    data: bytes

    def __str__(self) -> str:
        """As MySQL prints it: `base64:type<N>:<base64>`."""
        return f"base64:type{self.field_type}:{base64.b64encode(self.data).decode('ascii')}"


class JsonDiffOperation(enum.IntEnum):
    REPLACE = 0
    INSERT = 1
    REMOVE = 2


@dataclass(frozen=True)
class JsonDiff:
    """One change of a partial JSON update: the operation, the path it applies to, the
    new value (none for REMOVE)."""

    operation: JsonDiffOperation
    path: str
    value: object = None


def json_text(value: object) -> str:
    """A decoded JSON value as MySQL prints a document: `, ` and `: ` separators, object
    keys by length then bytes, temporal and opaque values as their strings."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: (len(key.encode()), key.encode()))
        return "{" + ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {json_text(value[key])}" for key in keys) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(item) for item in value) + "]"
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def json_diff_text(column: str, diffs: list[JsonDiff]) -> str:
    """A partial JSON update as the functions that make it from the column's old value."""
    text = column
    for diff in diffs:
        path = "'" + diff.path.replace("\\", "\\\\").replace("'", "\\'") + "'"
        if diff.operation is JsonDiffOperation.REMOVE:
            text = f"JSON_REMOVE({text}, {path})"
        else:
            text = f"JSON_{diff.operation.name}({text}, {path}, {json_text(diff.value)})"
    return text


# -- decoding ----------------------------------------------------------------------------


def decode_json_binary(data: bytes) -> object:
    """The value of a JSON column's bytes; ValueError naming the offset of what is wrong.
    An empty value is JSON null, as the server reads it."""
    if not data:
        return None
    return _Reader(bytes(data)).value(data[0], 1, len(data), 0)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def _need(self, offset: int, length: int, end: int, what: str) -> None:
        if offset + length > end:
            raise ValueError(f"JSON {what} at offset {offset} needs {length} bytes, {max(end - offset, 0)} left")

    def value(self, kind: int, offset: int, end: int, depth: int) -> object:
        """The value of type `kind` whose data starts at `offset` and may run to `end`."""
        if kind in (SMALL_OBJECT, LARGE_OBJECT, SMALL_ARRAY, LARGE_ARRAY):
            if depth >= MAX_DEPTH:
                raise ValueError(f"JSON document nested deeper than {MAX_DEPTH} at offset {offset}")
            return self.container(kind, offset, end, depth + 1)
        if kind == LITERAL:
            self._need(offset, 1, end, "literal")
            return self.literal(self.data[offset], offset)
        if kind in _INTEGERS:
            form, size = _INTEGERS[kind]
            self._need(offset, size, end, "integer")
            number = struct.unpack_from(form, self.data, offset)[0]
            return JsonUint(number) if kind in (UINT16, UINT32, UINT64) else number
        if kind == DOUBLE:
            self._need(offset, 8, end, "double")
            return struct.unpack_from("<d", self.data, offset)[0]
        if kind == STRING:
            length, start = self.variable_length(offset, end)
            self._need(start, length, end, "string")
            try:
                return self.data[start : start + length].decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"JSON string at offset {start} is not UTF-8") from None
        if kind == OPAQUE:
            self._need(offset, 1, end, "opaque value")
            length, start = self.variable_length(offset + 1, end)
            self._need(start, length, end, "opaque value")
            return opaque_value(self.data[offset], self.data[start : start + length])
        raise ValueError(f"JSON value type 0x{kind:02x} at offset {offset - 1} is not one MySQL writes")

    @staticmethod
    def literal(byte: int, offset: int) -> object:
        if byte == NULL_LITERAL:
            return None
        if byte in (TRUE_LITERAL, FALSE_LITERAL):
            return byte == TRUE_LITERAL
        raise ValueError(f"JSON literal 0x{byte:02x} at offset {offset} is not null, true or false")

    def variable_length(self, offset: int, end: int) -> tuple[int, int]:
        """A length of 7 bits per byte, low bits first, at most 5 bytes (read_variable_length)."""
        length = 0
        for index in range(5):
            self._need(offset + index, 1, end, "length")
            byte = self.data[offset + index]
            length |= (byte & 0x7F) << (7 * index)
            if not byte & 0x80:
                if length > 0xFFFFFFFF:
                    break
                return length, offset + index + 1
        raise ValueError(f"JSON variable length at offset {offset} is malformed")

    def container(self, kind: int, start: int, end: int, depth: int) -> object:
        large, is_object = kind in (LARGE_OBJECT, LARGE_ARRAY), kind in (SMALL_OBJECT, LARGE_OBJECT)
        width = 4 if large else 2
        form = "<I" if large else "<H"
        self._need(start, 2 * width, end, "container header")
        count, size = struct.unpack_from(form, self.data, start)[0], struct.unpack_from(form, self.data, start + width)[0]
        self._need(start, size, end, "container")
        stop = start + size
        entries = start + 2 * width + (count * (width + 2) if is_object else 0)
        self._need(start, 2 * width + count * ((width + 2 if is_object else 0) + 1 + width), stop, "container entries")
        values = [self.entry(entries + index * (1 + width), start, stop, large, depth) for index in range(count)]
        if not is_object:
            return values
        keys = []
        for index in range(count):
            entry = start + 2 * width + index * (width + 2)
            key_offset, key_length = struct.unpack_from(form, self.data, entry)[0], struct.unpack_from("<H", self.data, entry + width)[0]
            self._need(start + key_offset, key_length, stop, "key")
            try:
                keys.append(self.data[start + key_offset : start + key_offset + key_length].decode("utf-8"))
            except UnicodeDecodeError:
                raise ValueError(f"JSON key at offset {start + key_offset} is not UTF-8") from None
        return dict(zip(keys, values, strict=True))

    def entry(self, offset: int, start: int, stop: int, large: bool, depth: int) -> object:
        """A value entry: a type and the value inlined, or its offset in the container."""
        kind = self.data[offset]
        if kind == LITERAL:
            return self.literal(self.data[offset + 1], offset + 1)
        if kind in (INT16, UINT16) or (large and kind in (INT32, UINT32)):
            return self.value(kind, offset + 1, offset + 1 + (4 if large else 2), depth)
        (position,) = struct.unpack_from("<I" if large else "<H", self.data, offset + 1)
        if position >= stop - start:
            raise ValueError(f"JSON value offset {position} at offset {offset + 1} is past its container")
        return self.value(kind, start + position, stop, depth)


def opaque_value(field_type: int, data: bytes) -> object:
    """An opaque value as a Python one: DECIMAL, the temporal types, or JsonOpaque."""
    if field_type == NEWDECIMAL:
        if len(data) < 2:
            raise ValueError("JSON DECIMAL value shorter than its precision and scale")
        precision, scale = data[0], data[1]
        if not 0 <= scale <= precision or len(data) - 2 != decimal_size(precision, scale):
            raise ValueError(f"JSON DECIMAL({precision},{scale}) value has {len(data) - 2} bytes")
        return decode_decimal(data[2:], precision, scale)
    if field_type in (DATE, TIME, DATETIME, TIMESTAMP):
        if len(data) != 8:
            raise ValueError(f"JSON temporal value of type {field_type} has {len(data)} bytes, not 8")
        return _unpack_temporal(field_type, struct.unpack("<q", data)[0])
    return JsonOpaque(field_type, bytes(data))


def decimal_size(precision: int, scale: int) -> int:
    integer = precision - scale
    return integer // 9 * 4 + _DIGIT_BYTES[integer % 9] + scale // 9 * 4 + _DIGIT_BYTES[scale % 9]


def decode_decimal(data: bytes, precision: int, scale: int) -> JsonDecimal:
    """decimal2bin's bytes as a Decimal keeping `scale` digits after the point."""
    negative = not data[0] & 0x80
    raw = bytes((data[0] ^ 0x80,)) + data[1:]
    if negative:
        raw = bytes(byte ^ 0xFF for byte in raw)
    integer, fraction = precision - scale, scale
    groups = [_DIGIT_BYTES[integer % 9]] + [4] * (integer // 9) + [4] * (fraction // 9) + [_DIGIT_BYTES[fraction % 9]]
    widths = [integer % 9] + [9] * (integer // 9) + [9] * (fraction // 9) + [fraction % 9]
    digits, offset = [], 0
    for size, width in zip(groups, widths, strict=True):
        if width:
            number = int.from_bytes(raw[offset : offset + size], "big")
            if number >= 10**width:
                raise ValueError(f"JSON DECIMAL digit group {number} is wider than {width} digits")
            digits.append(str(number).zfill(width))
        offset += size
    text = "".join(digits)
    whole, part = text[:integer].lstrip("0") or "0", text[integer:]
    return JsonDecimal(("-" if negative else "") + whole + ("." + part if scale else ""), precision)


def _unpack_temporal(field_type: int, packed: int) -> object:
    """TIME_from_longlong_packed: a TIME as timedelta, a DATE as date, others as datetime."""
    negative, packed = packed < 0, abs(packed)
    micro, whole = packed % (1 << 24), packed >> 24
    if field_type == TIME:
        hours, minutes, seconds = (whole >> 12) % (1 << 10), (whole >> 6) % 64, whole % 64
        value = dt.timedelta(hours=hours, minutes=minutes, seconds=seconds, microseconds=micro)
        return -value if negative else value
    ymd, hms = whole >> 17, whole % (1 << 17)
    year, month, day = (ymd >> 5) // 13, (ymd >> 5) % 13, ymd % 32
    try:
        if field_type == DATE:
            return dt.date(year, month, day)
        kind = JsonTimestamp if field_type == TIMESTAMP else dt.datetime
        return kind(year, month, day, hms >> 12, (hms >> 6) % 64, hms % 64, micro)
    except ValueError:
        raise ValueError(f"JSON temporal value {year:04d}-{month:02d}-{day:02d} of type {field_type} is not a date Python holds") from None


def decode_json_diff(data: bytes) -> list[JsonDiff]:
    """The diffs of a partial JSON update (a PARTIAL_UPDATE_ROWS_EVENT's after image of a
    JSON column, after its 4-byte length): operation, path, value; ValueError on bad bytes."""
    diffs, offset = [], 0
    while offset < len(data):
        try:
            operation = JsonDiffOperation(data[offset])
        except ValueError:
            raise ValueError(f"JSON diff operation {data[offset]} at offset {offset} is not REPLACE, INSERT or REMOVE") from None
        length, start = read_integer(data, offset + 1)
        if start + length > len(data):
            raise ValueError(f"JSON diff path at offset {start} runs past the data")
        path = data[start : start + length].decode("utf-8", errors="strict")
        offset = start + length
        if operation is JsonDiffOperation.REMOVE:
            diffs.append(JsonDiff(operation, path))
            continue
        length, start = read_integer(data, offset)
        if start + length > len(data):
            raise ValueError(f"JSON diff value at offset {start} runs past the data")
        diffs.append(JsonDiff(operation, path, decode_json_binary(data[start : start + length])))
        offset = start + length
    return diffs


# -- encoding ----------------------------------------------------------------------------


def encode_json_diff(diffs: list[JsonDiff]) -> bytes:
    """The bytes decode_json_diff reads: per diff its operation, path and (but for
    REMOVE) value, each length-prefixed with a packed integer."""
    out = bytearray()
    for diff in diffs:
        path = diff.path.encode("utf-8")
        out += bytes((diff.operation.value,)) + pack_integer(len(path)) + path
        if diff.operation is not JsonDiffOperation.REMOVE:
            value = encode_json_binary(diff.value)
            out += pack_integer(len(value)) + value
    return bytes(out)


class _TooBig(Exception):
    """A container does not fit the small form (VALUE_TOO_BIG)."""


def encode_json_binary(value: object) -> bytes:
    """The bytes MySQL 8.0 writes for `value` (one of the types decode_json_binary gives)."""
    kind, data = _encode(value, small_parent=False, depth=0)
    return bytes((kind,)) + data


def _encode(value: object, small_parent: bool, depth: int) -> tuple[int, bytes]:
    if isinstance(value, dict | list | tuple):
        if depth >= MAX_DEPTH:
            raise ValueError(f"JSON document nested deeper than {MAX_DEPTH}")
        is_object = isinstance(value, dict)
        try:
            return (SMALL_OBJECT if is_object else SMALL_ARRAY), _container(value, False, depth + 1)
        except _TooBig:
            if small_parent:
                raise
        return (LARGE_OBJECT if is_object else LARGE_ARRAY), _container(value, True, depth + 1)
    return _scalar(value)


def _scalar(value: object) -> tuple[int, bytes]:
    if value is None or isinstance(value, bool):
        return LITERAL, bytes((NULL_LITERAL if value is None else TRUE_LITERAL if value else FALSE_LITERAL,))
    if isinstance(value, int):
        kinds = (UINT16, UINT32, UINT64) if isinstance(value, JsonUint) or value > 0x7FFFFFFFFFFFFFFF else (INT16, INT32, INT64)
        for kind in kinds:
            form = _INTEGERS[kind][0]
            try:
                return kind, struct.pack(form, value)
            except struct.error:
                continue
        raise ValueError(f"JSON integer {value} does not fit 64 bits")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"JSON has no number {value}")
        return DOUBLE, struct.pack("<d", value)
    if isinstance(value, str):
        data = value.encode("utf-8")
        return STRING, _variable_length(len(data)) + data
    field_type, data = _opaque(value)
    return OPAQUE, bytes((field_type,)) + _variable_length(len(data)) + data


def _opaque(value: object) -> tuple[int, bytes]:
    if isinstance(value, JsonOpaque):
        return value.field_type, value.data
    if isinstance(value, Decimal):
        return NEWDECIMAL, encode_decimal(value)
    if isinstance(value, dt.datetime):
        return (TIMESTAMP if isinstance(value, JsonTimestamp) else DATETIME), struct.pack("<q", _pack_datetime(value))
    if isinstance(value, dt.date):
        return DATE, struct.pack("<q", _pack_datetime(dt.datetime(value.year, value.month, value.day)))
    if isinstance(value, dt.timedelta):
        micro = abs(value) // dt.timedelta(microseconds=1)
        seconds, micro = divmod(micro, 1_000_000)
        hms = (seconds // 3600) << 12 | (seconds // 60 % 60) << 6 | seconds % 60
        packed = (hms << 24) + micro
        return TIME, struct.pack("<q", -packed if value < dt.timedelta(0) else packed)
    raise ValueError(f"{type(value).__name__} is not a JSON value")


def _pack_datetime(value: dt.datetime) -> int:
    ymd = ((value.year * 13 + value.month) << 5) | value.day
    hms = (value.hour << 12) | (value.minute << 6) | value.second
    return (((ymd << 17) | hms) << 24) + value.microsecond


def encode_decimal(value: Decimal) -> bytes:
    """Precision, scale and decimal2bin bytes, as Json_decimal::get_binary writes them."""
    if not value.is_finite():
        raise ValueError(f"JSON DECIMAL {value} is not a number")
    sign, digits, exponent = value.as_tuple()
    scale = max(0, -int(exponent))
    text = "".join(map(str, digits)) + "0" * max(0, int(exponent))
    integer_text = text[: len(text) - scale].lstrip("0") if scale < len(text) else ""
    fraction_text = text[len(text) - scale :].rjust(scale, "0") if scale else ""
    precision = max(len(integer_text) + scale, 1, getattr(value, "precision", 0))
    integer = precision - scale
    groups = []
    lead = integer % 9
    integer_text = integer_text.rjust(integer, "0")
    if lead:
        groups.append(int(integer_text[:lead]).to_bytes(_DIGIT_BYTES[lead], "big"))
    groups += [int(integer_text[i : i + 9]).to_bytes(4, "big") for i in range(lead, integer, 9)]
    groups += [int(fraction_text[i : i + 9]).to_bytes(4, "big") for i in range(0, scale - scale % 9, 9)]
    if scale % 9:
        groups.append(int(fraction_text[scale - scale % 9 :]).to_bytes(_DIGIT_BYTES[scale % 9], "big"))
    raw = bytearray(b"".join(groups))
    if sign and any(digits):
        raw = bytearray(byte ^ 0xFF for byte in raw)
    raw[0] ^= 0x80
    return bytes((precision, scale)) + bytes(raw)


def _variable_length(length: int) -> bytes:
    out = bytearray()
    while True:
        byte, length = length & 0x7F, length >> 7
        out.append(byte | (0x80 if length else 0))
        if not length:
            return bytes(out)


def _container(value: dict | list | tuple, large: bool, depth: int) -> bytes:
    """An object or array in the small or large form; _TooBig when small does not fit."""
    width, limit = (4, 0xFFFFFFFF) if large else (2, 0xFFFF)
    form = "<I" if large else "<H"
    is_object = isinstance(value, dict)
    if is_object:
        keyed = [(key.encode("utf-8") if isinstance(key, str) else _not_a_key(key), item) for key, item in value.items()]
        keyed.sort(key=lambda pair: (len(pair[0]), pair[0]))
    else:
        keyed = [(b"", item) for item in value]
    count = len(keyed)
    if count > limit:
        raise _TooBig
    header = 2 * width + count * ((width + 2) if is_object else 0)
    entries_end = header + count * (1 + width)
    key_entries, keys, offset = bytearray(), bytearray(), entries_end
    for key, _ in keyed if is_object else ():
        if len(key) > 0xFFFF:
            raise ValueError(f"JSON key of {len(key)} bytes is longer than 65535")
        if offset > limit:
            raise _TooBig
        key_entries += struct.pack(form, offset) + struct.pack("<H", len(key))
        keys += key
        offset += len(key)
    entries, values = bytearray(), bytearray()
    for _, item in keyed:
        inlined = _inline(item, large)
        if inlined is not None:
            entries += inlined
            continue
        position = entries_end + len(keys) + len(values)
        if position > limit:
            raise _TooBig
        kind, data = _encode(item, small_parent=not large, depth=depth)
        entries += bytes((kind,)) + struct.pack(form, position)
        values += data
    size = entries_end + len(keys) + len(values)
    if size > limit:
        raise _TooBig
    return struct.pack(form, count) + struct.pack(form, size) + bytes(key_entries) + bytes(entries) + bytes(keys) + bytes(values)


def _not_a_key(key: object) -> bytes:
    raise ValueError(f"JSON object key {key!r} is not a string")


def _inline(value: object, large: bool) -> bytes | None:
    """The value entry of a value that sits in its entry (attempt_inline_value), or None."""
    width = 4 if large else 2
    if value is None or isinstance(value, bool):
        return bytes((LITERAL, NULL_LITERAL if value is None else TRUE_LITERAL if value else FALSE_LITERAL)) + bytes(width - 1)
    if not isinstance(value, int) or isinstance(value, float):
        return None
    unsigned = isinstance(value, JsonUint) or value > 0x7FFFFFFFFFFFFFFF
    kinds = (UINT16, UINT32) if unsigned else (INT16, INT32)
    for kind in kinds if large else kinds[:1]:
        try:
            packed = struct.pack(_INTEGERS[kind][0], value)
        except struct.error:
            continue
        return bytes((kind,)) + packed.ljust(width, b"\x00" if value >= 0 or kind in (UINT16, UINT32) else b"\xff")
    return None
