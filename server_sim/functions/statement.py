"""What the functions of a statement's context read, on the server that runs it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..flavor import DEFAULT_FLAVOR, Flavor
from ..udf import Udf


@dataclass
class StatementContext:
    """What a statement's fixed-per-statement functions read, on the server that runs it.

    On the master these come from the session; on the slave from the events that precede
    a statement (timestamp, Intvar, User_var, thread id).
    """

    timestamp: dt.datetime
    user: str
    thread_id: int
    database: str
    version: str
    last_insert_id: int = 0
    found_rows: int = 0
    row_count: int = -1
    user_variables: dict[str, object] = field(default_factory=dict)
    system_variable: Callable[[str, str | None], object] = lambda name, scope: None
    udfs: Mapping[str, Udf] = field(default_factory=dict)  # the server's loadable functions
    flavor: Flavor = DEFAULT_FLAVOR  # the server's product, whose rules some functions follow
    division_by_zero_warns: bool = False  # ERROR_FOR_DIVISION_BY_ZERO: condition 1365 (functions/division.py)
    only_full_group_by: bool = False  # ONLY_FULL_GROUP_BY in sql_mode (functions/grouping.py)
    zero_date_comparisons: bool = False  # a column compared with '0000-00-00' is modelled (temporal_types.py)
