"""MySQL's Transaction_payload event (type 40): a transaction's events, compressed.

With `binlog_transaction_compression=ON` a MySQL 8.0 master writes each transaction as
its GTID event followed by one Transaction_payload whose body is a small header of
fields, then the transaction's events as one zstd frame. The inner events have
`log_pos` 0 and no checksum; the outer event carries the only CRC.

The header (libbinlogevents `codecs/binary.cpp`): fields of `type | length | value`,
each a packed integer, `length` the size of the packed value; the server writes the
compression type (2), the uncompressed size (3, left out for NONE), the payload size
(1), then the end mark (0). A reader skips a field it does not know by its length.

The body handled here is the event's bytes after the 19-byte common header and before
the checksum (although the Format_description lists 40 bytes of post-header for this
type, the header fields start right after the common header).
"""

from __future__ import annotations

import enum
import io
import struct
from dataclasses import dataclass

import zstandard

from .packed_integer import pack_integer, read_integer

HEADER_END_MARK = 0
PAYLOAD_SIZE_FIELD = 1
COMPRESSION_TYPE_FIELD = 2
UNCOMPRESSED_SIZE_FIELD = 3
ZSTD_DEFAULT_LEVEL = 3  # binlog_transaction_compression_level_zstd's default
COMMON_HEADER_LENGTH = 19
_EVENT_SIZE_OFFSET = 9
_CHUNK = 1 << 20


TRANSACTION_PAYLOAD_TYPE = 40

class PayloadCompression(enum.IntEnum):
    """transaction::compression::type: the algorithm of the payload."""

    ZSTD = 0
    NONE = 255


@dataclass(frozen=True)
class TransactionPayload:
    """A Transaction_payload body: its header fields and the (compressed) payload bytes."""

    compression: PayloadCompression
    payload_size: int
    uncompressed_size: int
    payload: bytes
    header_length: int  # bytes of header fields before the payload


def parse_payload(body: bytes) -> TransactionPayload:
    """The header fields and payload of a Transaction_payload body; ValueError naming the
    offset in the body when a field is cut, unknown in value, missing, or the payload's
    length differs from the size the header gives."""
    fields: dict[int, int] = {}
    offset = 0
    while True:
        field_type, offset = read_integer(body, offset)
        if field_type == HEADER_END_MARK:
            break
        length, offset = read_integer(body, offset)
        if field_type not in (PAYLOAD_SIZE_FIELD, COMPRESSION_TYPE_FIELD, UNCOMPRESSED_SIZE_FIELD):
            if offset + length > len(body):
                raise ValueError(f"Transaction_payload header field {field_type} at offset {offset} runs past the body ({length} bytes)")
            offset += length
            continue
        start = offset
        fields[field_type], offset = read_integer(body, offset)
        if offset - start != length:
            raise ValueError(f"Transaction_payload header field {field_type} at offset {start}: length {length}, value takes {offset - start} bytes")
    if PAYLOAD_SIZE_FIELD not in fields or COMPRESSION_TYPE_FIELD not in fields:
        raise ValueError("Transaction_payload header lacks its payload size or compression type field")
    try:
        compression = PayloadCompression(fields[COMPRESSION_TYPE_FIELD])
    except ValueError:
        raise ValueError(f"Transaction_payload compression type {fields[COMPRESSION_TYPE_FIELD]} is not ZSTD (0) or NONE (255)") from None
    size = fields[PAYLOAD_SIZE_FIELD]
    if len(body) - offset != size:
        raise ValueError(f"Transaction_payload payload size {size} at offset {offset}, the body holds {len(body) - offset} bytes")
    # The server defaults a missing (or zero) uncompressed size to the payload size.
    uncompressed = fields.get(UNCOMPRESSED_SIZE_FIELD) or size
    return TransactionPayload(compression, size, uncompressed, bytes(body[offset:]), offset)


def decompress(payload: TransactionPayload) -> bytes:
    """The inner events of `payload`, exactly its uncompressed size of them; ValueError
    when the frame is corrupt or decompresses to another size (never more is read)."""
    if payload.compression is PayloadCompression.NONE:
        data = payload.payload
    else:
        data = _zstd_decompress(payload.payload, payload.uncompressed_size)
    if len(data) != payload.uncompressed_size:
        raise ValueError(f"Transaction_payload decompresses to {len(data)} bytes, its header says {payload.uncompressed_size}")
    return data


def _zstd_decompress(frame: bytes, expected: int) -> bytes:
    """One zstd frame, read in chunks and stopped one byte past `expected`."""
    out = bytearray()
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(frame)) as reader:
            while len(out) <= expected:
                chunk = reader.read(min(_CHUNK, expected + 1 - len(out)))
                if not chunk:
                    break
                out += chunk
    except zstandard.ZstdError as error:
        raise ValueError(f"Transaction_payload zstd frame is corrupt: {error}") from None
    return bytes(out)


def inner_events(body: bytes) -> bytes:
    """The concatenated inner events of a Transaction_payload body (log_pos 0, no CRC)."""
    data = decompress(parse_payload(body))
    split_inner_events(data)  # every event whole, or a ValueError naming the one that is not
    return data


def split_inner_events(data: bytes) -> list[bytes]:
    """The inner events one by one, by each common header's event_size; ValueError naming
    the offset of an event that is cut or declares a size below the common header's."""
    events = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < COMMON_HEADER_LENGTH:
            raise ValueError(f"inner event at offset {offset} is cut inside its common header")
        (size,) = struct.unpack_from("<I", data, offset + _EVENT_SIZE_OFFSET)
        if size < COMMON_HEADER_LENGTH or offset + size > len(data):
            raise ValueError(f"inner event at offset {offset} declares {size} bytes, {len(data) - offset} remain")
        events.append(data[offset : offset + size])
        offset += size
    return events


def build_payload(inner: bytes, compression: PayloadCompression = PayloadCompression.ZSTD, level: int = ZSTD_DEFAULT_LEVEL) -> bytes:
    """A Transaction_payload body for the inner events `inner`, as MySQL 8.0 writes it:
    the header fields in the server's order, then the payload. The zstd frame is a
    stream of unknown size without checksum, flushed and then ended (an empty last
    block), as the server's compressor does."""
    if compression is PayloadCompression.NONE:
        payload = inner
    else:
        compressor = zstandard.ZstdCompressor(level=level, write_content_size=False, write_checksum=False).compressobj()
        payload = compressor.compress(inner) + compressor.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) + compressor.flush(zstandard.COMPRESSOBJ_FLUSH_FINISH)
    header = _field(COMPRESSION_TYPE_FIELD, compression)
    if compression is not PayloadCompression.NONE:
        header += _field(UNCOMPRESSED_SIZE_FIELD, len(inner))
    header += _field(PAYLOAD_SIZE_FIELD, len(payload)) + pack_integer(HEADER_END_MARK)
    return header + payload


def _field(field_type: int, value: int) -> bytes:
    packed = pack_integer(value)
    return pack_integer(field_type) + pack_integer(len(packed)) + packed
