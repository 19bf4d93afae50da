"""SET on the master: user variables, session and global system variables, SET NAMES,
SET CHARACTER SET and SET TRANSACTION ISOLATION LEVEL. Switching autocommit on commits
the open transaction."""

from __future__ import annotations

from sqlglot import exp

from server_sim.charsets import COLLATIONS, default_collation
from server_sim.errors import Condition, ErrorCode, SqlError, not_supported
from server_sim.execute.executor import Executor
from server_sim.server import Server
from server_sim.statement import Statement
from server_sim.sysvars import sql_mode_merged_warning

from .sessions import MasterSession
from .transactions import TransactionControl


class SetStatement:
    """Runs SET statements against one server."""

    def __init__(self, server: Server, executor: Executor, transactions: TransactionControl) -> None:
        self.server = server
        self.executor = executor
        self.transactions = transactions

    def run(self, ms: MasterSession, statement: Statement) -> list[Condition]:
        """Run the SET; its warnings (a value clamped to the variable's range)."""
        warnings: list[Condition] = []
        for item in statement.ast.expressions:
            kind = item.args.get("kind")
            if kind == "TRANSACTION":
                self._set_isolation(ms, item)
            elif kind in ("NAMES", "CHARACTER SET"):
                self._set_names(ms, item, kind)
            else:
                warnings.extend(self._assign(ms, item))
        return warnings

    def _set_isolation(self, ms: MasterSession, item: exp.Expression) -> None:
        level = " ".join(e.name for e in item.expressions).upper().replace("ISOLATION LEVEL", "").strip()
        variable = self.server.registry.lookup("transaction_isolation")
        ms.session.variables["transaction_isolation"] = variable.normalise(level.replace(" ", "-"))

    def _set_names(self, ms: MasterSession, item: exp.Expression, kind: str) -> None:
        """SET NAMES cs [COLLATE c]: the client's, connection's and results' character set;
        SET CHARACTER SET cs: the client's and results', the connection taking the database's."""
        variables = ms.session.variables
        registry = self.server.registry
        given = item.this.name
        charset = variables["character_set_server"] if given.upper() == "DEFAULT" else registry.lookup("character_set_client").normalise(given)
        collate = item.args.get("collate")
        changes = {"character_set_client": charset, "character_set_results": charset}
        if kind == "NAMES":
            collation = registry.lookup("collation_connection").normalise(collate.name) if collate is not None else default_collation(charset, self.server.flavor.utf8mb4_collation)
            if COLLATIONS[collation].charset != charset:
                raise SqlError(ErrorCode.ER_COLLATION_CHARSET_MISMATCH, collation, charset)
            changes |= {"character_set_connection": charset, "collation_connection": collation}
        else:
            changes |= {"character_set_connection": variables["character_set_database"], "collation_connection": variables["collation_database"]}
        variables.update(changes)

    def _assign(self, ms: MasterSession, item: exp.Expression) -> list[Condition]:
        """One `name = value` of the SET list; its warnings (the value's, one clamped to the
        variable's range)."""
        warnings: list[Condition] = []
        session = ms.session
        assignment = item.this
        if not isinstance(assignment, exp.EQ):
            raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, f"SET {item.sql(dialect='mysql')}")
        target, value_node = assignment.this, assignment.expression
        if isinstance(target, exp.Parameter):
            session.user_variables[target.name.lower()] = self._evaluate(ms, value_node, warnings)
            return warnings
        if isinstance(target, exp.SessionParameter):
            scope = (target.args.get("kind") or "SESSION").upper()
        elif isinstance(target, exp.Column):
            scope = (item.args.get("kind") or "SESSION").upper()
        else:
            raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, f"SET {item.sql(dialect='mysql')}")
        variable = self.server.registry.lookup(target.name)
        if variable.name == "binlog_checksum":
            # The server closes the binlog and opens a new file written the new way.
            raise not_supported("SET binlog_checksum while the binlog is open (a rotation to a new file); give it in the scenario's settings")
        if variable.read_only:
            raise SqlError(ErrorCode.ER_UNKNOWN_ERROR, message=f"Variable '{variable.name}' is a read only variable")
        raw = value_node.name if isinstance(value_node, (exp.Var, exp.Column, exp.Identifier)) else self._evaluate(ms, value_node, warnings)
        value = variable.default if str(raw).upper() == "DEFAULT" else variable.normalise(raw)
        value, warning = variable.within_bounds(value)
        if variable.name == "sql_mode" and self.server.flavor.sql_mode_merged_warning:
            warning = sql_mode_merged_warning(value)
        warnings.extend([warning] if warning is not None else [])
        if scope == "GLOBAL":
            self.server.global_variables[variable.name] = value
            return warnings
        if variable.global_only:
            raise SqlError(ErrorCode.ER_GLOBAL_VARIABLE, variable.name)
        if variable.name == "binlog_format" and session.in_transaction and session.in_multi_statement_transaction:
            raise SqlError(ErrorCode.ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT)
        if variable.name == "autocommit" and value == "ON" and not session.autocommit:
            session.variables[variable.name] = value
            self.transactions.commit(ms)  # switching autocommit on commits the open transaction
            return warnings
        session.variables[variable.name] = value
        return warnings

    def _evaluate(self, ms: MasterSession, node: exp.Expression, warnings: list[Condition]) -> object:
        context = self.server.statement_context(ms.session, self.server.now())
        return self.executor.evaluate(ms.session, context, [node], warnings)[0]
