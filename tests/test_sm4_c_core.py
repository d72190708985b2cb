"""The generated SM4 C library's fused entry points (crypt_blocks_xor: a
kernel pass with an XOR folded into its stores, which CTR and CBC decryption
run on; ctr_xor: CTR with the counter blocks built by the kernel), built with
gcc -O2 as a shared object and driven through ctypes, against the Python
reference (gen.kernels.sm4_reference).  The harness's verify covers the rest
of the C library (vectors, every mode against the reference scalar kernel)."""

import ctypes
import random

import pytest

from gen.emit import sm4_files
from gen.kernels import sm4_reference as ref
from gen.specs import sm4

from conftest import check_ctr_xor, generated_library, native_impls

OK, ERR_LENGTH = 0, -1
CBC, CTR = 1, 2
DECRYPT, ENCRYPT = 0, 1
BLOCK = sm4.BLOCK_BYTES
ROUNDS = 32


class Sm4Key(ctypes.Structure):
    _fields_ = [("rk", (ctypes.c_uint32 * ROUNDS) * 2), ("rk_sliced", ((ctypes.c_uint32 * 4) * ROUNDS) * 2)]


class Sm4Impl(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("strategy", ctypes.c_char_p), ("target", ctypes.c_char_p),
                ("batch_blocks", ctypes.c_uint), ("emulated", ctypes.c_int),
                ("cpu_supported", ctypes.CFUNCTYPE(ctypes.c_int)), ("crypt_blocks", ctypes.c_void_p),
                ("crypt_blocks_xor", ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                                      ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)),
                ("ctr_xor", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                             ctypes.c_void_p, ctypes.c_size_t))]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("sm4_c_core"), sm4_files.sources(), "sm4")
    p, size, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    so.sm4_set_key.argtypes = [p, ctypes.c_char_p]
    so.sm4_crypt.argtypes = [p, i, i, p, ctypes.c_char_p, ctypes.c_char_p, p, size]
    so.sm4_impls.restype = ctypes.POINTER(ctypes.POINTER(Sm4Impl))
    so.sm4_impls.argtypes = [ctypes.POINTER(size)]
    return so


def ecb(key_bytes, data, encrypt=True):
    block = ref.encrypt_block if encrypt else ref.decrypt_block
    return b"".join(block(key_bytes, data[i:i + BLOCK]) for i in range(0, len(data), BLOCK))


def ctr(key_bytes, iv, data):
    """CTR by the reference: the IV as one big-endian 128-bit counter."""
    start = int.from_bytes(iv, "big")
    counters = b"".join(((start + i) % (1 << 128)).to_bytes(BLOCK, "big") for i in range(-(-len(data) // BLOCK)))
    return bytes(a ^ b for a, b in zip(data, ecb(key_bytes, counters)))


def test_fused_crypt_xor_and_in_place_modes(lib):
    """crypt_blocks_xor is ECB(in) ^ src in both directions at every count
    around a batch, from odd addresses, with src == out too; and CTR and CBC
    decryption in place (in == out), which run on it, equal the reference."""
    rng = random.Random(4)
    key_bytes = rng.randbytes(16)
    key = Sm4Key()
    lib.sm4_set_key(ctypes.byref(key), key_bytes)
    impls = native_impls(lib.sm4_impls)
    assert len(impls) > 1
    iv = b"\xff" * 15 + bytes([0xfe])  # as a counter, it wraps around within the message
    # CBC decryption over more blocks than the mode layer's chunks (a few of
    # the largest batch), so that the chaining block crosses chunks.
    ciphertext = rng.randbytes((8 * max(imp.contents.batch_blocks for _, imp in impls) + 3) * BLOCK)
    plain = bytes(a ^ b for a, b in zip(ecb(key_bytes, ciphertext, False), iv + ciphertext[:-BLOCK]))
    for name, imp in impls:
        fused = imp.contents.crypt_blocks_xor
        assert bool(fused) == (name != "reference_scalar"), name  # every SIMD kernel has its fused form
        per = imp.contents.batch_blocks
        for direction in (ENCRYPT, DECRYPT):
            for blocks in (1, per - 1, per, per + 1, 2 * per + 3) if fused else ():
                data, message = rng.randbytes(blocks * BLOCK), rng.randbytes(blocks * BLOCK)
                want = bytes(a ^ b for a, b in zip(ecb(key_bytes, data, direction == ENCRYPT), message))
                buf = ctypes.create_string_buffer(1 + 2 * blocks * BLOCK)  # odd offsets: unaligned
                src, out = ctypes.addressof(buf) + 1, ctypes.addressof(buf) + 1 + blocks * BLOCK
                ctypes.memmove(src, message, len(message))
                fused(ctypes.byref(key), direction, data, src, out, blocks)
                assert ctypes.string_at(out, len(want)) == want, (name, direction, blocks)
                fused(ctypes.byref(key), direction, data, src, src, blocks)
                assert ctypes.string_at(src, len(want)) == want, (name, direction, blocks, "src == out")
        data = rng.randbytes(2 * per * BLOCK + BLOCK // 2)
        inout = ctypes.create_string_buffer(data, len(data))
        assert lib.sm4_crypt(imp, CTR, ENCRYPT, ctypes.byref(key), iv, inout, inout, len(data)) == OK
        assert inout.raw[:len(data)] == ctr(key_bytes, iv, data), name
        inout = ctypes.create_string_buffer(ciphertext, len(ciphertext))
        assert lib.sm4_crypt(imp, CBC, DECRYPT, ctypes.byref(key), iv, inout, inout, len(ciphertext)) == OK
        assert inout.raw[:len(ciphertext)] == plain, name


def test_ctr_xor_builds_the_counter_blocks(lib):
    """ctr_xor, where every SIMD kernel builds the counter blocks V + j in
    registers (gen/ir/keystream.py counter_blocks): CTR from V at the edges
    of a carry, one batch and a whole group (conftest.check_ctr_xor).  Only
    the reference has none."""
    rng = random.Random(5)
    key_bytes = rng.randbytes(16)
    key = Sm4Key()
    lib.sm4_set_key(ctypes.byref(key), key_bytes)
    for name, imp in native_impls(lib.sm4_impls):
        entry = imp.contents.ctr_xor
        assert bool(entry) == (name != "reference_scalar"), name
        if entry:
            check_ctr_xor(entry, key, 8 * BLOCK, imp.contents.batch_blocks,
                          lambda iv, message: ctr(key_bytes, iv, message), rng, OK, ERR_LENGTH, name)
