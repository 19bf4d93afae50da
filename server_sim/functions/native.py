"""MySQL functions written once, in Python: the fast path calls the implementation
directly, and DuckDB calls the same implementation registered in every server's
connection (`register`), so the two evaluators cannot disagree.

An implementation takes Python values (text, bytes, int, Decimal, date, datetime) and
returns the server's result; a BYTES parameter reads its argument's bytes
(byte_arguments.py). Where the server would warn or the simulator cannot tell the
server's result exactly (an invalid date string, text its collation compares that Python
does not), it raises `Unmodelled`, which either evaluator reports as 1235 naming what.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlglot import exp

from ..declined import Declined
from ..errors import ErrorCode, SqlError, not_supported
from ..operands import Kind, Operand, Values
from ..types import TypeFamily
from .byte_arguments import ASCII_BYTES, BYTES, LATIN1_BYTES, ascii_bytes, bytes_argument, is_binary, latin1_bytes
from .carried import carried
from .library import Compiling, SqlFunction, Translating
from .unmodelled import UNMODELLED_MARKER, Unmodelled

# How an argument reaches an implementation: the DuckDB type it is cast to, and the Python
# values of the fast path's operands that are the same value after that cast.
TEXT = "VARCHAR"
INTEGER = "BIGINT"
HUGE = "HUGEINT"  # an integer that may hold BIGINT UNSIGNED values too
TEMPORAL = "VARCHAR"  # a date, datetime or its text: the implementation parses it
_RESULT_KINDS = {"VARCHAR": Kind.TEXT, "BIGINT": Kind.NUMBER, "UBIGINT": Kind.NUMBER, "HUGEINT": Kind.NUMBER}


@dataclass(frozen=True)
class Native:
    """One implementation as registered in DuckDB: its name there, parameter types (with
    `variadic`, the one type of any number of arguments, passed as a list), result type,
    and whether a NULL argument makes the result NULL without calling it."""

    name: str
    implementation: Callable[..., object]
    parameters: tuple[str, ...]
    returns: str
    null_in_null_out: bool = True
    variadic: bool = False
    folds_case: str = ""  # the MySQL name of a function that matches text ignoring case

    def duckdb_parameters(self) -> list[str]:
        return [self.parameters[0] + "[]"] if self.variadic else list(self.parameters)

    def registered(self) -> Callable[..., object]:
        """The callable DuckDB runs: a variadic call's arguments come as one list."""
        implementation = self.implementation
        if self.null_in_null_out:
            strict = implementation

            def implementation(*values: object) -> object:
                return None if any(v is None for v in values) else strict(*values)

        server_errors = implementation

        def implementation(*values: object) -> object:
            try:
                return server_errors(*values)
            except SqlError as error:
                raise carried(error) from None  # DuckDB keeps only its text

        if not self.variadic:
            return _OF_ARITY[len(self.parameters)](implementation)
        return lambda values: None if values is None else implementation(*values)


# A callable of exactly n parameters calling an implementation (DuckDB counts the
# parameters a callable declares; an implementation may take optional ones).
_OF_ARITY: dict[int, Callable[[Callable[..., object]], Callable[..., object]]] = {
    1: lambda f: lambda a: f(a),
    2: lambda f: lambda a, b: f(a, b),
    3: lambda f: lambda a, b, c: f(a, b, c),
    4: lambda f: lambda a, b, c, d: f(a, b, c, d),
    5: lambda f: lambda a, b, c, d, e: f(a, b, c, d, e),
    6: lambda f: lambda a, b, c, d, e, g: f(a, b, c, d, e, g),
}

# Every implementation, by its DuckDB name: registered in each server's connection.
NATIVES: dict[str, Native] = {
    LATIN1_BYTES: Native(LATIN1_BYTES, latin1_bytes, (TEXT,), BYTES),
    ASCII_BYTES: Native(ASCII_BYTES, ascii_bytes, (TEXT,), BYTES),
}


def register(connection: object) -> None:
    """Make every implementation callable from the SQL of `connection` (a DuckDB connection)."""
    for native in NATIVES.values():
        connection.create_function(  # type: ignore[attr-defined]
            native.name,
            native.registered(),
            native.duckdb_parameters(),
            native.returns,
            null_handling="special",  # a NULL result too: the implementation answers for NULLs
        )


def _text(value: object) -> str:
    """A fast-path value as DuckDB's CAST(... AS VARCHAR) gives it, where Python can tell."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise Declined
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        text = str(value)
        if "E" in text:
            raise Declined
        return text
    if isinstance(value, dt.datetime):
        if value.microsecond:
            raise Declined  # DuckDB drops trailing zeros of the fraction
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    raise Declined


def _bytes(value: object) -> bytes:
    """A fast-path value's bytes: a binary string's own, ASCII text's; other text's depend
    on its character set, which DuckDB's path works out (server_sim/functions/byte_arguments.py)."""
    if isinstance(value, bytes):
        return value
    text = _text(value)
    if not text.isascii():
        raise Declined
    return text.encode()


def _integer(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise Declined  # DuckDB rounds a decimal and parses text: its path


_CONVERT = {TEXT: _text, BYTES: _bytes, INTEGER: _integer, HUGE: _integer}


def _argument(operand: Operand, parameter: str) -> Callable[[Values], object]:
    if operand.kind in (Kind.DOUBLE,) or parameter not in _CONVERT:
        raise Declined
    convert, value = _CONVERT[parameter], operand.value

    def argument(row: Values) -> object:
        found = value(row)
        return None if found is None else convert(found)

    return argument


def call_in_python(native: Native, arguments: Sequence[exp.Expression], compiler: Compiling) -> Operand:
    """The fast path's evaluation of a call: the implementation over its arguments' values."""
    parameters = native.parameters * len(arguments) if native.variadic else native.parameters
    if len(parameters) != len(arguments):
        raise Declined
    values = [_argument(compiler.operand(node), parameter) for node, parameter in zip(arguments, parameters)]
    implementation, strict = native.implementation, native.null_in_null_out
    kind = _RESULT_KINDS.get(native.returns, Kind.OTHER)

    def value(row: Values) -> object:
        found = [argument(row) for argument in values]
        if strict and any(v is None for v in found):
            return None
        try:
            return implementation(*found)
        except Unmodelled as error:
            raise not_supported(error.what) from None

    return Operand(value, kind, literal=False, digits=(20, 0) if kind is Kind.NUMBER else (0, 0))


def call_in_duckdb(native: Native, arguments: Sequence[exp.Expression], translation: Translating) -> exp.Expression:
    """The DuckDB call of the registered implementation, each argument translated and cast
    to its parameter's type."""
    parameters = native.parameters * len(arguments) if native.variadic else native.parameters
    for argument, parameter in zip(arguments, parameters):
        if parameter == TEXT and written_as_bytes(argument):
            raise not_supported(f"a string function of the binary string {argument.sql(dialect='mysql')}")
    if native.folds_case:
        for argument in arguments:
            declared = translation.column_type(argument) if isinstance(argument, exp.Column) else None
            if declared is not None and declared.compares_exactly:
                raise not_supported(f"{native.folds_case}() of the column {argument.sql(dialect='mysql')} under {declared.collation} (the simulator matches text ignoring case there)")
    shown = [None if isinstance(argument, exp.Literal | exp.Null) else binary_name(argument) for argument in arguments]
    translated = [translation.rewrite(argument) for argument in arguments]
    cast = [
        bytes_argument(written, argument, translation) if parameter == BYTES else _cast(argument, parameter, name)
        for written, argument, parameter, name in zip(arguments, translated, parameters, shown)
    ]
    if native.variadic:
        return exp.Anonymous(this=native.name, expressions=[exp.Anonymous(this="list_value", expressions=cast)])
    return exp.Anonymous(this=native.name, expressions=cast)


def written_as_bytes(argument: exp.Expression) -> bool:
    """A binary string as written: `BINARY x` or CAST(x AS BINARY), a call of a function
    whose result is bytes (UNHEX, RANDOM_BYTES, AES_*, FROM_BASE64, CHAR)."""
    if isinstance(argument, exp.Cast):
        return argument.to.is_type(exp.DataType.Type.BINARY, exp.DataType.Type.VARBINARY, exp.DataType.Type.BLOB)
    if isinstance(argument, exp.FromBase64 | exp.Chr):
        return True  # FROM_BASE64 and CHAR, typed nodes of their own
    return isinstance(argument, exp.Anonymous | exp.Unhex) and function_name(argument) in BINARY_RESULTS


def binary_string(argument: exp.Expression, translation: Translating) -> bool:
    """A binary string as written or a binary column's value."""
    if isinstance(argument, exp.Column):
        declared = translation.column_type(argument)
        return declared is not None and declared.family is TypeFamily.BINARY
    return written_as_bytes(argument)


def binary_name(value: exp.Expression) -> str:
    """How a refusal names a value that turned out to be bytes: `column c` or `string ...`."""
    return ("column " if isinstance(value, exp.Column) else "string ") + value.sql(dialect="mysql")


def _cast(argument: exp.Expression, parameter: str, shown: str | None) -> exp.Expression:
    """An argument cast to its parameter's DuckDB type; a value that may be bytes (`shown`
    names it) refused where it reaches a text parameter."""
    cast = exp.cast(argument, exp.DataType.build(parameter, dialect="duckdb"))
    return cast if parameter != TEXT or shown is None else refused_if_binary(argument, cast, shown)


def refused_if_binary(value: exp.Expression, otherwise: exp.Expression, shown: str) -> exp.Expression:
    """`otherwise`, unless the translated `value` is bytes (`binary_test`)."""
    return exp.Case(ifs=[binary_test(value, shown)], default=otherwise)


def binary_test(value: exp.Expression, shown: str) -> exp.If:
    """The CASE branch that stops the statement when the translated `value` is bytes (a
    binary column's BLOB, a binary string a function gave): the server reads a binary
    string byte for byte, where DuckDB would read its escaped text (`\\xE9`), so 1235
    names the binary `shown`. DuckDB settles the test when it binds the query: it costs no row."""
    refused = exp.Anonymous(this="error", expressions=[exp.Literal.string(f"{UNMODELLED_MARKER}a string function of the binary {shown}{UNMODELLED_MARKER}")])
    return exp.If(this=is_binary(value.copy()), true=refused)



def native(
    name: str,
    implementation: Callable[..., object],
    parameters: Sequence[str],
    returns: str,
    *,
    nodes: tuple[type[exp.Expression], ...] = (),
    arguments: Callable[[exp.Expression], list[exp.Expression]] | None = None,
    optional: int = 0,
    null_in_null_out: bool = True,
    variadic: bool = False,
    aliases: Sequence[str] = (),
    exposed: bool = True,
    folds_case: bool | str = False,
) -> SqlFunction:
    """The library entry of a MySQL function `name` implemented once in Python. The last
    `optional` parameters may be left out (one DuckDB registration per count); a `variadic`
    function takes at least len(parameters) arguments of the first parameter's type.
    `arguments` picks a typed node's arguments in the function's order (default: the call's
    own); an entry not `exposed` is no MySQL function of its own (another entry calls it).
    One that `folds_case` matches text as the _ci collations do: a _bin column is refused,
    naming the function (`folds_case` itself where it is another function's form)."""
    forms: dict[int, Native] = {}
    for count in range(len(parameters) - optional, len(parameters) + 1):
        suffix = "" if count == len(parameters) and not optional else f"_{count}"
        kept = (parameters[0],) if variadic else tuple(parameters[:count])
        form = Native(f"rpl_fn_{_identifier(name)}{suffix}", implementation, kept, returns, null_in_null_out, variadic, folds_case if isinstance(folds_case, str) else name if folds_case else "")
        NATIVES[form.name] = form
        forms[count] = form
    pick = arguments or _call_arguments

    def form_of(node: exp.Expression) -> tuple[Native, list[exp.Expression]]:
        found = list(node.expressions) if isinstance(node, exp.Anonymous) else pick(node)
        if variadic and len(found) >= len(parameters):
            return forms[len(parameters)], found
        if not variadic and len(found) in forms:
            return forms[len(found)], found
        raise SqlError(ErrorCode.ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, name)

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        return call_in_duckdb(*form_of(node), translation)

    def evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
        return call_in_python(*form_of(node), compiler)

    return SqlFunction(names=(name, *aliases) if exposed else (), nodes=nodes, duckdb=translate, python=evaluate)


# Functions whose result is a binary string: DuckDB's text of it is no MySQL string.
BINARY_RESULTS = frozenset({"UNHEX", "RANDOM_BYTES", "AES_ENCRYPT", "AES_DECRYPT", "INET6_ATON"})  # FROM_BASE64, CHAR: typed nodes


def function_name(node: exp.Anonymous | exp.Unhex) -> str:
    """The name of a call that may give a binary string (UNHEX has a node of its own)."""
    return node.name.upper() if isinstance(node, exp.Anonymous) else "UNHEX"


def _identifier(name: str) -> str:
    """A DuckDB function name for a MySQL function or operator name (`<<` too)."""
    return "".join(c if c.isalnum() or c == "_" else f"x{ord(c):x}" for c in name.lower())


def _call_arguments(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    return [value for value in node.args.values() if isinstance(value, exp.Expression)] + list(node.expressions)
