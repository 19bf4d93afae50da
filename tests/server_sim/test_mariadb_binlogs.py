"""The binlogs the `mariadb_binlogs` fixture has a real MariaDB 10.11 write: each request's
settings take effect and its file holds its own statements only (what the binary codec's
and compression's tests rely on)."""

from __future__ import annotations

import pytest

from tests.support import ALL_TYPES_ROWS, ALL_TYPES_TABLE, MariaDBBinlogs, raw_events

ROTATE, FORMAT_DESCRIPTION, TABLE_MAP, GTID = 4, 15, 19, 162
STATEMENTS = (ALL_TYPES_TABLE, *ALL_TYPES_ROWS)


@pytest.mark.parametrize(
    ("settings", "algorithm", "rows_types", "column_names"),
    [
        ({}, 1, set(), False),
        ({"binlog_format": "ROW"}, 1, {23, 24, 25}, False),
        ({"binlog_format": "ROW", "binlog_checksum": "NONE"}, 0, {23, 24, 25}, False),
        ({"binlog_format": "ROW", "binlog_row_metadata": "FULL"}, 1, {23, 24, 25}, True),
        ({"binlog_format": "STATEMENT"}, 1, set(), False),
    ],
    ids=["mixed", "row", "row-checksum-none", "row-metadata-full", "statement"],
)
def test_settings_take_effect(mariadb_binlogs: MariaDBBinlogs, settings: dict[str, str], algorithm: int, rows_types: set[int], column_names: bool) -> None:
    data = mariadb_binlogs.binlog(STATEMENTS, **settings).read_bytes()
    events = raw_events(data)
    description = events[0]
    assert description.type_code == FORMAT_DESCRIPTION and description.body[2:9] == b"10.11.1"
    assert description.body[-1] == algorithm
    assert events[-1].type_code == ROTATE and events[-1].position + 19 + len(events[-1].body) + 4 * algorithm == len(data)
    assert {event.type_code for event in events} & {23, 24, 25} == rows_types
    table_maps = [event.body for event in events if event.type_code == TABLE_MAP]
    assert all((b"dtm6" in body) == column_names for body in table_maps)
    # the CREATE TABLE and the four statements: one GTID each, nothing from other requests
    assert sum(event.type_code == GTID for event in events) == 1 + len(ALL_TYPES_ROWS)


def test_equal_requests_share_one_file(mariadb_binlogs: MariaDBBinlogs) -> None:
    assert mariadb_binlogs.binlog(STATEMENTS, binlog_format="ROW") == mariadb_binlogs.binlog(list(STATEMENTS), binlog_format="ROW")
