"""MySQL 8.0's binary JSON and partial JSON diffs: values built here, and the JSON columns
of real MySQL 8.0.22 and 9.0.1 binlogs decoded and encoded back byte for byte."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pytest

from server_sim.binlog.binary.json_binary import (
    JsonDiff,
    JsonDecimal,
    JsonDiffOperation,
    JsonOpaque,
    JsonTimestamp,
    JsonUint,
    decode_json_binary,
    decode_json_diff,
    encode_json_binary,
)
from server_sim.binlog.binary.packed_integer import read_integer
from tests.support import MYSQL_BINLOGS, raw_events

TABLE_MAP, WRITE_ROWS, UPDATE_ROWS, PARTIAL_UPDATE_ROWS = 19, 30, 31, 39
INT, VARCHAR, JSON = 3, 15, 245


def row_values(body: bytes, offset: int, types: list[int], present: list[int]) -> tuple[dict[int, bytes | int | None], int]:
    """One row image of a test table (INT, VARCHAR(100) utf8mb4 and JSON columns only):
    column index -> value (JSON as its bytes), and the offset after it."""
    nulls = int.from_bytes(body[offset : offset + (len(present) + 7) // 8], "little")
    offset += (len(present) + 7) // 8
    values: dict[int, bytes | int | None] = {}
    for position, column in enumerate(present):
        if nulls >> position & 1:
            values[column] = None
        elif types[column] == INT:
            values[column], offset = struct.unpack_from("<i", body, offset)[0], offset + 4
        elif types[column] == VARCHAR:
            length = struct.unpack_from("<H", body, offset)[0]
            values[column], offset = body[offset + 2 : offset + 2 + length], offset + 2 + length
        else:
            length = struct.unpack_from("<I", body, offset)[0]
            values[column], offset = body[offset + 4 : offset + 4 + length], offset + 4 + length
    return values, offset


def bitmap(body: bytes, offset: int, width: int) -> tuple[list[int], int]:
    bits = int.from_bytes(body[offset : offset + (width + 7) // 8], "little")
    return [column for column in range(width) if bits >> column & 1], offset + (width + 7) // 8


def json_rows(name: str) -> list[tuple[str, dict, dict]]:
    """(event kind, before image, after image) of every row of a file's row events; a
    partial update's after image holds its JSON columns' diffs as ("diff", bytes)."""
    path = MYSQL_BINLOGS / name
    if not path.is_file():
        pytest.skip(f"{path} absent")
    rows, types = [], []
    for event in raw_events(path.read_bytes()):
        body = event.body
        if event.type_code == TABLE_MAP:
            at = 8 + 1 + body[8] + 1
            at += 1 + body[at] + 1
            width, at = read_integer(body, at)
            types = list(body[at : at + width])
        elif event.type_code in (WRITE_ROWS, UPDATE_ROWS, PARTIAL_UPDATE_ROWS):
            offset = 8 + struct.unpack_from("<H", body, 8)[0]
            width, offset = read_integer(body, offset)
            present, offset = bitmap(body, offset, width)
            after_present, offset = bitmap(body, offset, width) if event.type_code != WRITE_ROWS else (present, offset)
            while offset < len(body):
                before, offset = row_values(body, offset, types, present) if event.type_code != WRITE_ROWS else ({}, offset)
                partial: list[int] = []
                if event.type_code == PARTIAL_UPDATE_ROWS:
                    options, offset = read_integer(body, offset)
                    json_columns = [column for column in after_present if types[column] == JSON]
                    if options & 1:
                        partial, offset = bitmap(body, offset, len(json_columns))
                        partial = [json_columns[index] for index in partial]
                after, offset = row_values(body, offset, types, after_present)
                for column in partial:
                    after[column] = ("diff", after[column])
                rows.append((event.type_code, before, after))
    return rows


def json_values(name: str) -> list[bytes]:
    return [value for _, before, after in json_rows(name) for image in (before, after) for column, value in image.items() if isinstance(value, bytes) and column in json_columns(name)]


def json_columns(name: str) -> set[int]:
    return {1} if name.startswith("json.binlog") else {0}


@pytest.mark.parametrize("name", ["json.binlog.000001", "json-opaque.binlog"])
def test_every_real_json_value_decodes_and_encodes_back_byte_for_byte(name: str) -> None:
    values = json_values(name)
    assert values
    for data in values:
        assert encode_json_binary(decode_json_binary(data)) == data, decode_json_binary(data)


def test_the_generated_columns_equal_the_decoded_documents() -> None:
    """t.name and t.age are generated from json_col ($.name, $.age): the server's own reading
    of each document, and of each partial update's new age."""
    rows = json_rows("json.binlog.000001")
    documents = [(decode_json_binary(image[1]), image[2].decode("utf-8"), image[3]) for _, before, after in rows for image in (before, after) if isinstance(image.get(1), bytes)]
    assert len(documents) == 18  # 6 inserts, 6 updates with their before images
    assert all(document["name"] == name and document["age"] == age for document, name, age in documents)
    partial = [(decode_json_diff(after[1][1]), after[3]) for kind, _, after in rows if kind == PARTIAL_UPDATE_ROWS]
    assert [diffs for diffs, _ in partial] == [[JsonDiff(JsonDiffOperation.REPLACE, "$.age", age)] for _, age in partial]
    assert [age for _, age in partial] == [26, 34, 42, 26, 34, 42]


def test_real_opaque_values_decode_as_mysql_holds_them() -> None:
    decoded = [decode_json_binary(value) for value in json_values("json-opaque.binlog")]
    assert decoded == [
        {"a": JsonOpaque(15, b"U")},
        {"b": dt.date(2012, 3, 18)},
        {"c": dt.datetime(2012, 3, 18, 11, 30, 45)},
        {"c": dt.timedelta(hours=87, minutes=31, seconds=46, microseconds=654321)},
        {"d": Decimal("123.456")},
        {"e": Decimal("9.00")},
        {"e": [0, 1, True, False]},
        {"e": None},
    ]
    assert str(decoded[0]["a"]) == "base64:type15:VQ=="
    assert decoded[5]["e"].precision == 11  # stored as DECIMAL(11,2): kept for the bytes


@pytest.mark.parametrize(
    ("value", "data"),
    [
        (None, "0400"),
        (True, "0401"),
        (False, "0402"),
        (1, "050100"),
        (-1, "05ffff"),
        (32768, "0700800000"),
        (-2147483649, "09ffffff7fffffffff"),
        (2**63, "0a0000000000000080"),
        (JsonUint(5), "060500"),
        (JsonUint(70000), "0870110100"),
        (2.5, "0b0000000000000440"),
        ("abc", "0c03616263"),
        ("é" * 100, "0cc801" + "c3a9" * 100),
        ([], "0200000400"),
        ({}, "0000000400"),
        ({"b": 1, "aa": None}, "0002001500" + "12000100" + "13000200" + "050100" + "040000" + "62" + "6161"),
        ([-2, "x"], "020200" + "0c00" + "05feff" + "0c0a00" + "0178"),
        (Decimal("-1.50"), "0ff60403" + "02" + "7ecd"),
        (JsonDecimal("0.5", 2), "0ff60402" + "01" + "8005"),
        (dt.date(2012, 3, 18), "0f0a08" + "0000000000e48b19"),
        (JsonTimestamp(2012, 3, 18, 11, 30, 45), "0f0708" + "000000adb7e48b19"),
        (-dt.timedelta(hours=1, microseconds=1), "0f0b08" + "ffffffffefffffff"),
        (JsonOpaque(252, b"\x00\x01"), "0ffc020001"),
    ],
    ids=lambda value: repr(value)[:30],
)
def test_encoding(value: object, data: str) -> None:
    assert encode_json_binary(value).hex() == data
    assert decode_json_binary(bytes.fromhex(data)) == value


def test_a_container_too_big_for_the_small_form_is_large_and_so_are_its_small_parents() -> None:
    big = "x" * 70_000
    data = encode_json_binary({"a": [big], "b": [1]})
    assert data[0] == 0x01  # large object
    assert decode_json_binary(data) == {"a": [big], "b": [1]}
    # value entries after the 9-byte header and two 6-byte key entries: "a" a large array,
    # "b" a small one (a child of a large container tries the small form first)
    assert (data[21], data[26]) == (0x03, 0x02)
    assert encode_json_binary([1, [2]])[0] == 0x02


def random_value(generator, depth: int = 0) -> object:
    choice = generator.randrange(12 if depth < 4 else 8)
    scalars = [
        None, generator.random() < 0.5, generator.randint(-40000, 40000), generator.randint(-(2**63), 2**63 - 1),
        JsonUint(generator.randrange(2**64)), generator.uniform(-1e9, 1e9), "".join(generator.choice("aé€🙂\"\\") for _ in range(generator.randrange(6))),
        Decimal(generator.randint(-(10**12), 10**12)).scaleb(-generator.randrange(8)),
    ]
    if choice < len(scalars):
        return scalars[choice]
    if choice < 10:
        return [random_value(generator, depth + 1) for _ in range(generator.randrange(5))]
    return {"".join(generator.choice("abc") for _ in range(generator.randrange(4))): random_value(generator, depth + 1) for _ in range(generator.randrange(5))}


def test_random_values_round_trip() -> None:
    import random

    generator = random.Random(19)
    for _ in range(500):
        value = random_value(generator)
        data = encode_json_binary(value)
        assert decode_json_binary(data) == value
        assert encode_json_binary(decode_json_binary(data)) == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("0d", "type 0x0d"),
        ("05ff", "integer at offset 1 needs 2 bytes, 1 left"),
        ("0403", "literal 0x03"),
        ("0c05616263", "string at offset 2 needs 5 bytes, 3 left"),
        ("0c80808080807f", "variable length at offset 1 is malformed"),
        ("0c02c328", "not UTF-8"),
        ("0201000700", "container at offset 1 needs 7 bytes"),
        ("02010007000cff00", "value offset 255 at offset 6 is past its container"),
        ("02010007000c0700", "value offset 7 at offset 6 is past its container"),
        ("0ff6020b02", r"DECIMAL\(11,2\) value has 0 bytes"),
        ("0f0a0400000000", "temporal value of type 10 has 4 bytes"),
        ("0f0a08" + "0000000000000000", "not a date Python holds"),
    ],
)
def test_bad_bytes_are_value_errors(data: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_json_binary(bytes.fromhex(data))


def test_deep_nesting_is_a_value_error_not_a_recursion_error() -> None:
    deep: list = []
    for _ in range(150):
        deep = [deep]
    with pytest.raises(ValueError, match="nested deeper than 100"):
        encode_json_binary(deep)
    inner = bytes.fromhex("00000400")  # [] without its type byte
    for _ in range(150):
        inner = struct.pack("<HH", 1, 7 + len(inner)) + bytes((0x02,)) + struct.pack("<H", 7) + inner
    with pytest.raises(ValueError, match="nested deeper than 100"):
        decode_json_binary(bytes((0x02,)) + inner)


@pytest.mark.parametrize(("value", "message"), [({1: 2}, "key 1 is not a string"), (dt.time(1), "time is not a JSON value"), (2**64, "does not fit 64 bits"), (Decimal("NaN"), "not a number"), (float("inf"), "no number inf")])
def test_values_that_are_not_json_are_value_errors(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        encode_json_binary(value)


def test_flipped_bytes_of_real_values_decode_or_raise_value_error() -> None:
    import random

    generator = random.Random(2026)
    values = json_values("json.binlog.000001") + json_values("json-opaque.binlog")
    for _ in range(3000):
        data = bytearray(generator.choice(values))
        for _ in range(generator.randrange(1, 4)):
            data[generator.randrange(len(data))] = generator.randrange(256)
        cut = bytes(data[: generator.randrange(1, len(data) + 1)])
        try:
            decode_json_binary(cut)
        except ValueError:
            pass


@pytest.mark.parametrize(
    ("data", "diffs"),
    [
        ("0005242e6167650305" + "1a00", [JsonDiff(JsonDiffOperation.REPLACE, "$.age", 26)]),
        ("0104245b305d" + "020401" + "0203242e61", [JsonDiff(JsonDiffOperation.INSERT, "$[0]", True), JsonDiff(JsonDiffOperation.REMOVE, "$.a")]),
        ("", []),
    ],
)
def test_json_diffs(data: str, diffs: list[JsonDiff]) -> None:
    assert decode_json_diff(bytes.fromhex(data)) == diffs


@pytest.mark.parametrize(
    ("data", "message"),
    [("03", "operation 3"), ("0005242e61", "path at offset 2 runs past"), ("0001240905", "value at offset 4 runs past"), ("00", "data ends there")],
)
def test_bad_json_diffs(data: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_json_diff(bytes.fromhex(data))
