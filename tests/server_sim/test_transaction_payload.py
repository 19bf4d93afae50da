"""MySQL's Transaction_payload (type 40): its header fields, the zstd payload, the inner
events; the real MySQL 8.0.32 file read and written back byte for byte."""

from __future__ import annotations

import struct

import pytest

from server_sim.binlog.binary.packed_integer import pack_integer, read_integer
from server_sim.binlog.binary.transaction_payload import (
    PayloadCompression,
    build_payload,
    decompress,
    inner_events,
    parse_payload,
    split_inner_events,
)
from tests.support import MYSQL_BINLOGS, raw_events

COMPRESSED_FILE = MYSQL_BINLOGS / "transaction_compression.000001"
TRANSACTION_PAYLOAD = 40


def inner_event(type_code: int, body: bytes) -> bytes:
    """An inner event as the server writes it inside a payload: log_pos 0, no CRC."""
    return struct.pack("<IBIIIH", 1_700_000_000, type_code, 1, 19 + len(body), 0, 0) + body


def test_empty_zstd_payload_reads_its_size_as_uncompressed_size() -> None:
    """The server writes uncompressed size 0 for an empty transaction and a reader takes
    0 as "the payload size": such a payload does not read back as empty."""
    body = build_payload(b"")
    assert parse_payload(body).uncompressed_size == parse_payload(body).payload_size > 0
    with pytest.raises(ValueError, match="decompresses to 0 bytes"):
        inner_events(body)


@pytest.fixture(scope="module")
def real_body() -> bytes:
    if not COMPRESSED_FILE.is_file():
        pytest.skip(f"{COMPRESSED_FILE} absent")
    (event,) = [event for event in raw_events(COMPRESSED_FILE.read_bytes()) if event.type_code == TRANSACTION_PAYLOAD]
    return event.body


@pytest.mark.parametrize(
    ("value", "packed"),
    [
        (0, "00"),
        (250, "fa"),
        (251, "fcfb00"),
        (65535, "fcffff"),
        (65536, "fd000001"),
        (16777215, "fdffffff"),
        (16777216, "fe0000000100000000"),
        ((1 << 64) - 1, "feffffffffffffffff"),
    ],
)
def test_packed_integer(value: int, packed: str) -> None:
    assert pack_integer(value).hex() == packed
    assert read_integer(bytes.fromhex(packed) + b"\x99", 0) == (value, len(packed) // 2)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("", "data ends there"),
        ("fb", "does not start a packed integer"),
        ("ff", "does not start a packed integer"),
        ("fc01", "needs 3 bytes, 2 left"),
        ("fe0102030405", "needs 9 bytes, 6 left"),
    ],
)
def test_packed_integer_errors(data: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_integer(bytes.fromhex(data), 0)


def test_real_payload_header(real_body: bytes) -> None:
    payload = parse_payload(real_body)
    assert (payload.compression, payload.payload_size, payload.uncompressed_size, payload.header_length) == (PayloadCompression.ZSTD, 124, 179, 10)


def test_real_payload_inner_events(real_body: bytes) -> None:
    events = split_inner_events(inner_events(real_body))
    # BEGIN, Table_map, Write_rows v2, Xid: log_pos 0 each, sizes adding up to 179
    assert [(event[4], struct.unpack_from("<I", event, 13)[0]) for event in events] == [(2, 0), (19, 0), (30, 0), (16, 0)]
    assert b"BEGIN" in events[0]
    assert sum(len(event) for event in events) == 179


def test_real_payload_written_back_byte_exact(real_body: bytes) -> None:
    assert build_payload(inner_events(real_body)) == real_body


@pytest.mark.parametrize("compression", list(PayloadCompression))
@pytest.mark.parametrize("sizes", [[0], [5, 40], [300], [70_000, 3]], ids=["header-only", "small", "over-250", "over-65535"])
def test_round_trip(compression: PayloadCompression, sizes: list[int]) -> None:
    inner = b"".join(inner_event(30, bytes(range(256)) * (size // 256) + bytes(size % 256)) for size in sizes)
    body = build_payload(inner, compression)
    payload = parse_payload(body)
    assert (payload.compression, payload.uncompressed_size, decompress(payload)) == (compression, len(inner), inner)
    assert inner_events(body) == inner


def test_none_leaves_out_the_uncompressed_size() -> None:
    inner = inner_event(16, bytes(8))
    # compression type NONE (255 packed in 3 bytes), payload size 27, end mark
    assert build_payload(inner, PayloadCompression.NONE) == bytes.fromhex("0203fcff00") + bytes.fromhex("01011b00") + inner


def test_unknown_header_field_is_skipped() -> None:
    inner = inner_event(16, bytes(8))
    body = bytes.fromhex("0203fcff00") + bytes.fromhex("0903aabbcc") + bytes.fromhex("01011b00") + inner
    assert inner_events(body) == inner


GOOD = build_payload(inner_event(16, bytes(8)) * 3)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "data ends there"),
        (bytes.fromhex("0201"), "data ends there"),
        (bytes.fromhex("02010701010000"), "compression type 7 is not ZSTD"),
        (bytes.fromhex("02020000"), "length 2, value takes 1 bytes"),
        (bytes.fromhex("0201ff"), "does not start a packed integer"),
        (bytes.fromhex("01010000"), "lacks its payload size or compression type"),
        (bytes.fromhex("0905aa00"), "runs past the body"),
        (GOOD[:-1], "the body holds"),
        (GOOD + b"\x00", "the body holds"),
        (GOOD[:12] + bytes([GOOD[12] ^ 0xFF]) + GOOD[13:], "zstd frame is corrupt|decompresses to"),
        (bytes.fromhex("0201000303fcff00") + GOOD[6:], "decompresses to 81 bytes, its header says 255"),
        (bytes.fromhex("020100030150") + GOOD[6:], "decompresses to 81 bytes, its header says 80"),
        (bytes.fromhex("0203fcff0001011400") + inner_event(16, bytes(1))[:9] + bytes.fromhex("0a000000") + bytes(7), "declares 10 bytes"),
        (bytes.fromhex("0203fcff0001011400") + inner_event(16, bytes(8))[:20], "declares 27 bytes, 20 remain"),
        (bytes.fromhex("0203fcff0001010c00") + bytes(12), "cut inside its common header"),
    ],
    ids=[
        "empty", "cut-field", "unknown-compression", "length-mismatch", "bad-packed-value", "missing-compression",
        "unknown-field-past-end", "payload-cut", "payload-extra", "frame-corrupt", "uncompressed-size-larger",
        "uncompressed-size-smaller", "inner-size-mismatch", "inner-event-cut", "inner-header-cut",
    ],
)
def test_bad_bodies_are_value_errors(body: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        inner_events(body)
