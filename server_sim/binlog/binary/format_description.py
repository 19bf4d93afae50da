"""The Format_description event: per flavor, the server version, the post-header length
of every event type the server knows, and the checksum algorithm.

The tables are the servers' (MySQL 8.0.28+ knows 41 types, MariaDB 10.11 171); a reader
takes them from the file's own Format_description instead, so a file from another
version reads by what it declares.
"""

from __future__ import annotations

from ..events import Format_description_log_event, Log_event
from .codec import MARIADB, MYSQL, EventCodec, FormatContext, header_fields
from .header import BINLOG_CHECKSUM_ALG_CRC32, CHECKSUM_LENGTH, EventHeader
from .packing import Cursor, EventDecodeError, u8, u16, u32

FORMAT_DESCRIPTION_TYPE = 15
SERVER_VERSION_LENGTH = 50
_FIXED = 2 + SERVER_VERSION_LENGTH + 4 + 1

POST_HEADER_LENGTHS: dict[str, tuple[int, ...]] = {
    MYSQL: (0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0),
    MARIADB: (
        56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 228, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10,
        *(0,) * (159 - 32), 0, 4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10,
    ),
}
# character_set_client, collation_connection, collation_server of a Query event whose
# session did not say: utf8mb4 in each flavor's default collation.
_DEFAULT_CHARSET = {MYSQL: (255, 255, 255), MARIADB: (45, 45, 45)}


def default_charset(flavor: str) -> tuple[int, int, int]:
    return _DEFAULT_CHARSET[flavor]


def flavor_of(server_version: str) -> str:
    return MARIADB if "mariadb" in server_version.lower() else MYSQL


def format_description(flavor: str, server_version: str, server_id: int, timestamp: int, checksum_alg: int) -> Format_description_log_event:
    """The first event of a file the simulated master writes."""
    return Format_description_log_event(
        server_id=server_id,
        timestamp=timestamp,
        server_version=server_version,
        create_timestamp=timestamp,
        post_header_lengths=POST_HEADER_LENGTHS[flavor],
        checksum_alg=checksum_alg,
    )


def context_of(event: Format_description_log_event) -> FormatContext:
    return FormatContext(flavor_of(event.server_version), event.post_header_lengths, event.checksum_alg)


def encode_format_description(event: Log_event, ctx: FormatContext) -> bytes:
    assert isinstance(event, Format_description_log_event)
    version = event.server_version.encode()[:SERVER_VERSION_LENGTH].ljust(SERVER_VERSION_LENGTH, b"\0")
    lengths = bytes(event.post_header_lengths or POST_HEADER_LENGTHS[ctx.flavor])
    return u16(event.binlog_version) + version + u32(event.create_timestamp) + u8(event.header_length) + lengths + u8(event.checksum_alg)


def decode_format_description(body: bytes, header: EventHeader, ctx: FormatContext) -> Log_event:
    """The body here includes the algorithm byte; the CRC after it (always present on a
    v4 Format_description from a checksum-aware server) is the caller's."""
    cursor = Cursor(body)
    binlog_version = cursor.u16()
    if binlog_version != 4:
        raise EventDecodeError(f"binlog version {binlog_version}: only version 4 is read")
    version = cursor.take(SERVER_VERSION_LENGTH).split(b"\0", 1)[0].decode("ascii", "replace")
    create_timestamp, header_length = cursor.u32(), cursor.u8()
    if header_length != 19:
        raise EventDecodeError(f"common header length {header_length}, not 19")
    lengths = cursor.take(cursor.remaining - 1)
    alg = cursor.u8()
    if alg not in (0, BINLOG_CHECKSUM_ALG_CRC32):
        raise EventDecodeError(f"checksum algorithm {alg} is neither NONE (0) nor CRC32 (1)")
    return Format_description_log_event(
        **header_fields(header),
        server_version=version,
        create_timestamp=create_timestamp,
        header_length=header_length,
        post_header_lengths=tuple(lengths),
        checksum_alg=alg,
    )


def body_length_ok(size: int) -> bool:
    """A Format_description long enough for its fixed part, an algorithm byte and a CRC."""
    return size >= 19 + _FIXED + 1 + CHECKSUM_LENGTH


CODECS: dict[int, EventCodec] = {FORMAT_DESCRIPTION_TYPE: EventCodec(encode_format_description, decode_format_description)}
