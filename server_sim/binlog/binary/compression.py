"""MariaDB's compressed events (`log_bin_compress=ON`): the compressed record and which
part of which event type holds one.

A MariaDB master with `log_bin_compress=ON` writes a Query whose statement text, or a
Rows event whose row data, is at least `log_bin_compress_min_len` bytes long as a
compressed type (165-171) instead of the plain one; everything else in the event stays
as it is, and the record takes the compressed part's place, up to the checksum.

The record (`binlog_buf_compress` in MariaDB's `sql/log_event.cc`): one byte `0x80 |
lenlen` (bits 4-6, the algorithm, 0 for zlib), the original length in `lenlen` (1-4)
bytes big-endian, then a zlib stream of the original bytes at zlib's default level.
"""

from __future__ import annotations

import enum
import zlib
from dataclasses import dataclass

from .packed_integer import read_integer

_COMPRESSED_FLAG = 0x80
_ALGORITHM_MASK = 0x70
_LENGTH_BYTES_MASK = 0x07
_ROWS_HEADER_V1 = 8  # table_id 6 + flags 2, before v2's extra data
_ROWS_HEADER_V2 = 10


class CompressedPart(enum.Enum):
    """What of an event the compressed record replaces."""

    QUERY_TEXT = "the statement text, after the database name's NUL"
    ROW_DATA = "the rows, after the column count and the column bitmaps"


@dataclass(frozen=True)
class CompressedEventType:
    """A compressed event type: the plain type it stands for and what part is compressed."""

    type_code: int
    name: str
    uncompressed_type: int
    part: CompressedPart
    update: bool = False  # an Update_rows event: two column bitmaps before the rows


COMPRESSED_EVENT_TYPES: dict[int, CompressedEventType] = {
    entry.type_code: entry
    for entry in (
        CompressedEventType(165, "Query_compressed", 2, CompressedPart.QUERY_TEXT),
        CompressedEventType(166, "Write_rows_compressed_v1", 23, CompressedPart.ROW_DATA),
        CompressedEventType(167, "Update_rows_compressed_v1", 24, CompressedPart.ROW_DATA, update=True),
        CompressedEventType(168, "Delete_rows_compressed_v1", 25, CompressedPart.ROW_DATA),
        CompressedEventType(169, "Write_rows_compressed", 30, CompressedPart.ROW_DATA),
        CompressedEventType(170, "Update_rows_compressed", 31, CompressedPart.ROW_DATA, update=True),
        CompressedEventType(171, "Delete_rows_compressed", 32, CompressedPart.ROW_DATA),
    )
}
"""Type code -> its entry; the uncompressed type of 166-168 is Rows v1, of 169-171 Rows v2."""


def record_offset(entry: CompressedEventType, body: bytes, post_header_length: int) -> int:
    """Where the compressed record starts in an event `body` (after the common header,
    before the checksum), as the server's uncompress functions find it; `post_header_length`
    is the Format_description's for the type. ValueError when the body ends before it."""
    if entry.part is CompressedPart.QUERY_TEXT:
        if len(body) < post_header_length or post_header_length < 13:
            raise ValueError(f"{entry.name}: the body ({len(body)} bytes) ends inside its {post_header_length}-byte post-header")
        database_length, status_length = body[8], int.from_bytes(body[11:13], "little")
        offset = post_header_length + status_length + database_length + 1
    else:
        offset = _ROWS_HEADER_V1
        if post_header_length == _ROWS_HEADER_V2:
            if len(body) < _ROWS_HEADER_V2:
                raise ValueError(f"{entry.name}: the body ({len(body)} bytes) ends inside its post-header")
            offset += int.from_bytes(body[_ROWS_HEADER_V1:_ROWS_HEADER_V2], "little")
        width, offset = read_integer(body, offset)
        offset += (width + 7) // 8 * (2 if entry.update else 1)
    if offset >= len(body):
        raise ValueError(f"{entry.name}: the body ({len(body)} bytes) ends before its compressed record at offset {offset}")
    return offset


def unpack_compressed(data: bytes) -> tuple[bytes, int]:
    """The original bytes of the compressed record at the start of `data`, and how many
    bytes the record takes. ValueError on a header that is not a zlib record, a length of
    0 or longer than its bytes, a zlib stream that is corrupt, cut, or inflates to other
    than the recorded length (inflation stops one byte past it)."""
    if not data:
        raise ValueError("compressed record expected, the data is empty")
    header = data[0]
    # The server reads the length's size from bits 0-2 only (bit 3 is not looked at).
    length_bytes = header & _LENGTH_BYTES_MASK
    if not header & _COMPRESSED_FLAG or header & _ALGORITHM_MASK or not 1 <= length_bytes <= 4:
        raise ValueError(f"compressed record header 0x{header:02x} is not 0x80 | 1-4 (zlib)")
    if len(data) < 1 + length_bytes:
        raise ValueError(f"compressed record is cut inside its {length_bytes}-byte length")
    original = int.from_bytes(data[1 : 1 + length_bytes], "big")
    if original == 0:
        raise ValueError("compressed record gives an original length of 0")
    stream = zlib.decompressobj()
    try:
        out = stream.decompress(data[1 + length_bytes :], original + 1)
    except zlib.error as error:
        raise ValueError(f"compressed record's zlib stream is corrupt ({_zlib_reason(error)})") from None
    if not stream.eof:
        if len(out) > original:
            raise ValueError(f"compressed record inflates past its original length {original}")
        raise ValueError(f"compressed record's zlib stream is cut after {len(out)} of {original} bytes")
    if len(out) != original:
        raise ValueError(f"compressed record inflates to {len(out)} bytes, its header says {original}")
    return out, len(data) - len(stream.unused_data)


def _zlib_reason(error: zlib.error) -> str:
    """zlib's own words without the Python call around them ("Error -3 while decompressing
    data: invalid distance" -> "invalid distance")."""
    return str(error).rpartition(": ")[2] or "bad data"


def pack_compressed(data: bytes) -> bytes:
    """The compressed record of `data` as `binlog_buf_compress` writes it: the fewest
    length bytes that hold its length, and zlib's compress() at its default level."""
    length = len(data)
    if length >= 1 << 32:
        raise ValueError(f"{length} bytes are too many for a compressed record")
    length_bytes = max(1, (length.bit_length() + 7) // 8)
    return bytes((_COMPRESSED_FLAG | length_bytes,)) + length.to_bytes(length_bytes, "big") + zlib.compress(data)
