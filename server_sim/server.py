"""One simulated server: its identity, clock and generators, catalog and storage.

Master and slave are two of these. Each has its own clock, UUID node and counters, all
seeded, so functions the real servers call unsafe (UUID(), SYSDATE(), USER()) give
different values on the two sides, reproducibly, while safe ones are fed from events.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .catalog import Catalog
from .table import Table
from .dictionary import catalog_from_json, catalog_to_json
from .duckdb_connection import ConnectionPool, lock_configuration, open_connection
from .engines import EngineRegistry
from .errors import Condition, ErrorCode, SqlError, note
from .functions.native import register as register_natives
from .functions.unmodelled import Unmodelled
from .functions.server_state import SERVER_CALLS
from .flavor import Flavor
from .functions.statement import StatementContext
from .session import Session, seeded_random_state
from .storage import Storage, storage_name_of
from .sysvars import REPLICATED_SESSION_VARIABLES, SESSION_STATE_VARIABLES, VariableRegistry, fixed_moment, sql_modes
from .system_tables import DEFAULT_CONSUMERS, Contents, SystemTable, TableCategory
from .user_locks import UserLocks

EPOCH = dt.datetime(2026, 1, 1, 12, 0, 0)


@dataclass(frozen=True)
class GeneratorState:
    """A server's clock and UUID() / UUID_SHORT() counters at one moment."""

    clock: dt.datetime
    uuid_counter: int
    uuid_short_counter: int


@dataclass(frozen=True)
class ServerIdentity:
    """What makes one server different from another: id, host name, clock start, seed."""

    server_id: int
    hostname: str
    seed: int
    clock_start: dt.datetime = EPOCH


@dataclass
class _FunctionCaller:
    """The server a connection's SQL functions (UUID(), SYSDATE(), RAND()...) call: the one
    holding the connection now, as an in-memory connection serves server after server."""

    server: Server | None = None


def _register_functions(connection: duckdb.DuckDBPyConnection) -> _FunctionCaller:
    """The server-side functions the executor's SQL calls, registered once per connection."""
    caller = _FunctionCaller()
    connection.create_function("rpl_uuid", lambda: caller.server._uuid(), [], "VARCHAR", side_effects=True)
    connection.create_function("rpl_uuid_short", lambda: caller.server._uuid_short(), [], "UBIGINT", side_effects=True)
    connection.create_function("rpl_sysdate", lambda: caller.server.now(), [], "TIMESTAMP", side_effects=True)
    connection.create_function("rpl_rand", lambda: caller.server.rand(), [], "DOUBLE", side_effects=True)
    connection.create_function(
        "rpl_rand_seeded", lambda seed, site: caller.server._rand_seeded(seed, site), ["BIGINT", "BIGINT"], "DOUBLE", side_effects=True
    )
    for name, (method, parameters, returns) in SERVER_CALLS.items():
        connection.create_function(
            name, _server_call(caller, method, len(parameters)), list(parameters), returns, side_effects=True, null_handling="special"
        )
    register_natives(connection)
    return caller


def _server_call(caller: _FunctionCaller, method: str, arity: int) -> Callable[..., object]:
    """A DuckDB function calling the running server's `method` (of `arity` arguments)."""
    if arity == 0:
        return lambda: getattr(caller.server, method)()
    if arity == 1:
        return lambda a: getattr(caller.server, method)(a)
    return lambda a, b: getattr(caller.server, method)(a, b)


# This process's in-memory databases, reused by one server after another.
_IN_MEMORY = ConnectionPool(_register_functions)


class Server:
    """A MySQL-like server: the state both the master and the slave simulator build on."""

    def __init__(
        self,
        flavor: Flavor,
        identity: ServerIdentity,
        engines: EngineRegistry | None = None,
        database: Path | None = None,
        schema: str = "test",
        fast_path: bool = True,
    ) -> None:
        self.flavor = flavor
        # Whether the executor may ask the storage's Python mirror to answer scans, SET
        # values, SELECTs and joins before DuckDB: off, DuckDB answers everything (the
        # differential tests compare the two).
        self.fast_path = fast_path
        self.identity = identity
        self.engines = engines or EngineRegistry()
        self.registry = VariableRegistry(flavor)
        self.global_variables = self.registry.defaults()
        self.global_variables["server_id"] = str(identity.server_id)
        self.global_variables["hostname"] = identity.hostname
        if flavor.server_uuid:
            self.global_variables["server_uuid"] = str(uuid.UUID(bytes=hashlib.sha256(f"uuid:{identity.server_id}:{identity.seed}".encode()).digest()[:16], version=4))
        self.catalog = Catalog(database=schema, system_tables=flavor.system_tables)
        # The rows each system table was last filled with, by storage name.
        self._system_rows: dict[str, list[tuple]] = {}
        self._random = random.Random(identity.seed)
        self._clock = identity.clock_start
        self._uuid_counter = 0
        self._uuid_short_counter = 0
        self._uuid_node = int.from_bytes(hashlib.sha256(f"{identity.server_id}:{identity.seed}".encode()).digest()[:6], "big") | 0x010000000000
        self._next_thread_id = 1
        self._running: Session | None = None  # the session whose statement runs (see `running`)
        self._raised: list[Condition] | None = None  # see `collecting_conditions`
        self._seeded_rand: dict[int, tuple[int, int]] = {}
        self.user_locks = UserLocks(flavor.user_lock_names_case_sensitive)
        self._pooled = database is None
        if self._pooled:
            self.connection, self._functions = _IN_MEMORY.acquire()
        else:
            self.connection = open_connection(database)
            self._functions = _register_functions(self.connection)
            lock_configuration(self.connection)
        self._functions.server = self
        self.storage = Storage(self.connection, schema)

    # -- time and generators ------------------------------------------------------------

    def now(self) -> dt.datetime:
        return self._clock

    def tick(self, seconds: int = 1) -> dt.datetime:
        """Advance the server clock: every statement takes a little time."""
        self._clock += dt.timedelta(seconds=seconds)
        return self._clock

    def statement_time(self, session: Session) -> dt.datetime:
        """When a statement of `session` runs: the clock one tick on, or the moment the
        session fixed with SET timestamp (the clock still moves on)."""
        moment = self.tick()
        fixed = session.variables.get("timestamp")
        return fixed_moment(fixed) if fixed else moment

    def advance_clock_to(self, moment: dt.datetime) -> None:
        if moment > self._clock:
            self._clock = moment

    def generators(self) -> GeneratorState:
        """The clock and the UUID counters: what a statement that must run again later
        takes back (server_sim/checkpoint.py)."""
        return GeneratorState(self._clock, self._uuid_counter, self._uuid_short_counter)

    def restore_generators(self, state: GeneratorState) -> None:
        self._clock, self._uuid_counter, self._uuid_short_counter = state.clock, state.uuid_counter, state.uuid_short_counter

    def _uuid(self) -> str:
        """A time-based (version 1) UUID from this server's clock and node, as MySQL's UUID()."""
        self._uuid_counter += 1
        gregorian = int((self._clock - dt.datetime(1582, 10, 15)).total_seconds() * 10_000_000) + self._uuid_counter
        clock_seq = 0x8000 | (self.identity.seed & 0x3FFF)
        fields = (
            gregorian & 0xFFFFFFFF,
            (gregorian >> 32) & 0xFFFF,
            ((gregorian >> 48) & 0x0FFF) | 0x1000,
            (clock_seq >> 8) & 0xFF,
            clock_seq & 0xFF,
            self._uuid_node,
        )
        return str(uuid.UUID(fields=fields))

    def _uuid_short(self) -> int:
        self._uuid_short_counter += 1
        started = int((self.identity.clock_start - EPOCH).total_seconds()) & 0xFFFFFFFF
        return ((self.identity.server_id & 255) << 56) + (started << 24) + self._uuid_short_counter

    @contextmanager
    def running(self, session: Session) -> Iterator[None]:
        """Run `session`'s statement: the SQL functions DuckDB calls back (RAND()) draw from
        that session's generator until the block ends, whatever it raises."""
        previous, self._running = self._running, session
        try:
            yield
        finally:
            self._running = previous

    @contextmanager
    def collecting_conditions(self) -> Iterator[list[Condition]]:
        """The conditions expressions raise while the block runs (a division by zero's
        1365), for the statement's handler to settle: warnings, or its error. An inner
        block keeps its own; one outside any block is refused."""
        previous, self._raised = self._raised, []
        try:
            yield self._raised
        finally:
            self._raised = previous

    def division_by_zero(self, refusal: str | None) -> None:
        """Condition 1365 of a division by zero (functions/division.py); `refusal` names why
        the simulator cannot tell the server's answer here (raised as 1235)."""
        if refusal:
            raise Unmodelled(refusal)
        if self._raised is None:
            raise Unmodelled("a division by zero raising 1365 outside a statement's rows")
        self._raised.append(note(ErrorCode.ER_DIVISION_BY_ZERO, level="Warning"))

    # -- the server functions that change its state (functions/server_state.py) ----------

    def _running_thread(self) -> int:
        return self._running.thread_id if self._running is not None else 0

    def user_lock_get(self, name: str | None, timeout: float | None) -> int | None:
        if self._running is not None and self._running.slave_thread:
            return 1  # the applier takes no user-level lock
        return None if name is None else self.user_locks.get(name, self._running_thread(), timeout)

    def user_lock_release(self, name: str | None) -> int | None:
        return None if name is None else self.user_locks.release(name, self._running_thread())

    def user_lock_release_all(self) -> int:
        return self.user_locks.release_all(self._running_thread())

    def user_lock_is_free(self, name: str | None) -> int | None:
        return None if name is None else self.user_locks.is_free(name)

    def user_lock_holder(self, name: str | None) -> int | None:
        return None if name is None else self.user_locks.holder(name)

    def random_bytes(self, length: int | None) -> bytes | None:
        """RANDOM_BYTES(n): n bytes of the server's generator."""
        return None if length is None else bytes(self._random.getrandbits(8) for _ in range(length))

    def set_last_insert_id(self, value: int | None) -> int | None:
        """LAST_INSERT_ID(expr): expr, the running session's next LAST_INSERT_ID() (0 for NULL)."""
        if self._running is not None:
            self._running.last_insert_id = value or 0
        return value

    def rand(self) -> float:
        """RAND(): the next value of the running session's generator (SET rand_seed1/2)."""
        session = self._running
        return session.next_random() if session is not None else self._random.random()

    def _rand_seeded(self, seed: int, site: int) -> float:
        """RAND(N): each call site's generator starts from N once per statement."""
        seed1, seed2 = self._seeded_rand.get(site, seeded_random_state(int(seed)))
        max_value = 0x3FFFFFFF
        seed1 = (seed1 * 3 + seed2) % max_value
        seed2 = (seed1 + seed2 + 33) % max_value
        self._seeded_rand[site] = (seed1, seed2)
        return seed1 / max_value

    # -- sessions -------------------------------------------------------------------------

    def new_session(self, user: str, variables: dict[str, str] | None = None, slave_thread: bool = False) -> Session:
        session = Session(
            thread_id=self._next_thread_id, variables={**self.global_variables, **(variables or {})}, user=user, slave_thread=slave_thread
        )
        self._next_thread_id += 1
        session.rand_seed1 = self._random.randrange(0x3FFFFFFF)
        session.rand_seed2 = self._random.randrange(0x3FFFFFFF)
        return session

    def statement_context(self, session: Session, timestamp: dt.datetime) -> StatementContext:
        """The fixed-per-statement values a statement of `session` reads."""
        self._seeded_rand = {}

        def system_variable(name: str, scope: str | None) -> object:
            if name in SESSION_STATE_VARIABLES:  # the session's own state, read as a variable
                if scope == "GLOBAL":
                    raise SqlError(ErrorCode.ER_INCORRECT_GLOBAL_LOCAL_VAR, name, "SESSION")
                return session.last_insert_id if name != "pseudo_thread_id" else session.thread_id
            variable = self.registry.lookup(name)
            values = self.global_variables if scope == "GLOBAL" else session.variables
            value = values.get(variable.name, variable.default)
            if variable.name == "timestamp":  # the statement's time, as Unix seconds
                return float(value) if value else timestamp.replace(tzinfo=dt.timezone.utc).timestamp()
            return variable.read(value)

        modes = sql_modes(session.variables)
        return StatementContext(
            timestamp=timestamp,
            user=session.user,
            thread_id=session.thread_id,
            database=self.catalog.database,
            version=self.flavor.server_version,
            last_insert_id=session.last_insert_id,
            found_rows=session.found_rows,
            row_count=session.row_count,
            user_variables=session.user_variables,
            system_variable=system_variable,
            udfs=self.catalog.udfs,
            flavor=self.flavor,
            division_by_zero_warns="ERROR_FOR_DIVISION_BY_ZERO" in modes,
            only_full_group_by="ONLY_FULL_GROUP_BY" in modes,
            zero_date_comparisons="NO_ZERO_DATE" not in modes or self.flavor.zero_date_compared_under_no_zero_date,
        )

    # -- system tables ------------------------------------------------------------------

    def fill_system_table(self, table: Table, session: Session) -> None:
        """Give a system table its rows as this server shows them to `session`: created and
        filled on first use; a variables table refreshed whenever the variables changed."""
        spec = table.system
        assert spec is not None
        if not table.storage_name:
            table.storage_name = storage_name_of(table)
            self.storage.drop(table)  # a reopened database file holds the last server's
            self.storage.create(table, table.storage_name)
        filled = self._system_rows.get(spec.qualified_name)
        rows = self._system_contents(spec, session)
        if rows == filled or (filled is not None and rows is None):
            return
        rows = rows or []
        self.storage.delete_all(table)
        for row_id, row in enumerate(rows, start=1):
            self.storage.insert(table, row_id, row)
        table.next_row_id = len(rows) + 1
        self._system_rows[spec.qualified_name] = rows

    def _system_contents(self, spec: SystemTable, session: Session) -> list[tuple] | None:
        """The rows of a variables table now; None for the others, which hold what they
        started with and what statements did to them since."""
        if spec.category is TableCategory.PERFORMANCE and not self.flavor.performance_schema:
            return None
        if spec.contents is Contents.CONSUMERS:
            return list(DEFAULT_CONSUMERS) if spec.qualified_name not in self._system_rows else None
        if spec.contents is Contents.EMPTY:
            return None
        values = self.global_variables if spec.contents is Contents.GLOBAL_VARIABLES else session.variables
        names = self.flavor.server_variable_names
        rows = [(names.get(name, name), values[name]) for name in self.global_variables]
        if spec.upper_case_names:
            rows = [(name.upper(), value) for name, value in rows]
        return sorted(rows)

    def dump(self) -> dict[str, tuple[list[str], list[tuple]]]:
        """Every non-temporary table, by lower-case name as snapshots key them: its column
        names and rows, in physical order."""
        tables: dict[str, tuple[list[str], list[tuple]]] = {}
        for name, table in sorted(self.catalog.tables.items()):
            rows = self.storage.scan(table) if table.engine.stores_rows else []
            types = [column.type for column in table.columns]
            tables[name.lower()] = (table.column_names(), [tuple(t.client_value(v) for t, v in zip(types, row[1:])) for row in rows])
        return tables

    def state_document(self) -> dict[str, object]:
        """The catalog and the generators: what a reopened server needs besides its rows."""
        version, internal, gauss = self._random.getstate()
        return {
            "catalog": catalog_to_json(self.catalog),
            "clock": self._clock.isoformat(),
            "uuid_counter": self._uuid_counter,
            "uuid_short_counter": self._uuid_short_counter,
            "random": [version, list(internal), gauss],
            "next_thread_id": self._next_thread_id,
        }

    def restore_state(self, document: dict[str, object]) -> None:
        self.catalog = catalog_from_json(document["catalog"])
        self.catalog.system_tables = self.flavor.system_tables
        self._clock = dt.datetime.fromisoformat(document["clock"])
        self._uuid_counter = document["uuid_counter"]
        self._uuid_short_counter = document["uuid_short_counter"]
        version, internal, gauss = document["random"]
        self._random.setstate((version, tuple(internal), gauss))
        self._next_thread_id = document["next_thread_id"]

    def close(self) -> None:
        """Close the database; an in-memory one goes back to the pool, emptied, once."""
        if self._functions.server is not self:
            return
        self._functions.server = None
        if self._pooled:
            _IN_MEMORY.release(self.connection, self._functions, emptied=self.storage.discard())
        else:
            self.connection.close()


def is_replicated_variable(name: str, scope: str | None) -> bool:
    """Whether reading `@@name` in `scope` is safe for statement-based logging."""
    return scope != "GLOBAL" and name.lower() in REPLICATED_SESSION_VARIABLES
