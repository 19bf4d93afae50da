"""The binlog's packed integer ("length-encoded integer", net_store_length).

Below 251 a value is one byte; 0xFC, 0xFD and 0xFE introduce 2, 3 and 8 little-endian
bytes. Transaction_payload's header and the partial JSON diff use it for every number.
"""

from __future__ import annotations

_WIDTHS = {0xFC: 2, 0xFD: 3, 0xFE: 8}


def pack_integer(value: int) -> bytes:
    """`value` packed as the server's net_store_length writes it (the shortest form)."""
    if value < 0 or value >= 1 << 64:
        raise ValueError(f"packed integer out of range: {value}")
    if value < 251:
        return bytes((value,))
    if value < 1 << 16:
        return b"\xfc" + value.to_bytes(2, "little")
    if value < 1 << 24:
        return b"\xfd" + value.to_bytes(3, "little")
    return b"\xfe" + value.to_bytes(8, "little")


def read_integer(data: bytes, offset: int) -> tuple[int, int]:
    """The packed integer at `offset` and the offset after it; ValueError naming the
    offset when the bytes end inside it or it starts with 0xFB or 0xFF (not a number)."""
    if offset >= len(data):
        raise ValueError(f"packed integer expected at offset {offset}, the data ends there")
    first = data[offset]
    if first < 251:
        return first, offset + 1
    width = _WIDTHS.get(first)
    if width is None:
        raise ValueError(f"byte 0x{first:02x} at offset {offset} does not start a packed integer")
    end = offset + 1 + width
    if end > len(data):
        raise ValueError(f"packed integer at offset {offset} needs {width + 1} bytes, {len(data) - offset} left")
    return int.from_bytes(data[offset + 1 : end], "little"), end
