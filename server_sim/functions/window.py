"""Window functions (`f(...) OVER (PARTITION BY ... ORDER BY ...)`) in a SELECT's list and
ORDER BY, as both servers place them; DuckDB evaluates them as sqlglot renders them.

Only answers the engines cannot choose differently are modelled. RANK, DENSE_RANK and
the aggregates COUNT, SUM, MIN, MAX and AVG over the default frame give peers (rows the
ORDER BY ties) one value, so any order among them gives the same answer; PERCENT_RANK and
CUME_DIST are fractions each server rounds its own way (refused). ROW_NUMBER, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE and NTH_VALUE tell
tied rows apart: they are modelled where the window orders its one table's rows wholly
(its PARTITION BY and ORDER BY columns hold a primary key or a unique key of NOT NULL
columns), and refused elsewhere, as is a window inside another. Frames: a ROWS frame
needs that whole order too, a RANGE frame (peers come along) does not; both over
aggregates and FIRST_VALUE / LAST_VALUE / NTH_VALUE, with integer offsets. A named window
(WINDOW w AS ...) is the specification a function's OVER w completes. A window function elsewhere (WHERE,
GROUP BY, HAVING, an UPDATE's SET, VALUES) is the server's error: MySQL's 3593 or
MariaDB's 4015. The rows of a SELECT computing one come in the order of the server's
window sort, not the table's scan: where that order matters (INSERT ... SELECT, LIMIT) the
SELECT must ORDER BY a key that identifies a row (`refuse_unordered_windows`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported
from ..flavor import Flavor
from .division import average
from .library import SqlFunction, Translating

# Window functions whose value is the same for every row of a set of peers.
_PEER_ALIKE: tuple[type[exp.Expression], ...] = (exp.Rank, exp.DenseRank)
# Fractions the servers compute each to its own precision (MariaDB 10.11 keeps 10 digits, recorded).
_FRACTIONS: tuple[type[exp.Expression], ...] = (exp.PercentRank, exp.CumeDist)
_AGGREGATES: tuple[type[exp.Expression], ...] = (exp.Count, exp.Sum, exp.Min, exp.Max, exp.Avg)
# Window functions that tell peers apart: their answer needs a whole order.
_ORDERED: tuple[type[exp.Expression], ...] = (exp.RowNumber, exp.Ntile, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)
WINDOW_NODES: tuple[type[exp.Expression], ...] = (exp.Window, *_PEER_ALIKE, *_FRACTIONS, *_ORDERED)

# The columns of each key that identifies a row of the table a node names.
UniqueKeys = Callable[[exp.Table], Sequence[tuple[str, ...]]]


def check_windows(tree: exp.Expression, flavor: Flavor, unique_keys: UniqueKeys) -> None:
    """Refuse or reject every window of `tree` (as written) the simulator does not model."""
    for node in tree.find_all(*_PEER_ALIKE, *_FRACTIONS, *_ORDERED):
        if not isinstance(node.parent, exp.Window):
            raise not_supported(f"{_name(node)}() without OVER")
    for window in tree.find_all(exp.Window):
        if window.arg_key == "windows":
            continue  # a named window's definition: checked where a function uses it
        function = window.this
        name = _name(function)
        select = _placed_in(window)
        if select is None:
            if flavor.window_placement_error == "ER_WINDOW_INVALID_WINDOW_FUNC_USE":
                raise SqlError(ErrorCode.ER_WINDOW_INVALID_WINDOW_FUNC_USE, name.lower())
            raise SqlError(ErrorCode.ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION)
        if window.find_ancestor(exp.Window) is not None or any(inner is not window for inner in window.find_all(exp.Window)):
            raise not_supported(f"a window function inside another ({window.sql(dialect='mysql')})")
        window = _effective(window, select)
        if isinstance(function, (exp.Lag, exp.Lead)) and function.args.get("default") is not None and not flavor.lag_lead_default:
            raise not_supported(f"{name}() with a default value (MariaDB's parser says 1064)")
        frame = window.args.get("spec")
        if frame is not None:
            _check_frame(frame, function, name, window, select, unique_keys)
        if isinstance(function, _PEER_ALIKE) or (isinstance(function, _AGGREGATES) and not isinstance(function.this, exp.Distinct)):
            continue
        if isinstance(function, _FRACTIONS):
            raise not_supported(f"{name}() (a fraction each server rounds to its own precision)")
        if not isinstance(function, _ORDERED):
            raise not_supported(f"{name}() as a window function")
        if not _wholly_ordered(window, select, unique_keys):
            raise not_supported(TIED.format(name))


TIED = (
    "{}() over rows its PARTITION BY and ORDER BY leave tied (the engines order ties as each chooses;"
    " order by a primary or NOT NULL unique key of the one table read)"
)


def _effective(window: exp.Window, select: exp.Select) -> exp.Window:
    """The window a function runs over: its own specification, on the named window it
    refers to (`OVER w`, `OVER (w ORDER BY ...)`), which it may complete but not change
    (MySQL's 3581-3583 and MariaDB's rules, not modelled: refused)."""
    name = window.args.get("alias")
    if name is None:
        return window
    named = {definition.this.name.lower(): definition for definition in select.args.get("windows") or [] if isinstance(definition.this, exp.Identifier)}
    base = named.get(name.name.lower())
    if base is None or base.args.get("alias") is not None:
        raise not_supported(f"the window {name.name} (unknown, or defined on another named window)")
    effective = window.copy()
    effective.set("alias", None)
    for part in ("partition_by", "order", "spec"):
        own, inherited = window.args.get(part), base.args.get(part)
        if own and inherited:
            raise not_supported(f"a window that changes the {part.replace('_', ' ').upper()} of the named window {name.name}")
        if inherited:
            effective.set(part, inherited.copy() if isinstance(inherited, exp.Expression) else [item.copy() for item in inherited])
    return effective


def _check_frame(frame: exp.WindowSpec, function: exp.Expression, name: str, window: exp.Window, select: exp.Select, unique_keys: UniqueKeys) -> None:
    """A frame (ROWS / RANGE BETWEEN ...) over an aggregate or FIRST_VALUE / LAST_VALUE /
    NTH_VALUE: ROWS counts rows, so it needs an order without ties; RANGE takes a row's
    peers along, so an aggregate over it is the same whatever their order. Offsets are
    integer literals (a RANGE's over one ORDER BY item, as both servers require)."""
    written = frame.sql(dialect="mysql")
    if not isinstance(function, (*_AGGREGATES, exp.FirstValue, exp.LastValue, exp.NthValue)):
        raise not_supported(f"a window frame ({written}) on {name}(), which does not read one")
    if frame.args.get("exclude") is not None:
        raise not_supported(f"a window frame's EXCLUDE ({written})")
    offsets = [frame.args.get(side) for side in ("start", "end") if isinstance(frame.args.get(side), exp.Expression)]
    if any(not (isinstance(offset, exp.Literal) and offset.is_int) for offset in offsets):
        raise not_supported(f"a window frame offset other than an integer ({written})")
    order = window.args.get("order")
    if frame.args.get("kind") == "RANGE" and offsets and (order is None or len(order.expressions) != 1):
        raise not_supported(f"a RANGE frame with offsets over other than one ORDER BY item ({written})")
    if frame.args.get("kind") == "ROWS" and not _wholly_ordered(window, select, unique_keys):
        raise not_supported(f"a ROWS frame ({written}) over rows its PARTITION BY and ORDER BY leave tied (order by a primary or NOT NULL unique key of the one table read)")


def _name(node: exp.Expression) -> str:
    return node.sql(dialect="mysql").split("(", 1)[0].upper()


def _placed_in(window: exp.Window) -> exp.Select | None:
    """The SELECT whose list or ORDER BY holds `window`; None if it stands anywhere else."""
    child: exp.Expression = window
    parent = window.parent
    while parent is not None and not isinstance(parent, exp.Select):
        child, parent = parent, parent.parent
    if parent is None:
        return None
    return parent if child.arg_key in ("expressions", "order") else None


def _wholly_ordered(window: exp.Window, select: exp.Select, unique_keys: UniqueKeys) -> bool:
    """Whether the window's PARTITION BY and ORDER BY columns hold a key of the SELECT's one table."""
    items = list(window.args.get("partition_by") or [])
    order = window.args.get("order")
    items += [ordered.this for ordered in order.expressions] if order is not None else []
    return orders_wholly(select, items, unique_keys)


def orders_wholly(select: exp.Select, items: Sequence[exp.Expression], unique_keys: UniqueKeys) -> bool:
    """Whether sorting the rows of `select`'s one table by `items` leaves no two tied: the
    items' columns hold a key that identifies a row."""
    source = select.args.get("from_")
    if source is None or select.args.get("joins") or not isinstance(source.this, exp.Table):
        return False
    table = source.this
    names = {table.alias_or_name, table.name}
    columns = {item.name.lower() for item in items if isinstance(item, exp.Column) and (not item.table or item.table in names)}
    return any(key and all(column.lower() in columns for column in key) for key in unique_keys(table))


def refuse_unordered_windows(query: exp.Expression, unique_keys: UniqueKeys) -> None:
    """A SELECT computing a window function gives its rows in the order of the server's
    window sort, whose ties each engine breaks as it chooses: where that order matters (the
    rows an INSERT ... SELECT writes, a LIMIT) its ORDER BY must identify a row."""
    if not isinstance(query, exp.Select) or query.find(exp.Window) is None:
        return
    order = query.args.get("order")
    if order is not None and orders_wholly(query, [ordered.this for ordered in order.expressions], unique_keys):
        return
    raise not_supported(
        "the order of the rows of a SELECT with a window function (the server's window sort breaks ties as it"
        " chooses; an ORDER BY of a primary or NOT NULL unique key fixes it)"
    )


def _window(node: exp.Expression, translation: Translating) -> exp.Expression:
    """A window function as DuckDB renders it, but AVG, the server's quotient (division.py)."""
    if isinstance(node, exp.Window) and isinstance(node.this, exp.Avg):
        return average(node.this, translation, node)
    return node


# The nodes DuckDB renders as MySQL means them, once check_windows let them through.
WINDOWS: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=(exp.Window,), duckdb=_window, keeps_node=True),
    SqlFunction(nodes=(*(node for node in WINDOW_NODES if node is not exp.Window), exp.WindowSpec)),
)
