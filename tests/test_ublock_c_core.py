"""The generated uBlock C library (generated/src/ublock_*.c), built with gcc
-O2 as a shared object and driven through ctypes, against the Python
reference (gen.kernels.ublock_reference) and the kernels' own key-form
definitions: the vectorized key schedule (one key and two per register), the
key forms of both strategies, ECB/CBC/CTR on every native implementation at
lengths around every batch boundary, the multi-key API, and the error codes."""

import ctypes
import random

import pytest

from gen.emit import ublock_files
from gen.kernels import ublock_nibbleslice, ublock_reference as ref
from gen.specs import ublock

from conftest import check_ctr_xor, generated_library, native_impls

OK, ERR_LENGTH, ERR_NO_IMPL, ERR_VARIANT = 0, -1, -2, -3
ECB, CBC, CTR = 0, 1, 2
DECRYPT, ENCRYPT = 0, 1
VARIANTS = [(n, k) for n, k in ublock.VARIANTS]
MAX_ROUNDS = max(ublock.VARIANTS.values())
MAX_BLOCK = max(n for n, _ in VARIANTS) // 8
FOLDED_BYTES = MAX_ROUNDS * 2 * MAX_BLOCK * 16


class UblockKey(ctypes.Structure):
    _fields_ = [("variant", ctypes.c_int), ("rounds", ctypes.c_uint),
                ("rk", (ctypes.c_uint8 * MAX_BLOCK) * (MAX_ROUNDS + 1)),
                ("align_image", ctypes.c_uint8 * 8),  # the key forms start on 16 bytes (UBLOCK_KEY_FORM_ALIGN)
                ("image", ((ctypes.c_uint8 * 128) * (MAX_ROUNDS + 1)) * 2),
                ("folded", (ctypes.c_uint8 * FOLDED_BYTES) * 2)]


class UblockKeySchedule(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("cpu_supported", ctypes.CFUNCTYPE(ctypes.c_int)),
                ("expand", ctypes.c_void_p * len(VARIANTS)), ("fold", (ctypes.c_void_p * 2) * len(VARIANTS))]


class UblockImpl(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("strategy", ctypes.c_char_p), ("target", ctypes.c_char_p),
                ("batch_blocks", ctypes.c_uint * len(VARIANTS)), ("emulated", ctypes.c_int),
                ("cpu_supported", ctypes.CFUNCTYPE(ctypes.c_int)),
                ("crypt_blocks", ctypes.c_void_p), ("crypt_blocks_multi", ctypes.c_void_p),
                ("encrypt_blocks_xor", ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                                        ctypes.c_void_p, ctypes.c_size_t)),
                ("ctr_xor", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                             ctypes.c_void_p, ctypes.c_size_t))]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("ublock_c_core"), ublock_files.sources(), "ublock")
    p, size, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    so.ublock_set_key.argtypes = [p, i, ctypes.c_char_p]
    so.ublock_set_keys.argtypes = [p, i, p, size]
    so.ublock_crypt.argtypes = [p, i, i, p, ctypes.c_char_p, ctypes.c_char_p, p, size]
    so.ublock_crypt_multi.argtypes = [p, i, i, size, p, p, p, p, size]
    so.ublock_impls.restype = ctypes.POINTER(ctypes.POINTER(UblockImpl))
    so.ublock_impls.argtypes = [ctypes.POINTER(size)]
    so.ublock_variant_name.restype = ctypes.c_char_p
    so.ublock_key_schedules.restype = ctypes.POINTER(ctypes.POINTER(UblockKeySchedule))
    so.ublock_key_schedules.argtypes = [ctypes.POINTER(size)]
    so.ublock_set_keys_using.argtypes = [p, p, i, p, size]
    return so


def key_schedules(lib):
    count = ctypes.c_size_t()
    listed = lib.ublock_key_schedules(ctypes.byref(count))
    return [listed[j] for j in range(count.value)]


def variant_index(n, k):
    return VARIANTS.index((n, k))


def set_key(lib, n, k, key_bytes):
    key = UblockKey()
    assert lib.ublock_set_key(ctypes.byref(key), variant_index(n, k), key_bytes) == OK
    return key


def crypt(lib, impl, mode, direction, key, iv, data):
    out = ctypes.create_string_buffer(len(data) + 1)
    rc = lib.ublock_crypt(impl, mode, direction, ctypes.byref(key), iv, data, out, len(data))
    return rc, out.raw[:len(data)]


def test_variant_names(lib):
    assert [lib.ublock_variant_name(j).decode() for j in range(len(VARIANTS))] == \
        [v["name"] for v in ublock_files.variants()]
    assert lib.ublock_variant_name(len(VARIANTS)) is None


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_key_schedule_and_key_forms(lib, variant):
    n, k = variant
    rng = random.Random(n * 1000 + k)
    key_bytes = rng.randbytes(k // 8)
    key = set_key(lib, n, k, key_bytes)
    rks = ref.round_keys(n, k, key_bytes)
    rounds = ublock.VARIANTS[variant]
    assert key.rounds == rounds
    for i in range(rounds + 1):
        assert bytes(key.rk[i])[:n // 8] == ref.from_nibbles(rks[i])
    for direction, index in (("encrypt", ENCRYPT), ("decrypt", DECRYPT)):
        folded = ublock_nibbleslice.folded_tables(rks, direction)
        assert bytes(key.folded[index])[:len(folded)] == folded
        order = rks if direction == "encrypt" else rks[::-1]
        for step, rk in enumerate(order):
            image = bytes(key.image[index][step])
            for h in range(2):
                half = rk[h * n // 8:(h + 1) * n // 8]
                assert image[64 * h:64 * h + 64] == bytes(v * 0x11 for v in half) * (64 // len(half))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_two_keys_per_register_equal_one_at_a_time(lib, variant):
    n, k = variant
    rng = random.Random(k - n)
    raw = [rng.randbytes(k // 8) for _ in range(5)]
    keys = (UblockKey * 5)()
    pointers = (ctypes.c_char_p * 5)(*raw)
    assert lib.ublock_set_keys(keys, variant_index(n, k), pointers, 5) == OK
    for j in range(5):
        assert bytes(keys[j]) == bytes(set_key(lib, n, k, raw[j]))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_every_key_schedule_sets_the_same_keys(lib, variant):
    """Each key schedule of this architecture (the C one and its assembly
    twin, gen/emit/ublock_files.key_schedule_targets) against ublock_set_keys,
    which test_key_schedule_and_key_forms checks against the reference."""
    n, k = variant
    schedules = key_schedules(lib)
    assert [s.contents.target.decode() for s in schedules] == \
        [t.name for t in ublock_files.key_schedule_targets() if t.arch.name == "x86_64"]
    rng = random.Random(n ^ k)
    raw = [rng.randbytes(k // 8) for _ in range(3)]
    pointers = (ctypes.c_char_p * 3)(*raw)
    expected = (UblockKey * 3)()
    assert lib.ublock_set_keys(expected, variant_index(n, k), pointers, 3) == OK
    for schedule in schedules:
        assert schedule.contents.cpu_supported()
        keys = (UblockKey * 3)()
        assert lib.ublock_set_keys_using(schedule, keys, variant_index(n, k), pointers, 3) == OK
        assert bytes(keys) == bytes(expected), schedule.contents.target
    assert lib.ublock_set_keys_using(None, keys, variant_index(n, k), pointers, 3) == ERR_NO_IMPL


def test_errors(lib):
    key = UblockKey()
    assert lib.ublock_set_key(ctypes.byref(key), 7, bytes(32)) == ERR_VARIANT
    key = set_key(lib, 128, 128, bytes(16))
    assert crypt(lib, None, ECB, ENCRYPT, key, None, bytes(17))[0] == ERR_LENGTH
    assert crypt(lib, None, CBC, DECRYPT, key, bytes(16), bytes(15))[0] == ERR_LENGTH
    assert crypt(lib, None, CTR, ENCRYPT, key, bytes(16), bytes(15))[0] == OK


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_every_native_impl_and_mode_matches_the_reference(lib, variant):
    n, k = variant
    bb = n // 8
    rng = random.Random(n + 3 * k)
    key_bytes = rng.randbytes(k // 8)
    key = set_key(lib, n, k, key_bytes)
    impls = native_impls(lib.ublock_impls)
    assert len(impls) > 1
    largest = max(imp.contents.batch_blocks[variant_index(n, k)] for _, imp in impls)
    for blocks in sorted({0, 1, 2, largest - 1, largest, largest + 1, 2 * largest + 3}):
        data = rng.randbytes(blocks * bb)
        iv = b"\xff" * (bb - 1) + bytes([0xff - rng.randrange(3)])  # the counter wraps within a few blocks
        expected = {(ECB, ENCRYPT): ref.ecb(n, k, key_bytes, data), (ECB, DECRYPT): ref.ecb(n, k, key_bytes, data, False),
                    (CBC, ENCRYPT): ref.cbc(n, k, key_bytes, iv, data), (CBC, DECRYPT): ref.cbc(n, k, key_bytes, iv, data, False)}
        tail = data + rng.randbytes(rng.randrange(1, bb))
        for name, imp in impls:
            for (mode, direction), want in expected.items():
                assert crypt(lib, imp, mode, direction, key, iv, data) == (OK, want), (name, mode, direction, blocks)
            assert crypt(lib, imp, CTR, ENCRYPT, key, iv, tail) == (OK, ref.ctr(n, k, key_bytes, iv, tail)), (name, blocks)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_fused_encrypt_xor_and_in_place_ctr(lib, variant):
    """encrypt_blocks_xor (CTR's keystream and XOR in one pass) is ECB(in) ^ src
    at every count around a batch, from odd addresses, with src == out too;
    and CTR in place (in == out, which makes src == out) equals the reference."""
    n, k = variant
    bb = n // 8
    rng = random.Random(7 * n + k)
    key_bytes = rng.randbytes(k // 8)
    key = set_key(lib, n, k, key_bytes)
    for name, imp in native_impls(lib.ublock_impls):
        fused = imp.contents.encrypt_blocks_xor
        assert bool(fused) == (name != "reference_scalar"), name  # every SIMD kernel has its fused form
        per = imp.contents.batch_blocks[variant_index(n, k)]
        for blocks in (1, per - 1, per, per + 1, 2 * per + 3) if fused else ():
            data, message = rng.randbytes(blocks * bb), rng.randbytes(blocks * bb)
            keystream = ref.ecb(n, k, key_bytes, data)
            want = bytes(a ^ b for a, b in zip(keystream, message))
            buf = ctypes.create_string_buffer(1 + 2 * blocks * bb)  # odd offsets: unaligned
            src, out = ctypes.addressof(buf) + 1, ctypes.addressof(buf) + 1 + blocks * bb
            ctypes.memmove(src, message, len(message))
            fused(ctypes.byref(key), data, src, out, blocks)
            assert ctypes.string_at(out, len(want)) == want, (name, blocks)
            fused(ctypes.byref(key), data, src, src, blocks)
            assert ctypes.string_at(src, len(want)) == want, (name, blocks, "src == out")
        iv = rng.randbytes(bb)
        data = rng.randbytes(2 * per * bb + bb // 2)
        inout = ctypes.create_string_buffer(data, len(data))
        assert lib.ublock_crypt(imp, CTR, ENCRYPT, ctypes.byref(key), iv, inout, inout, len(data)) == OK
        assert inout.raw[:len(data)] == ref.ctr(n, k, key_bytes, iv, data), name


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_ctr_xor_from_the_counter(lib, variant):
    """ctr_xor, where every SIMD kernel builds the counter blocks V + j
    itself from V and V + 256 (the nibble-sliced ones running the first round
    once per call, the register method through gen/ir/keystream.py's counter
    blocks): CTR from V at the edges of a carry (conftest.check_ctr_xor).
    Only the reference has none."""
    n, k = variant
    rng = random.Random(11 * n + k)
    key_bytes = rng.randbytes(k // 8)
    key = set_key(lib, n, k, key_bytes)
    for name, imp in native_impls(lib.ublock_impls):
        entry = imp.contents.ctr_xor
        assert bool(entry) == (name != "reference_scalar"), name
        if entry:
            check_ctr_xor(entry, key, n, imp.contents.batch_blocks[variant_index(n, k)],
                          lambda iv, message: ref.ctr(n, k, key_bytes, iv, message), rng, OK, ERR_LENGTH, name)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_ctr_across_groups(lib, variant):
    """CTR through ublock_crypt over several groups of 256 blocks (the mode
    layer's ctr_xor calls, then the tail) equals the C reference kernel's,
    from IVs whose low byte is 0, near a carry, and a few blocks before the
    whole counter wraps, at lengths ending on a group, on a batch, and mid-block."""
    n, k = variant
    bb, top = n // 8, 1 << n
    rng = random.Random(13 * n + k)
    key = set_key(lib, n, k, rng.randbytes(k // 8))
    impls = dict(native_impls(lib.ublock_impls))
    reference = impls.pop("reference_scalar")
    group = ublock_nibbleslice.GROUP_BLOCKS
    ivs = [rng.randrange(top) & ~0xff, rng.randrange(top) | 0xfd, top - 300]
    lengths = [3 * group * bb, (2 * group + 64) * bb, (2 * group + 64) * bb + bb // 2 + 1]
    for iv in ivs:
        for length in lengths:
            data = rng.randbytes(length)
            _, want = crypt(lib, reference, CTR, ENCRYPT, key, iv.to_bytes(bb, "big"), data)
            for name, imp in impls.items():
                rc, got = crypt(lib, imp, CTR, ENCRYPT, key, iv.to_bytes(bb, "big"), data)
                assert (rc, got) == (OK, want), (name, hex(iv), length)


def test_key_forms_start_on_16_bytes(lib):
    """The key struct's layout as C has it (UBLOCK_KEY_FORM_ALIGN): the mirror
    above agrees with where ublock_folded finds the tables, and they start on
    16 bytes, so no 16-byte table load crosses a cache line."""
    key = set_key(lib, 256, 256, bytes(32))
    lib.ublock_folded.restype = ctypes.c_void_p
    for direction in (DECRYPT, ENCRYPT):
        offset = lib.ublock_folded(ctypes.byref(key), direction) - ctypes.addressof(key)
        assert offset == UblockKey.folded.offset + direction * FOLDED_BYTES
    assert UblockKey.image.offset % 16 == 0 and UblockKey.folded.offset % 16 == 0


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v[0]}_{v[1]}")
def test_multi_key_streams_match_single_key_runs(lib, variant):
    n, k = variant
    bb = n // 8
    rng = random.Random(7 * n + k)
    multi = [(name, imp) for name, imp in native_impls(lib.ublock_impls) if imp.contents.crypt_blocks_multi]
    assert any(name.startswith("register_") for name, _ in multi)
    for streams in (1, 3, 9):
        raw = [rng.randbytes(k // 8) for _ in range(streams)]
        keys = [set_key(lib, n, k, r) for r in raw]
        ivs = [rng.randbytes(bb) for _ in range(streams)]
        blocks = rng.randrange(1, 6)
        data = [rng.randbytes(blocks * bb) for _ in range(streams)]
        key_ptrs = (ctypes.c_void_p * streams)(*[ctypes.addressof(key) for key in keys])
        iv_ptrs = (ctypes.c_char_p * streams)(*ivs)
        in_ptrs = (ctypes.c_char_p * streams)(*data)
        for name, imp in multi:
            for mode, direction in ((ECB, ENCRYPT), (ECB, DECRYPT), (CBC, ENCRYPT), (CBC, DECRYPT), (CTR, ENCRYPT)):
                outs = [ctypes.create_string_buffer(blocks * bb) for _ in range(streams)]
                out_ptrs = (ctypes.c_void_p * streams)(*[ctypes.addressof(o) for o in outs])
                assert lib.ublock_crypt_multi(imp, mode, direction, streams, key_ptrs, iv_ptrs, in_ptrs, out_ptrs,
                                              blocks * bb) == OK
                for j in range(streams):
                    want = {ECB: lambda: ref.ecb(n, k, raw[j], data[j], direction == ENCRYPT),
                            CBC: lambda: ref.cbc(n, k, raw[j], ivs[j], data[j], direction == ENCRYPT),
                            CTR: lambda: ref.ctr(n, k, raw[j], ivs[j], data[j])}[mode]()
                    assert outs[j].raw == want, (name, mode, direction, streams, j)
