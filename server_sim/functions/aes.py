"""AES_ENCRYPT(str, key) and AES_DECRYPT(crypt, key) under the servers' default
block_encryption_mode, aes-128-ecb (mysys/my_aes.cc, my_aes_openssl.cc): the key's bytes
are folded into 16 by XOR (my_aes_create_key), the text is padded as PKCS#7 says, so the
result is 16 bytes for every whole or started 16 of the text's. AES_DECRYPT of bytes that
are no such result (a wrong length, a wrong key, its padding broken) is NULL.

MySQL 8.0 takes an initialization vector as a third argument (ignored in ECB mode with
Warning 1618) and, from 8.0.30, a key derivation function after it: refused (1235).
MariaDB 10.11 takes the two arguments only (1582). Both arguments are read as bytes in
their character sets (byte_arguments.py). MySQL marks both functions unsafe for the
statement format (block_encryption_mode is not replicated: Flavor.unsafe_functions).
"""

from __future__ import annotations

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from sqlglot import exp

from ..declined import Declined
from ..errors import not_supported
from ..operands import Operand
from .byte_arguments import BYTES
from .library import Compiling, SqlFunction, Translating
from .native import native

_KEY_BYTES = 16  # aes-128
_BLOCK_BITS = 128


def _folded_key(key: bytes) -> bytes:
    """my_aes_create_key: each byte of the key XORed into a 16-byte key, round and round."""
    folded = bytearray(_KEY_BYTES)
    for index, byte in enumerate(key):
        folded[index % _KEY_BYTES] ^= byte
    return bytes(folded)


def aes_encrypt(data: bytes, key: bytes) -> bytes:
    padder = padding.PKCS7(_BLOCK_BITS).padder()
    padded = padder.update(data) + padder.finalize()
    encryptor = Cipher(algorithms.AES(_folded_key(key)), modes.ECB()).encryptor()
    return encryptor.update(padded) + encryptor.finalize()


def aes_decrypt(data: bytes, key: bytes) -> bytes | None:
    if not data or len(data) % (_BLOCK_BITS // 8):
        return None
    decryptor = Cipher(algorithms.AES(_folded_key(key)), modes.ECB()).decryptor()
    padded = decryptor.update(data) + decryptor.finalize()
    unpadder = padding.PKCS7(_BLOCK_BITS).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        return None  # the padding is broken: a wrong key, or bytes no AES_ENCRYPT gave


def _two_arguments_only(function: SqlFunction) -> SqlFunction:
    """An entry that refuses MySQL's init-vector and key-derivation arguments (a flavor
    without them answers a wrong count with the native entry's 1582)."""
    translate, evaluate, name = function.duckdb, function.python, function.names[0]
    assert translate is not None and evaluate is not None

    def refuse_extra(node: exp.Expression, flavor_takes_them: bool) -> None:
        if len(node.expressions) > 2 and flavor_takes_them:
            raise not_supported(f"{name}() with an initialization vector or a key derivation function")

    def checked(node: exp.Expression, translation: Translating) -> exp.Expression:
        refuse_extra(node, translation.context.flavor.aes_init_vector)
        return translate(node, translation)

    def compiled(node: exp.Expression, compiler: Compiling) -> Operand:
        if len(node.expressions) > 2:
            raise Declined  # the translation answers it
        return evaluate(node, compiler)

    return SqlFunction(names=function.names, duckdb=checked, python=compiled)


AES: tuple[SqlFunction, ...] = (
    _two_arguments_only(native("AES_ENCRYPT", aes_encrypt, [BYTES, BYTES], "BLOB")),
    _two_arguments_only(native("AES_DECRYPT", aes_decrypt, [BYTES, BYTES], "BLOB")),
)
