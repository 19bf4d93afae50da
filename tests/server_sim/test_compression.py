"""MariaDB's compressed events (log_bin_compress): the record, the table of compressed
types, and real MariaDB 10.11 binlogs read and written back byte for byte."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from server_sim.binlog.binary.compression import (
    COMPRESSED_EVENT_TYPES,
    CompressedPart,
    pack_compressed,
    record_offset,
    unpack_compressed,
)
from server_sim.binlog.events import Query_log_event, Rows_log_event
from server_sim.binlog.file import read_binlog
from tests.support import (
    ALL_TYPES_ROWS,
    ALL_TYPES_TABLE,
    MariaDBBinlogs,
    RawEvent,
    raw_events,
)

FORMAT_DESCRIPTION = 15
STATEMENTS = (
    ALL_TYPES_TABLE,
    *ALL_TYPES_ROWS,
    "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(40)) ENGINE=InnoDB",
    "INSERT INTO t (a) VALUES (1)",
    "INSERT INTO t VALUES (2, REPEAT('long enough to compress ', 1))",
    "UPDATE t SET b = REPEAT('z', 40)",
    "DELETE FROM t",
    "CREATE TABLE m (a INT) ENGINE=MyISAM",
    "INSERT INTO m VALUES (1)",
)
PLAIN_TYPES = {2, 23, 24, 25}


@pytest.mark.parametrize(
    ("length", "header"),
    [(1, "8101"), (255, "81ff"), (256, "820100"), (65535, "82ffff"), (65536, "83010000"), (16777216, "8401000000")],
)
def test_record_round_trip(length: int, header: str) -> None:
    data = bytes(range(256)) * (length // 256) + bytes(range(length % 256))
    record = pack_compressed(data)
    assert record.hex().startswith(header)
    assert record[len(header) // 2 :] == zlib.compress(data)
    assert unpack_compressed(record + b"trailing") == (data, len(record))


GOOD = pack_compressed(b"INSERT INTO t VALUES (1)")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the data is empty"),
        (b"\x01\x05" + GOOD[2:], r"header 0x01 is not 0x80 \| 1-4"),
        (b"\x91" + GOOD[1:], r"header 0x91 is not"),
        (b"\xc1" + GOOD[1:], r"header 0xc1 is not"),
        (b"\x80" + GOOD[1:], r"header 0x80 is not"),
        (b"\x85" + GOOD[1:], r"header 0x85 is not"),
        (b"\x83\x00", "cut inside its 3-byte length"),
        (b"\x81\x00" + GOOD[2:], "original length of 0"),
        (GOOD[:2] + b"not zlib at all", "zlib stream is corrupt"),
        (GOOD[:-6], "zlib stream is cut after"),
        (GOOD[:1] + bytes([GOOD[1] + 1]) + GOOD[2:], "inflates to 24 bytes, its header says 25"),
        (GOOD[:1] + bytes([GOOD[1] - 1]) + GOOD[2:], "inflates to 24 bytes, its header says 23"),
    ],
    ids=["empty", "no-flag", "other-algorithm", "bits-5-6", "no-length", "length-5", "cut-length", "zero", "not-zlib", "cut-stream", "shorter", "longer"],
)
def test_bad_records_are_value_errors(data: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        unpack_compressed(data)


def test_the_server_ignores_bit_3_of_the_header() -> None:
    assert unpack_compressed(bytes([GOOD[0] | 0x08]) + GOOD[1:]) == (b"INSERT INTO t VALUES (1)", len(GOOD))


@pytest.mark.parametrize(
    ("type_code", "name", "uncompressed"),
    [(165, "Query_compressed", 2), (166, "Write_rows_compressed_v1", 23), (167, "Update_rows_compressed_v1", 24), (168, "Delete_rows_compressed_v1", 25),
     (169, "Write_rows_compressed", 30), (170, "Update_rows_compressed", 31), (171, "Delete_rows_compressed", 32)],
)
def test_compressed_types(type_code: int, name: str, uncompressed: int) -> None:
    entry = COMPRESSED_EVENT_TYPES[type_code]
    assert (entry.name, entry.uncompressed_type, entry.part is CompressedPart.QUERY_TEXT) == (name, uncompressed, type_code == 165)


@pytest.mark.parametrize(
    ("type_code", "body", "post_header", "offset"),
    [
        (165, bytes(8) + b"\x04" + bytes(2) + b"\x03\x00" + b"\x00\x01\x02" + b"test\x00" + b"\x81", 13, 21),
        (166, bytes(8) + b"\x09" + b"\xff\x01" + b"\x81", 8, 11),
        (167, bytes(8) + b"\x09" + b"\xff\x01\xff\x01" + b"\x81", 8, 13),
        (169, bytes(8) + b"\x04\x00\x00\x01" + b"\x03" + b"\x07" + b"\x81", 10, 14),
        (170, bytes(8) + b"\x02\x00" + b"\x03" + b"\x07\x07" + b"\x81", 10, 13),
    ],
    ids=["query", "write-v1", "update-v1", "write-v2-extra", "update-v2"],
)
def test_record_offset(type_code: int, body: bytes, post_header: int, offset: int) -> None:
    assert record_offset(COMPRESSED_EVENT_TYPES[type_code], body, post_header) == offset


@pytest.mark.parametrize(
    ("type_code", "body", "post_header", "message"),
    [
        (165, bytes(10), 13, "ends inside its 13-byte post-header"),
        (165, bytes(8) + b"\x04" + bytes(4) + b"test\x00", 13, "ends before its compressed record at offset 18"),
        (166, bytes(8), 8, "packed integer expected at offset 8"),
        (169, bytes(9), 10, "ends inside its post-header"),
        (167, bytes(8) + b"\x10" + bytes(4), 8, "ends before its compressed record at offset 13"),
    ],
)
def test_record_offset_errors(type_code: int, body: bytes, post_header: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        record_offset(COMPRESSED_EVENT_TYPES[type_code], body, post_header)


def post_header_lengths(events: list[RawEvent]) -> bytes:
    """The Format_description's post-header lengths (index = type - 1): after version,
    server version, timestamp and header length, before the checksum algorithm byte."""
    (description,) = [event for event in events if event.type_code == FORMAT_DESCRIPTION]
    return description.body[57:-1]


def original_body(event: RawEvent, lengths: bytes) -> tuple[int, bytes]:
    """A compressed event's plain type and body: its record replaced by the original bytes."""
    entry = COMPRESSED_EVENT_TYPES[event.type_code]
    offset = record_offset(entry, event.body, lengths[event.type_code - 1])
    original, used = unpack_compressed(event.body[offset:])
    assert used == len(event.body) - offset
    assert pack_compressed(original) == event.body[offset:], "not written back byte for byte"
    return entry.uncompressed_type, event.body[:offset] + original


def comparable(type_code: int, body: bytes) -> tuple[int, bytes]:
    """A Query without its thread id, its execution time (a loaded machine takes a second
    over a CREATE TABLE) and status variables (a DDL's carries its XID), a Rows event
    without its table id: what differs between two runs of the same statements."""
    if type_code == 2:
        return type_code, body[8:13] + body[13 + int.from_bytes(body[11:13], "little") :]
    return type_code, body[6:]


@pytest.mark.parametrize("checksum", ["CRC32", "NONE"])
@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT"])
def test_real_compressed_events_equal_the_plain_ones(mariadb_binlogs: MariaDBBinlogs, binlog_format: str, checksum: str) -> None:
    """The same statements with log_bin_compress ON and OFF: every compressed event, its
    record inflated, is the plain event of the other file; each record is rebuilt byte
    for byte; short events stay plain beside compressed ones."""
    settings = {"binlog_format": binlog_format, "binlog_checksum": checksum}
    compressed = raw_events(mariadb_binlogs.binlog(STATEMENTS, log_bin_compress="ON", log_bin_compress_min_len="10", **settings).read_bytes())
    plain = raw_events(mariadb_binlogs.binlog(STATEMENTS, **settings).read_bytes())
    lengths = post_header_lengths(compressed)
    seen = {event.type_code for event in compressed}
    assert seen & set(COMPRESSED_EVENT_TYPES) == ({165} if binlog_format == "STATEMENT" else {165, 166, 167, 168})
    # short events stay plain: the COMMIT of a MyISAM statement; rows of 5 and 9 bytes
    assert seen & PLAIN_TYPES == ({2} if binlog_format == "STATEMENT" else {2, 23, 25})
    inflated = [
        comparable(*original_body(event, lengths)) if event.type_code in COMPRESSED_EVENT_TYPES else comparable(event.type_code, event.body)
        for event in compressed
        if event.type_code in PLAIN_TYPES | set(COMPRESSED_EVENT_TYPES)
    ]
    assert inflated == [comparable(event.type_code, event.body) for event in plain if event.type_code in PLAIN_TYPES]


def test_default_minimum_length_leaves_short_statements_plain(mariadb_binlogs: MariaDBBinlogs) -> None:
    """With the default log_bin_compress_min_len (256) only the long statement is compressed."""
    events = raw_events(mariadb_binlogs.binlog(("CREATE TABLE t (a TEXT)", "INSERT INTO t VALUES ('a')", f"INSERT INTO t VALUES ('{'b' * 300}')"), log_bin_compress="ON", binlog_format="STATEMENT").read_bytes())
    lengths = post_header_lengths(events)
    queries = [(event.type_code, original_body(event, lengths)[1] if event.type_code == 165 else event.body) for event in events if event.type_code in (2, 165)]
    assert [(code, body.endswith(b"('a')"), b"b" * 300 in body) for code, body in queries if b"INSERT" in body] == [(2, True, False), (165, False, True)]


@pytest.mark.parametrize("checksum", ["CRC32", "NONE"])
@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT"])
def test_the_reader_reads_compressed_events_as_the_plain_ones(mariadb_binlogs: MariaDBBinlogs, binlog_format: str, checksum: str) -> None:
    """read_binlog of a log_bin_compress file gives the events of the same statements'
    plain file: statement texts, table maps and row images alike."""
    settings = {"binlog_format": binlog_format, "binlog_checksum": checksum}
    compressed = mariadb_binlogs.binlog(STATEMENTS, log_bin_compress="ON", log_bin_compress_min_len="10", **settings)
    plain = mariadb_binlogs.binlog(STATEMENTS, **settings)

    def changes(path: Path) -> list[tuple[str, object]]:
        shown = []
        for positioned in read_binlog(path):
            event = positioned.event
            if isinstance(event, Query_log_event):
                shown.append(("Query", event.query))
            elif isinstance(event, Rows_log_event):
                shown.append((type(event).__name__, [(row.before, row.after) for row in event.rows]))
        return shown

    assert changes(compressed) == changes(plain) != []
