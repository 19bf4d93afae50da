"""Little-endian integers, packed ("length-encoded") integers and bitmaps, as the binlog
format lays them out; a bounds-checked cursor for reading them back.

Every read goes through `Cursor`, which raises EventDecodeError instead of running past
the end of an event's bytes: a reader of damaged files must fail with a reason, never an
IndexError or struct.error.
"""

from __future__ import annotations

import struct

from .packed_integer import pack_integer

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")


class EventDecodeError(ValueError):
    """An event's bytes do not hold what their type says (short, or out of range)."""


def u8(value: int) -> bytes:
    return bytes((value & 0xFF,))


def u16(value: int) -> bytes:
    return _U16.pack(value & 0xFFFF)


def u24(value: int) -> bytes:
    return (value & 0xFFFFFF).to_bytes(3, "little")


def u32(value: int) -> bytes:
    return _U32.pack(value & 0xFFFFFFFF)


def u48(value: int) -> bytes:
    return (value & 0xFFFFFFFFFFFF).to_bytes(6, "little")


def u64(value: int) -> bytes:
    return _U64.pack(value & 0xFFFFFFFFFFFFFFFF)


def i64(value: int) -> bytes:
    return _I64.pack(value)


def lenenc(value: int) -> bytes:
    """The packed integer of net_store_length (packed_integer.py writes it)."""
    return pack_integer(value)


def bitmap(bits: list[bool], pad: bool = False) -> bytes:
    """Bits in order, bit 0 of byte 0 first; unused bits of the last byte set when `pad`."""
    out = bytearray((len(bits) + 7) // 8)
    for index, bit in enumerate(bits):
        if bit:
            out[index >> 3] |= 1 << (index & 7)
    if pad and len(bits) & 7:
        out[-1] |= 0xFF << (len(bits) & 7) & 0xFF
    return bytes(out)


def bits_of(data: bytes, count: int) -> list[bool]:
    """The first `count` bits of a bitmap (padding bits ignored)."""
    return [bool(data[index >> 3] >> (index & 7) & 1) for index in range(count)]


class Cursor:
    """Reads a little-endian layout from `data`, checking each read against the end."""

    __slots__ = ("data", "offset", "end")

    def __init__(self, data: bytes, offset: int = 0, end: int | None = None) -> None:
        self.data = data
        self.offset = offset
        self.end = len(data) if end is None else end

    @property
    def remaining(self) -> int:
        return self.end - self.offset

    def take(self, count: int) -> bytes:
        start = self.offset
        if count < 0 or start + count > self.end:
            raise EventDecodeError(f"needs {count} bytes at offset {start} of the event body, {self.end - start} left")
        self.offset = start + count
        return self.data[start : start + count]

    def rest(self) -> bytes:
        return self.take(self.end - self.offset)

    def _at(self, size: int) -> int:
        """The offset of the next `size` bytes, which the cursor then moves past."""
        start = self.offset
        if start + size > self.end:
            raise EventDecodeError(f"needs {size} bytes at offset {start} of the event body, {self.end - start} left")
        self.offset = start + size
        return start

    def unpack(self, layout: struct.Struct) -> tuple:
        """Several fixed-size fields at once."""
        return layout.unpack_from(self.data, self._at(layout.size))

    def u8(self) -> int:
        return self.data[self._at(1)]

    def u16(self) -> int:
        return _U16.unpack_from(self.data, self._at(2))[0]

    def u24(self) -> int:
        start = self._at(3)
        return int.from_bytes(self.data[start : start + 3], "little")

    def u32(self) -> int:
        return _U32.unpack_from(self.data, self._at(4))[0]

    def u48(self) -> int:
        start = self._at(6)
        return int.from_bytes(self.data[start : start + 6], "little")

    def u64(self) -> int:
        return _U64.unpack_from(self.data, self._at(8))[0]

    def i64(self) -> int:
        return _I64.unpack_from(self.data, self._at(8))[0]

    def lenenc(self) -> int:
        first = self.u8()
        if first < 251:
            return first
        if first == 0xFC:
            return self.u16()
        if first == 0xFD:
            return self.u24()
        if first == 0xFE:
            return self.u64()
        raise EventDecodeError(f"byte {first:#x} does not start a packed integer")

    def cstring(self, length: int) -> bytes:
        """`length` bytes then the NUL the format puts after a name."""
        text = self.take(length)
        if self.u8() != 0:
            raise EventDecodeError("a name is not followed by its NUL byte")
        return text

    def bitmap(self, count: int) -> list[bool]:
        return bits_of(self.take((count + 7) // 8), count)
