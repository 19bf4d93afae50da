"""Hash indexes over a mirrored table's rows, one per column group asked about: the rows
holding given values of a key are found without scanning the table, so a statement that
checks a key per row (INSERT INTO t SELECT ... FROM t doubling t) is linear, not quadratic.

An index is built the first time its columns are asked about and kept up to date with
every row the mirror gains, changes or loses. Values are indexed by their collation
`equality_key`, so the index finds what the scan it replaces found; text only DuckDB
can compare (beyond ASCII) leaves a group without an index, and DuckDB answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..collation import equality_key
from ..declined import Declined

Positions = tuple[int, ...]


class KeyIndexes:
    """The indexes of one table's mirror: column positions -> key -> row ids."""

    def __init__(self) -> None:
        self._indexes: dict[Positions, dict[tuple, set[int]]] = {}
        self.builds = 0  # indexes built from the rows (each is one scan of the table)

    def holders(self, rows: Mapping[int, tuple], positions: Positions, values: Sequence[object]) -> list[int]:
        """Ids of the rows whose columns at `positions` equal `values`, in row id order;
        Declined when only DuckDB can compare them."""
        wanted = tuple(equality_key(value) for value in values)
        index = self._indexes.get(positions)
        if index is None:
            index = self._build(rows, positions)
        return sorted(index.get(wanted, ()))

    def _build(self, rows: Mapping[int, tuple], positions: Positions) -> dict[tuple, set[int]]:
        index: dict[tuple, set[int]] = {}
        for row_id, row in rows.items():
            index.setdefault(_key(row, positions), set()).add(row_id)  # Declined: no index
        self.builds += 1
        self._indexes[positions] = index
        return index

    def added(self, row_id: int, row: tuple) -> None:
        for positions, index in list(self._indexes.items()):
            try:
                index.setdefault(_key(row, positions), set()).add(row_id)
            except Declined:
                del self._indexes[positions]  # rebuilt, and declined, when next asked

    def removed(self, row_id: int, row: tuple) -> None:
        for positions, index in list(self._indexes.items()):
            try:
                key = _key(row, positions)
            except Declined:
                continue  # a row no index can hold: the indexes present do not hold it
            holders = index.get(key)
            if holders is not None:
                holders.discard(row_id)
                if not holders:
                    del index[key]

    def clear(self) -> None:
        self._indexes.clear()


def _key(row: tuple, positions: Positions) -> tuple:
    return tuple(equality_key(row[position]) for position in positions)
