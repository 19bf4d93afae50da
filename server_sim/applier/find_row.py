"""Finding the slave row a before image designates: seed 003's find_row, per flavor.

The search goes primary key, unique key, other key, table scan. A before image (BI)
arrives as slave column index -> value for the columns it carries that the slave has.
The flavor decides the rest (server-internals §3.2):

- MySQL 8.0 chooses once per event. A key is usable only when the BI holds all its
  columns; `slave_rows_search_algorithms` then picks an index scan, a hash scan (all BIs
  hashed, the table or index scanned once) or a table scan. Rows are compared on the BI's
  columns only.
- MariaDB 10.11 looks every row up on its own, through a key chosen without regard to the
  BI (absent key columns hold the slave's defaults), and compares every slave column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from server_sim.table import Column, DefaultKind, Key, Table
from server_sim.duckdb_connection import quote
from server_sim.flavor import Flavor
from server_sim.storage import Storage


class LookupPath(str, Enum):
    """How a row was found, as reported per row event."""

    PK = "pk"
    UNIQUE = "unique"
    KEY = "key"
    HASH = "hash"
    SCAN = "scan"


class SearchAlgorithm(str, Enum):
    """The members of slave_rows_search_algorithms."""

    TABLE_SCAN = "TABLE_SCAN"
    INDEX_SCAN = "INDEX_SCAN"
    HASH_SCAN = "HASH_SCAN"


def search_algorithms(setting: str | None) -> frozenset[SearchAlgorithm]:
    """The algorithms a slave_rows_search_algorithms value enables (None: the flavor has none)."""
    if setting is None:
        return frozenset()
    return frozenset(SearchAlgorithm(member) for member in setting.split(",") if member)


@dataclass(frozen=True)
class FoundRow:
    row_id: int
    values: tuple
    path: LookupPath


@dataclass(frozen=True)
class RowSearch:
    """The lookup chosen for one row event's before images: a path and the key it uses."""

    path: LookupPath
    key: Key | None


def _keys_in_server_order(table: Table) -> list[Key]:
    """PK first, then unique NOT NULL keys, then every other key (the servers sort them so)."""
    primary = table.primary_key
    rest = [key for key in table.keys if key is not primary]
    rest.sort(key=lambda key: not table.identifies_rows(key))
    return ([primary] if primary else []) + rest


def _path_of(table: Table, key: Key) -> LookupPath:
    if key is table.primary_key:
        return LookupPath.PK
    return LookupPath.UNIQUE if table.identifies_rows(key) else LookupPath.KEY


class RowFinder:
    """find_row for one slave table under one flavor's rules."""

    def __init__(self, storage: Storage, table: Table, flavor: Flavor, algorithms: frozenset[SearchAlgorithm]) -> None:
        self.storage = storage
        self.table = table
        self.flavor = flavor
        self.algorithms = algorithms

    # -- choosing the lookup -----------------------------------------------------------------

    def decide(self, present: Sequence[int]) -> RowSearch:
        """The lookup for an event whose before images carry the slave columns `present`."""
        table = self.table
        if not self.flavor.row_lookup_key_in_before_image:
            key = self._key_regardless_of_image()
            return RowSearch(_path_of(table, key), key) if key else RowSearch(LookupPath.SCAN, None)
        # MySQL's decide_row_lookup_algorithm_and_key(): only keys the BI covers.
        covered = set(present)
        key = next(
            (k for k in _keys_in_server_order(table) if all(table.column_index(c) in covered for c in k.columns)),
            None,
        )
        algorithms = self.algorithms
        if key is not None and SearchAlgorithm.INDEX_SCAN in algorithms and table.identifies_rows(key):
            return RowSearch(_path_of(table, key), key)
        if SearchAlgorithm.HASH_SCAN in algorithms:
            return RowSearch(LookupPath.HASH, key)
        if key is not None:
            return RowSearch(_path_of(table, key), key)
        return RowSearch(LookupPath.SCAN, None)

    def _key_regardless_of_image(self) -> Key | None:
        """MariaDB's find_key(): the first unique NOT NULL key, else the most selective key."""
        keys = _keys_in_server_order(self.table)
        if not keys:
            return None
        if self.table.identifies_rows(keys[0]):
            return keys[0]
        best, best_rows_per_value = keys[0], 0.0
        for key in keys:
            rows_per_value = self._rows_per_value(key)
            if rows_per_value > 0 and (best_rows_per_value == 0 or rows_per_value < best_rows_per_value):
                best, best_rows_per_value = key, rows_per_value
        return best

    def _rows_per_value(self, key: Key) -> float:
        """rec_per_key of the key's last part: rows per distinct value of the whole key."""
        columns = ", ".join(quote(c) for c in key.columns)
        rows, distinct = self.storage.query(
            f"SELECT count(*), count(DISTINCT ({columns})) FROM {self.storage.qualified(self.table)}"
        )[0]
        return rows / distinct if distinct else 0.0

    # -- looking rows up ---------------------------------------------------------------------

    def find(self, search: RowSearch, before: dict[int, object]) -> FoundRow | None:
        """The row one before image designates, through an index or a table scan."""
        key = search.key
        if key is None or search.path is LookupPath.HASH:
            return self._first_match(self._scan(), before, LookupPath.SCAN)
        record = self._record(before)
        indexes = [self.table.column_index(c) for c in key.columns]
        candidates = self._by_key(key, [record[i] for i in indexes])
        clustered_position = key is self.table.primary_key and self.table.engine.clustered
        unique_hit = key.unique and not any(record[i] is None for i in indexes)
        if clustered_position or unique_hit:
            # rnd_pos_by_record or a unique index read: the key alone designates the row.
            if not candidates:
                return None
            row_id, *values = candidates[0]
            return FoundRow(row_id, tuple(values), search.path)
        return self._first_match(candidates, before, search.path)

    def find_by_hash(self, search: RowSearch, images: list[dict[int, object]]) -> tuple[list[tuple[int, FoundRow]], list[int]]:
        """MySQL's hash scan: every before image of the event is hashed, the table (or the
        key's matching rows) is read once, and each row read takes the first pending image
        it matches. Returns (image index, row) in the order the rows were read, and the
        indexes of the images no row matched."""
        pending = [(index, self._compared(before)) for index, before in enumerate(images)]
        if search.key is not None:
            indexes = [self.table.column_index(c) for c in search.key.columns]
            values = list(dict.fromkeys(tuple(before[i] for i in indexes) for before in images))
            rows = [row for value in values for row in self._by_key(search.key, list(value))]
        else:
            rows = self._scan()
        found: list[tuple[int, FoundRow]] = []
        for row_id, *stored in rows:
            match = next((place for place, (_, wanted) in enumerate(pending) if _matches(stored, wanted)), None)
            if match is None:
                continue
            image_index, _ = pending.pop(match)
            found.append((image_index, FoundRow(row_id, tuple(stored), LookupPath.HASH)))
            if not pending:
                break
        return found, [index for index, _ in pending]

    def _record(self, before: dict[int, object]) -> list[object]:
        """The slave's default row with the before image unpacked over it."""
        return [before[index] if index in before else _default_value(column) for index, column in enumerate(self.table.columns)]

    def _compared(self, before: dict[int, object]) -> dict[int, object]:
        """What record_compare checks a candidate against: the BI's columns (MySQL), or
        every slave column, those the BI lacks at the slave's defaults (MariaDB)."""
        if self.flavor.row_compare_all_columns:
            return dict(enumerate(self._record(before)))
        return before

    def _first_match(self, rows: list[tuple], before: dict[int, object], path: LookupPath) -> FoundRow | None:
        wanted = self._compared(before)
        for row_id, *stored in rows:
            if _matches(stored, wanted):
                return FoundRow(row_id, tuple(stored), path)
        return None

    def _scan(self) -> list[tuple]:
        return self.storage.scan(self.table)

    def _by_key(self, key: Key, values: list[object]) -> list[tuple]:
        """An index read: rows whose key equals `values` (NULL matches NULL), in index order."""
        found = self.storage.mirrored_rows(self.table, key.columns, values)
        if found is not None:
            return found
        name = quote(self.table.name)
        where = " AND ".join(f"{name}.{quote(c)} IS NOT DISTINCT FROM ?" for c in key.columns)
        order = ", ".join([*(f"{name}.{quote(c)}" for c in key.columns), self.storage.physical_order(self.table)])
        return self.storage.rows(self.table, where, order, parameters=values)


def _default_value(column: Column) -> object:
    if column.default_kind is DefaultKind.VALUE and not column.auto_increment:
        return column.default
    return column.type.implicit_default()


def _matches(stored: Sequence[object], wanted: dict[int, object]) -> bool:
    """record_compare is byte-for-byte: string case matters here, unlike in key lookups."""
    return all(stored[index] == value for index, value in wanted.items())
