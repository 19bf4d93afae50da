"""Each session's statements and the transactions around them, and the workload they make:
`(seed, index)` always gives the same workload."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from scenarios.workload import GeneratedStatement, Workload

from .config import GeneratorConfig
from .statements import StatementDrawing
from .tables import SchemaDrawing, Table


def generate_workload(seed: int, index: int, config: GeneratorConfig | None = None) -> Workload:
    """Workload `index` of `seed`: the same pair (and config) always gives the same workload."""
    digest = hashlib.sha256(f"rplharness-workload:{seed}:{index}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    return Generator(rng, config or GeneratorConfig()).workload(seed, index)


@dataclass
class SessionState:
    """Where a session is while its statements are generated: its transaction and savepoints."""

    in_transaction: bool = False
    statements_in_transaction: int = 0
    savepoints: list[str] = field(default_factory=list)
    savepoints_made: int = 0


class Generator(SchemaDrawing, StatementDrawing):
    """Draws one workload: its schema, then each session's statements and transactions."""

    def workload(self, seed: int, index: int) -> Workload:
        config, rng = self.config, self.rng
        self.tables = [self._table(f"t{number}") for number in range(1, rng.randint(*config.tables) + 1)]
        master_schema = [table.create() for table in self.tables]
        master_schema.extend(filter(None, (self._first_rows(table) for table in self.tables)))
        if rng.random() < config.trigger_rate:
            master_schema.append(self._trigger())
        slave_schema = self._slave_schema() if rng.random() < config.slave_schema_rate else ()
        settings = {"binlog_direct_non_transactional_updates": "ON"} if rng.random() < config.direct_updates_rate else {}
        names = [f"con{number}" for number in range(1, rng.randint(*config.sessions) + 1)]
        counts = [1] * len(names)
        for _ in range(config.statements - len(names)):
            counts[rng.randrange(len(names))] += 1
        sessions = {name: self._session(count) for name, count in zip(names, counts)}
        return Workload(
            seed=seed,
            index=index,
            master_schema=tuple(master_schema),
            sessions=sessions,
            slave_schema=slave_schema,
            settings=settings,
            volatile=tuple(sorted(self._volatile_closure())),
        )

    def _volatile_closure(self) -> set[str]:
        """Volatile columns, and the columns INSERT ... SELECT copies them into."""
        volatile = set(self.volatile)
        grown = True
        while grown:
            grown = False
            for source, target in self.copies:
                if source in volatile and target not in volatile:
                    volatile.add(target)
                    grown = True
        return volatile

    def _session(self, count: int) -> tuple[GeneratedStatement, ...]:
        """`count` statements, then the COMMIT or ROLLBACK that ends an open transaction."""
        rng, config = self.rng, self.config
        state = SessionState()
        statements = []
        for remaining in range(count, 0, -1):
            if not state.in_transaction and remaining > 1 and rng.random() < config.begin_rate:
                statements.append(self._begin(state))
                continue
            if state.in_transaction and state.statements_in_transaction and rng.random() < config.end_rate:
                statements.append(self._end(state))
                continue
            if state.in_transaction and rng.random() < config.savepoint_rate:
                statements.append(self._savepoint(state))
            else:
                statements.append(self._dml(state))
            if state.in_transaction:
                state.statements_in_transaction += 1
        if state.in_transaction:
            statements.append(self._end(state))
        return tuple(statements)

    @staticmethod
    def _control(sql: str) -> GeneratedStatement:
        return GeneratedStatement(sql, transaction_control=True)

    def _begin(self, state: SessionState) -> GeneratedStatement:
        state.in_transaction = True
        state.statements_in_transaction = 0
        state.savepoints.clear()
        return self._control(self.rng.choice(("BEGIN", "START TRANSACTION")))

    def _end(self, state: SessionState) -> GeneratedStatement:
        state.in_transaction = False
        state.savepoints.clear()
        return self._control("ROLLBACK" if self.rng.random() < self.config.rollback_rate else "COMMIT")

    def _savepoint(self, state: SessionState) -> GeneratedStatement:
        """A new savepoint, or back to (or releasing) one this transaction set."""
        rng = self.rng
        if not state.savepoints or rng.random() < 0.5:
            state.savepoints_made += 1
            name = f"sp{state.savepoints_made}"
            state.savepoints.append(name)
            return self._control(f"SAVEPOINT {name}")
        position = rng.randrange(len(state.savepoints))
        name = state.savepoints[position]
        if rng.random() < 0.7:
            del state.savepoints[position + 1 :]  # later savepoints go, this one stays
            return self._control(f"ROLLBACK TO SAVEPOINT {name}")
        del state.savepoints[position:]
        return self._control(f"RELEASE SAVEPOINT {name}")

    def _dml(self, state: SessionState) -> GeneratedStatement:
        return self._dml_on(self._target(state))

    def _target(self, state: SessionState) -> Table:
        """The table a statement writes; inside a transaction, transactional unless drawn otherwise."""
        rng = self.rng
        transactional = [table for table in self.tables if table.transactional]
        nontransactional = [table for table in self.tables if not table.transactional]
        if state.in_transaction and transactional and nontransactional:
            if rng.random() < self.config.nontransactional_in_transaction_rate:
                return rng.choice(nontransactional)
            return rng.choice(transactional)
        return rng.choice(self.tables)
