"""The server functions whose value is state of the server, changed by the call: user-level
locks (GET_LOCK ...), RANDOM_BYTES(), LAST_INSERT_ID(expr). Each becomes a call into the
executing server (registered in its DuckDB connection, `SERVER_CALLS`); the fast path
declines them. MASTER_POS_WAIT / SOURCE_POS_WAIT are NULL on a server whose replication
SQL thread is not running, LOAD_FILE() is NULL where secure_file_priv forbids the file and
refused where the server would read it: the simulator never touches a file.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported
from .library import SqlFunction, Translating, refuse_if_missing

# Each DuckDB function a translation here writes: (the Server method it calls, its
# parameter types, its result type).
SERVER_CALLS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "rpl_get_lock": ("user_lock_get", ("VARCHAR", "DOUBLE"), "BIGINT"),
    "rpl_release_lock": ("user_lock_release", ("VARCHAR",), "BIGINT"),
    "rpl_release_all_locks": ("user_lock_release_all", (), "BIGINT"),
    "rpl_is_free_lock": ("user_lock_is_free", ("VARCHAR",), "BIGINT"),
    "rpl_is_used_lock": ("user_lock_holder", ("VARCHAR",), "UBIGINT"),
    "rpl_random_bytes": ("random_bytes", ("BIGINT",), "BLOB"),
    "rpl_last_insert_id": ("set_last_insert_id", ("UBIGINT",), "UBIGINT"),
    "rpl_division_by_zero": ("division_by_zero", ("VARCHAR",), "NULL"),  # functions/division.py
}


def _arguments(node: exp.Expression, name: str, count: int) -> list[exp.Expression]:
    arguments = list(node.expressions) if isinstance(node, exp.Anonymous) else [a for a in node.args.values() if isinstance(a, exp.Expression)]
    if len(arguments) != count:
        raise SqlError(ErrorCode.ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, name)
    return arguments


def _call(name: str, generator: str, check: Callable[[list[exp.Expression], Translating], exp.Expression | None] | None = None) -> SqlFunction:
    """`name`(...) as a call of the server's `generator`, each argument cast to its type;
    `check` may refuse the arguments or give the call's value (a NULL) outright."""
    parameters = SERVER_CALLS[generator][1]

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        arguments = _arguments(node, name, len(parameters))
        if check is not None:
            answer = check(arguments, translation)
            if answer is not None:
                return answer
        cast = [exp.cast(translation.rewrite(a), exp.DataType.build(p, dialect="duckdb")) for a, p in zip(arguments, parameters)]
        return exp.Anonymous(this=generator, expressions=cast)

    return SqlFunction(names=(name,), duckdb=translate)


def _named_lock(arguments: list[exp.Expression], translation: Translating) -> exp.Expression | None:
    """A lock named NULL or '': MySQL's 3057, MariaDB's NULL (as the server's call answers
    a NULL name); under MySQL a name only known when the statement runs might be either,
    which is refused."""
    name = arguments[0]
    errors = translation.context.flavor.user_lock_empty_name_error
    empty = isinstance(name, exp.Null) or (isinstance(name, exp.Literal) and name.is_string and not name.name)
    if not empty:
        if not isinstance(name, exp.Literal) and errors:
            raise not_supported("a user-level lock whose name is not a constant")
        if not isinstance(name, exp.Literal):
            return None
        if len(name.name) > 64:
            raise not_supported("a user-level lock name longer than 64 characters")
        return None
    if errors:
        raise SqlError(ErrorCode.ER_USER_LOCK_WRONG_NAME, "NULL" if isinstance(name, exp.Null) else "")
    return exp.Null()


def _random_bytes_length(arguments: list[exp.Expression], translation: Translating) -> None:
    length = arguments[0]
    if not (isinstance(length, exp.Literal) and length.is_int and 1 <= int(length.name) <= 1024):
        raise not_supported("RANDOM_BYTES() of a length that is not a constant from 1 to 1024")


def _position_wait(name: str) -> SqlFunction:
    """MASTER_POS_WAIT / SOURCE_POS_WAIT: NULL, no replication SQL thread runs on the
    server that evaluates it; a product without the function says it does not exist."""

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        refuse_if_missing(name, node, translation)
        for argument in node.expressions:
            translation.rewrite(argument)  # an unknown column is still an error
        return exp.Null()

    return SqlFunction(names=(name,), duckdb=translate)


def _load_file(node: exp.Expression, translation: Translating) -> exp.Expression:
    """LOAD_FILE(path): NULL for a constant path secure_file_priv forbids; anything else
    would read a file, which the simulator never does."""
    (path,) = _arguments(node, "LOAD_FILE", 1)
    allowed = translation.context.flavor.secure_file_priv
    if isinstance(path, exp.Null):
        return exp.Null()
    if allowed is not None and isinstance(path, exp.Literal) and path.is_string and not path.name.startswith(allowed):
        return exp.Null()
    raise not_supported("LOAD_FILE() of a file the server may read (the simulator reads no file)")


def _benchmark(node: exp.Expression, translation: Translating) -> exp.Expression:
    """BENCHMARK(n, constant): 0, the expression evaluated n times to no effect."""
    count, expression = _arguments(node, "BENCHMARK", 2)
    if isinstance(count, exp.Null):
        return exp.Null()
    constant = isinstance(expression, (exp.Literal, exp.Null))
    if not (isinstance(count, exp.Literal) and count.is_int and constant):
        raise not_supported("BENCHMARK() of an expression or a count that is not a constant")
    return exp.Literal.number(0)


SERVER_STATE: tuple[SqlFunction, ...] = (
    _call("GET_LOCK", "rpl_get_lock", _named_lock),
    _call("RELEASE_LOCK", "rpl_release_lock", _named_lock),
    _call("RELEASE_ALL_LOCKS", "rpl_release_all_locks"),
    _call("IS_FREE_LOCK", "rpl_is_free_lock", _named_lock),
    _call("IS_USED_LOCK", "rpl_is_used_lock", _named_lock),
    _call("RANDOM_BYTES", "rpl_random_bytes", _random_bytes_length),
    _position_wait("MASTER_POS_WAIT"),
    _position_wait("SOURCE_POS_WAIT"),
    SqlFunction(names=("LOAD_FILE",), duckdb=_load_file),
    SqlFunction(names=("BENCHMARK",), duckdb=_benchmark),
)
