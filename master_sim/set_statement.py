"""SET on the master: user variables, session and global system variables, and
SET TRANSACTION ISOLATION LEVEL. Switching autocommit on commits the open transaction."""

from __future__ import annotations

from sqlglot import exp

from server_sim.errors import ErrorCode, SqlError
from server_sim.execute.executor import Executor
from server_sim.server import Server
from server_sim.statement import Statement

from .sessions import MasterSession
from .transactions import TransactionControl


class SetStatement:
    """Runs SET statements against one server."""

    def __init__(self, server: Server, executor: Executor, transactions: TransactionControl) -> None:
        self.server = server
        self.executor = executor
        self.transactions = transactions

    def run(self, ms: MasterSession, statement: Statement) -> None:
        for item in statement.ast.expressions:
            if item.args.get("kind") == "TRANSACTION":
                self._set_isolation(ms, item)
            else:
                self._assign(ms, item)

    def _set_isolation(self, ms: MasterSession, item: exp.Expression) -> None:
        level = " ".join(e.name for e in item.expressions).upper().replace("ISOLATION LEVEL", "").strip()
        variable = self.server.registry.lookup("transaction_isolation")
        ms.session.variables["transaction_isolation"] = variable.normalise(level.replace(" ", "-"))

    def _assign(self, ms: MasterSession, item: exp.Expression) -> None:
        """One `name = value` of the SET list."""
        session = ms.session
        assignment = item.this
        if not isinstance(assignment, exp.EQ):
            raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, f"SET {item.sql(dialect='mysql')}")
        target, value_node = assignment.this, assignment.expression
        if isinstance(target, exp.Parameter):
            session.user_variables[target.name.lower()] = self._evaluate(ms, value_node)
            return
        if isinstance(target, exp.SessionParameter):
            scope = (target.args.get("kind") or "SESSION").upper()
        elif isinstance(target, exp.Column):
            scope = (item.args.get("kind") or "SESSION").upper()
        else:
            raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, f"SET {item.sql(dialect='mysql')}")
        variable = self.server.registry.lookup(target.name)
        if variable.read_only:
            raise SqlError(ErrorCode.ER_UNKNOWN_ERROR, message=f"Variable '{variable.name}' is a read only variable")
        raw = value_node.name if isinstance(value_node, (exp.Var, exp.Column)) else self._evaluate(ms, value_node)
        value = variable.default if str(raw).upper() == "DEFAULT" else variable.normalise(raw)
        if scope == "GLOBAL":
            self.server.global_variables[variable.name] = value
            return
        if variable.name == "binlog_format" and session.in_transaction and session.in_multi_statement_transaction:
            raise SqlError(ErrorCode.ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT)
        if variable.name == "autocommit" and value == "ON" and not session.autocommit:
            session.variables[variable.name] = value
            self.transactions.commit(ms)  # switching autocommit on commits the open transaction
            return
        session.variables[variable.name] = value

    def _evaluate(self, ms: MasterSession, node: exp.Expression) -> object:
        context = self.server.statement_context(ms.session, self.server.now())
        return self.executor.evaluate(ms.session, context, [node])[0]
