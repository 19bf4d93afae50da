"""Loadable functions (UDFs): `CREATE FUNCTION name RETURNS type SONAME 'library'`.

A UDF lives in a shared library the server loads; each server has its own copy, or none.
That is why a statement calling one is unsafe for statement-based logging (UDF): the slave
may lack it, or it may compute something else there. The simulator knows one library,
the `udf_example` the MySQL and MariaDB sources ship, and of it the functions whose
results it can compute exactly; each translates a call into DuckDB SQL. Loading anything
else fails as the server would, or says the simulator does not model it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .errors import ErrorCode, SqlError, not_supported

_CREATE_FUNCTION = re.compile(
    r"^\s*CREATE\s+(?P<aggregate>AGGREGATE\s+)?FUNCTION\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?`?(?P<name>\w+)`?\s+"
    r"RETURNS\s+(?P<returns>STRING|INTEGER|INT|REAL|DECIMAL)\s+SONAME\s+(?P<quote>['\"])(?P<library>[^'\"]+)(?P=quote)\s*$",
    re.IGNORECASE,
)
CREATE_FUNCTION_START = re.compile(r"^\s*CREATE\s+(?:AGGREGATE\s+)?FUNCTION\b", re.IGNORECASE)

# DuckDB types of the values MySQL hands a UDF as INT_RESULT, REAL_RESULT and STRING_RESULT
# (temporal values reach it as their text).
_INTEGER_TYPES = "'TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'"
_REAL_TYPES = "'FLOAT', 'DOUBLE'"
_TEXT_TYPES = "'VARCHAR', 'DATE', 'TIME', 'TIMESTAMP'"


def _myfunc_int(arguments: list[str]) -> str:
    """udf_example's myfunc_int(): the sum of its integer arguments, of its real arguments
    truncated, and of the byte lengths of its string arguments; NULLs and decimals add nothing."""
    if not arguments:
        return "CAST(0 AS BIGINT)"
    terms = [
        f"(CASE WHEN ({a}) IS NULL THEN 0"
        f" WHEN typeof({a}) IN ({_INTEGER_TYPES}) THEN TRY_CAST({a} AS BIGINT)"
        f" WHEN typeof({a}) IN ({_REAL_TYPES}) THEN TRY_CAST(trunc(TRY_CAST({a} AS DOUBLE)) AS BIGINT)"
        f" WHEN typeof({a}) IN ({_TEXT_TYPES}) THEN strlen(CAST({a} AS VARCHAR))"
        f" WHEN typeof({a}) = 'BLOB' THEN octet_length(TRY_CAST({a} AS BLOB))"
        " ELSE 0 END)"
        for a in arguments
    ]
    return "CAST(" + " + ".join(terms) + " AS BIGINT)"


# What each known library exports: symbol -> (its RETURNS type, its translation), or None
# for a symbol the library has but the simulator does not compute.
LIBRARIES: dict[str, dict[str, tuple[str, Callable[[list[str]], str]] | None]] = {
    "udf_example.so": {
        "myfunc_int": ("INTEGER", _myfunc_int),
        "myfunc_double": None,
        "metaphon": None,
        "sequence": None,
        "lookup": None,
        "reverse_lookup": None,
        "avgcost": None,
        "myfunc_argument_name": None,
    },
}


@dataclass(frozen=True)
class Udf:
    """A loaded function: its name, declared return type and library (the CREATE FUNCTION text)."""

    name: str
    returns: str
    library: str
    sql: str
    if_not_exists: bool = False

    def translate(self, arguments: list[str]) -> str:
        """The DuckDB SQL of a call with these (already translated) arguments."""
        export = LIBRARIES[self.library][self.name.lower()]
        assert export is not None  # load() lets only computable functions in
        return export[1](arguments)


def parse_create_function(text: str) -> Udf:
    """The function a CREATE FUNCTION ... SONAME statement declares; 1235 for a stored
    function or an aggregate UDF, which the simulator does not model."""
    match = _CREATE_FUNCTION.match(text)
    if match is None:
        raise not_supported("CREATE FUNCTION other than a loadable one (name RETURNS type SONAME 'library'): stored functions")
    if match["aggregate"]:
        raise not_supported("CREATE AGGREGATE FUNCTION")
    returns = "INTEGER" if match["returns"].upper() == "INT" else match["returns"].upper()
    return Udf(match["name"], returns, match["library"], text.strip(), bool(match["exists"]))


def check_loadable(udf: Udf) -> None:
    """What dlopen() and dlsym() would say: 1126 for a library the server cannot open, 1127
    for a symbol it does not export; a symbol the simulator cannot compute is not modelled."""
    exports = LIBRARIES.get(udf.library)
    if exports is None:
        raise SqlError(ErrorCode.ER_CANT_OPEN_LIBRARY, udf.library, 2, "cannot open shared object file: No such file or directory")
    if udf.name.lower() not in exports:
        raise SqlError(ErrorCode.ER_CANT_FIND_DL_ENTRY, udf.name)
    export = exports[udf.name.lower()]
    if export is None:
        raise not_supported(f"the UDF {udf.name}() of {udf.library}")
    if export[0] != udf.returns:
        raise not_supported(f"{udf.name}() declared RETURNS {udf.returns} (the library's function returns {export[0]})")
