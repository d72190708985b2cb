"""The generated ZUC C library (generated/src/zuc_*.c), built with gcc -O2 as a
shared object and driven through ctypes, against the Python reference
(gen.kernels.zuc_reference): the one-stream API (zuc_init / zuc_keystream,
zuc_encrypt, zuc_mac), the many-stream API on every native implementation in
the registry this CPU runs (batches, partial batches, streams of different
lengths, both MAC methods, every tag length), each kernel's ABI
(init_rounds / keystream_block / keystream_xor on the interleaved state), and the error codes.
Only the ZUC objects are compiled, through generated/Makefile's own rules and
flags; the SIMDe-built kernels are left to harness/c/verify (their build alone
takes longer than this whole file)."""

import ctypes
import json
import random

import pytest

from gen.backends.arch import X86_64
from gen.emit import zuc_files, zuc_kernel_files
from gen.kernels import zuc_reference as ref
from gen.specs import zuc

from conftest import VECTORS, generated_library

OK, ERR_KEY_LENGTH, ERR_IV_LENGTH, ERR_IV_VALUE, ERR_TAG_LENGTH, ERR_VARIANT, ERR_NO_IMPL, ERR_ARGUMENT = \
    0, -1, -2, -3, -4, -5, -6, -7
MAC_CLMUL, MAC_COMPARE, MAC_CLMUL128, MAC_CLMUL256, MAC_CLMUL512 = 0, 1, 2, 3, 4
# What each carry-less width needs, as /proc/cpuinfo names the flags: the
# CPU features of the least demanding kernel whose fold has that width
# (ssse3_aesni; avx2_aesni, PCLMULQDQ on each half; avx512_gfni).
WIDTH_FLAGS = {MAC_CLMUL128: {"pclmulqdq", "ssse3", "aes"},
               MAC_CLMUL256: {"pclmulqdq", "avx2", "aes"},
               MAC_CLMUL512: {"pclmulqdq", "avx512f", "avx512bw", "avx512vbmi", "avx512_vbmi2", "vpclmulqdq", "gfni"}}
FOLD = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p, ctypes.c_void_p)
KEY_BYTES = {128: 16, 256: 32, zuc.NEA6: 32}
C_VARIANT = {128: 128, 256: 256, zuc.NEA6: 6}  # zuc_variant's values
IV_FORMS = {128: (16,), 256: (25, 23)}
TAGS = {128: (32,), 256: (32, 64, 128)}
# Around every boundary the core has: bytes, 32-bit words, 64-bit MAC chunks,
# 16-word kernel blocks, its 16-block refills (8192 bits), and several KiB.
BIT_LENGTHS = (0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 129, 511, 512, 513, 1000, 4095, 4096,
               4097, 4160, 8191, 8192, 8193, 8256, 16383, 16384, 16385, 20000, 8 * 5000 + 5)


class ZucState(ctypes.Structure):
    _fields_ = [("s", ctypes.c_uint32 * 16), ("r1", ctypes.c_uint32), ("r2", ctypes.c_uint32)]


class ZucImpl(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("strategy", ctypes.c_char_p), ("target", ctypes.c_char_p),
                ("lanes", ctypes.c_uint), ("groups", ctypes.c_uint), ("emulated", ctypes.c_int),
                ("cpu_supported", ctypes.CFUNCTYPE(ctypes.c_int)),
                ("init_more_rounds", ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_uint32))),
                ("init_rounds", ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_uint32))),
                ("keystream_block", ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_uint32), ctypes.c_void_p)),
                ("keystream_xor", ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_uint32), ctypes.c_void_p,
                                                   ctypes.c_void_p)),
                ("mac_fold_bits", ctypes.c_uint), ("mac_fold", FOLD * 2)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("zuc_c_core"), zuc_files.sources(), "zuc")
    p, size, u32, vp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_void_p
    signatures = {
        "zuc_strerror": (ctypes.c_char_p, [ctypes.c_int]),
        "zuc_init": (ctypes.c_int, [ctypes.POINTER(ZucState), ctypes.c_int, p, size, p, size, u32]),
        "zuc_keystream": (None, [ctypes.POINTER(ZucState), ctypes.POINTER(ctypes.c_uint32), size]),
        "zuc_encrypt": (ctypes.c_int, [ctypes.c_int, p, size, p, size, p, p, size]),
        "zuc_mac": (ctypes.c_int, [ctypes.c_int, p, size, p, size, p, size, u32, p]),
        "zuc_impls": (ctypes.POINTER(ctypes.POINTER(ZucImpl)), [ctypes.POINTER(size)]),
        "zuc_impl_best": (ctypes.POINTER(ZucImpl), []),
        "zuc_encrypt_lanes": (ctypes.c_int, [vp, ctypes.c_int, size, vp, vp, size, vp, vp, vp]),
        "zuc_mac_lanes": (ctypes.c_int, [vp, ctypes.c_int, ctypes.c_int, size, vp, vp, size, vp, vp, u32, vp]),
        "zuc_mac_method_supported": (ctypes.c_int, [ctypes.c_int]),
        "zuc_nia6": (ctypes.c_int, [p, size, p, size, p, size, size, p]),
    }
    for name, (restype, argtypes) in signatures.items():
        getattr(so, name).restype, getattr(so, name).argtypes = restype, argtypes
    return so


def native_impls(lib):
    count = ctypes.c_size_t()
    table = lib.zuc_impls(ctypes.byref(count))
    return [table[i] for i in range(count.value) if not table[i].contents.emulated]


def runnable_impls(lib):
    return [i for i in native_impls(lib) if i.contents.cpu_supported()]


def rand_bytes(rng, n):
    return bytes(rng.randrange(256) for _ in range(n))


def rand_iv(rng, variant, iv_len):
    if iv_len == 25:
        return rand_bytes(rng, 17) + bytes(rng.randrange(64) for _ in range(8))
    return rand_bytes(rng, iv_len)


def message(rng, bits):
    """Random bytes for `bits` bits, the unused low bits of the last byte random
    too (the C code must ignore them)."""
    return rand_bytes(rng, (bits + 7) // 8)


def pointer_array(buffers):
    return (ctypes.c_void_p * max(1, len(buffers)))(*[ctypes.cast(b, ctypes.c_void_p) if b is not None else None
                                                       for b in buffers])


def buf(data):
    return ctypes.create_string_buffer(bytes(data), max(1, len(data)))


# ---- one stream ------------------------------------------------------------------------

def c_keystream(lib, variant, key, iv, pieces, tag_bits=0):
    st = ZucState()
    assert lib.zuc_init(ctypes.byref(st), variant, key, len(key), iv, len(iv), tag_bits) == OK
    words = []
    for n in pieces:
        out = (ctypes.c_uint32 * max(1, n))()
        lib.zuc_keystream(ctypes.byref(st), out, n)
        words += list(out)[:n]
    return words


def test_published_vectors_through_the_one_stream_api(lib):
    vectors = json.loads((VECTORS / "zuc.json").read_text())
    for v in vectors["zuc128_keystream"]:
        key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"])
        assert [f"{w:08x}" for w in c_keystream(lib, 128, key, iv, [len(v["keystream"])])] == v["keystream"]
    for v in vectors["zuc256_keystream"]:
        for form in ("iv25", "iv23"):
            if form in v:
                key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v[form])
                assert [f"{w:08x}" for w in c_keystream(lib, 256, key, iv, [len(v["keystream"])])] == v["keystream"]
    for variant, name, tags in ((128, "zuc128_mac", (32,)), (256, "zuc256_mac", (32, 64, 128))):
        for v in vectors[name]:
            key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v.get("iv") or v["iv25"])
            msg = bytes.fromhex(v["message"])
            for t in tags:
                tag = ctypes.create_string_buffer(t // 8)
                assert lib.zuc_mac(variant, key, len(key), iv, len(iv), msg, v["bits"], t, tag) == OK
                assert tag.raw.hex() == v[f"tag{t}"]
    for v in vectors["nea6_encrypt"]:
        key, iv, pt = (bytes.fromhex(v[k]) for k in ("key", "iv", "plaintext"))
        out = ctypes.create_string_buffer(len(pt))
        assert lib.zuc_encrypt(C_VARIANT[zuc.NEA6], key, 32, iv, 16, pt, out, v["bits"]) == OK
        assert out.raw.hex() == v["ciphertext"]
        if v["bits"] % 32 == 0:
            words = c_keystream(lib, C_VARIANT[zuc.NEA6], key, iv, [v["bits"] // 32])
            assert b"".join(w.to_bytes(4, "big") for w in words) == bytes(a ^ b for a, b in zip(pt, out.raw))


@pytest.mark.parametrize("variant,iv_len", [(128, 16), (256, 25), (256, 23)])
def test_keystream_in_pieces_matches_reference(lib, variant, iv_len):
    """Whole kernel blocks and the kernel's one-round program for the rest,
    in any split, continue one another."""
    rng = random.Random(variant * 100 + iv_len)
    for tag_bits in (0,) + TAGS[variant]:
        key, iv = rand_bytes(rng, KEY_BYTES[variant]), rand_iv(rng, variant, iv_len)
        pieces = [0, 1, 15, 16, 17, 3, 32, 5, 48]
        expected = ref.keystream_words(variant, key, iv, sum(pieces), tag_bits)
        assert c_keystream(lib, variant, key, iv, pieces, tag_bits) == expected


@pytest.mark.parametrize("variant,iv_len", [(128, 16), (256, 25), (256, 23)])
def test_encrypt_matches_reference(lib, variant, iv_len):
    rng = random.Random(variant + iv_len)
    for bits in BIT_LENGTHS:
        key, iv, data = rand_bytes(rng, KEY_BYTES[variant]), rand_iv(rng, variant, iv_len), message(rng, bits)
        out = buf(bytes(len(data)))
        assert lib.zuc_encrypt(variant, key, len(key), iv, len(iv), data, out, bits) == OK
        assert out.raw[:len(data)] == ref.encrypt(variant, key, iv, data, bits), bits
        inplace = buf(data)
        assert lib.zuc_encrypt(variant, key, len(key), iv, len(iv), inplace, inplace, bits) == OK
        assert inplace.raw[:len(data)] == out.raw[:len(data)]


@pytest.mark.parametrize("variant,iv_len", [(128, 16), (256, 25), (256, 23)])
def test_mac_matches_reference(lib, variant, iv_len):
    rng = random.Random(3 * variant + iv_len)
    for bits in BIT_LENGTHS:
        key, iv, msg = rand_bytes(rng, KEY_BYTES[variant]), rand_iv(rng, variant, iv_len), message(rng, bits)
        for t in TAGS[variant]:
            tag = ctypes.create_string_buffer(t // 8)
            assert lib.zuc_mac(variant, key, len(key), iv, len(iv), msg, bits, t, tag) == OK
            assert tag.raw == ref.mac(variant, key, iv, msg, bits, t), (bits, t)


# ---- many streams ---------------------------------------------------------------------------

def impl_id(impl):
    return impl.contents.name.decode()


def lanes_streams(rng, variant, iv_len, count):
    """count streams of different lengths: short ones, ones around the 64-bit
    chunks and the 4096-bit refills, and two of several thousand bits."""
    lengths = [rng.choice((0, 1, 7, 31, 32, 33, 64, 65, 127, 500)) for _ in range(count)]
    for i, bits in zip(range(0, count, 3), (4095, 4096, 4097, 9000, 13001)):
        lengths[i] = bits
    return [(rand_bytes(rng, KEY_BYTES[variant]), rand_iv(rng, variant, iv_len), message(rng, bits), bits)
            for bits in lengths]


def c_encrypt_lanes(lib, impl, variant, streams):
    keys, ivs = [buf(s[0]) for s in streams], [buf(s[1]) for s in streams]
    ins = [buf(s[2]) if s[3] else None for s in streams]
    outs = [buf(bytes(len(s[2]))) for s in streams]
    bits = (ctypes.c_size_t * max(1, len(streams)))(*[s[3] for s in streams])
    status = lib.zuc_encrypt_lanes(impl, variant, len(streams), pointer_array(keys), pointer_array(ivs),
                                   len(streams[0][1]), pointer_array(ins), pointer_array(outs), bits)
    assert status == OK
    return [o.raw[:len(s[2])] for o, s in zip(outs, streams)]


def c_mac_lanes(lib, impl, method, variant, streams, tag_bits):
    keys, ivs = [buf(s[0]) for s in streams], [buf(s[1]) for s in streams]
    msgs = [buf(s[2]) if s[3] else None for s in streams]
    tags = [ctypes.create_string_buffer(tag_bits // 8) for _ in streams]
    bits = (ctypes.c_size_t * len(streams))(*[s[3] for s in streams])
    status = lib.zuc_mac_lanes(impl, method, variant, len(streams), pointer_array(keys), pointer_array(ivs),
                               len(streams[0][1]), pointer_array(msgs), bits, tag_bits, pointer_array(tags))
    assert status == OK
    return [t.raw for t in tags]


def test_registry_lists_the_kernels_and_the_reference_last(lib):
    impls = native_impls(lib)
    names = [impl_id(i) for i in impls]
    # This library is built for x86-64: its registry holds the x86 kernels, then the reference.
    x86 = {name for name, target in zuc_kernel_files.registry_kernels() if target.arch == X86_64}
    assert names == [n for n in zuc_files.impl_names() if n in x86 or n == "reference_scalar"]
    reference = impls[-1].contents
    assert (reference.strategy, reference.target, reference.cpu_supported()) == (b"reference", b"scalar", 1)
    best = lib.zuc_impl_best()
    assert ctypes.addressof(best.contents) == ctypes.addressof(runnable_impls(lib)[0].contents)


@pytest.mark.parametrize("variant,iv_len", [(128, 16), (256, 25), (256, 23)])
def test_lanes_api_on_every_impl(lib, variant, iv_len):
    """n = 1 .. 2 * lanes + 1 streams (full and partial batches) on every
    implementation; encryption and both MAC methods with every tag length."""
    rng = random.Random(7 * variant + iv_len)
    impls = runnable_impls(lib)
    streams = lanes_streams(rng, variant, iv_len, 2 * max(i.contents.lanes for i in impls) + 1)
    want_ct = [ref.encrypt(variant, k, v, d, b) for k, v, d, b in streams]
    want_tag = {t: [ref.mac(variant, k, v, d, b, t) for k, v, d, b in streams] for t in TAGS[variant]}
    for impl in impls:
        lanes = impl.contents.lanes
        for n in range(1, 2 * lanes + 2):
            part = streams[:n]
            assert c_encrypt_lanes(lib, impl, variant, part) == want_ct[:n], (impl_id(impl), n)
            for t in TAGS[variant]:
                for method in (MAC_CLMUL, MAC_COMPARE):
                    assert c_mac_lanes(lib, impl, method, variant, part, t) == want_tag[t][:n], \
                        (impl_id(impl), n, t, method)


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        return next(set(line.split(":", 1)[1].split()) for line in f if line.startswith("flags"))


@pytest.mark.parametrize("method", [MAC_CLMUL128, MAC_CLMUL256, MAC_CLMUL512])
def test_each_clmul_width_on_its_own(lib, method):
    """A carry-less width asked for by name runs exactly where the CPU has its
    instructions, and there gives the reference's tags for lengths around its
    wide steps (2, 4 or 8 chunks) and their leftovers; elsewhere the call is
    refused with ZUC_ERR_NO_IMPL."""
    supported = WIDTH_FLAGS[method] <= cpu_flags()
    assert lib.zuc_mac_method_supported(method) == int(supported)
    rng = random.Random(method)
    impl = lib.zuc_impl_best()
    for variant, iv_len in ((128, 16), (256, 25), (256, 23)):
        streams = [(rand_bytes(rng, KEY_BYTES[variant]), rand_iv(rng, variant, iv_len), message(rng, bits), bits)
                   for bits in BIT_LENGTHS]
        for t in TAGS[variant]:
            if supported:
                want = [ref.mac(variant, k, v, d, b, t) for k, v, d, b in streams]
                assert c_mac_lanes(lib, impl, method, variant, streams, t) == want, (variant, iv_len, t)
            else:
                tags = [ctypes.create_string_buffer(t // 8) for _ in streams]
                bits = (ctypes.c_size_t * len(streams))(*[s[3] for s in streams])
                status = lib.zuc_mac_lanes(impl, method, variant, len(streams),
                                           pointer_array([buf(s[0]) for s in streams]),
                                           pointer_array([buf(s[1]) for s in streams]), iv_len,
                                           pointer_array([buf(s[2]) for s in streams]), bits, t,
                                           pointer_array(tags))
                assert status == ERR_NO_IMPL


def test_kernel_abi_on_every_impl(lib):
    """init_rounds (after init_more_rounds for NEA6), keystream_block and
    keystream_xor (in place into random messages) of each kernel on the
    interleaved state, against the reference model of the same ABI; each
    lane's output goes to its own buffer."""
    rng = random.Random(11)
    for impl in runnable_impls(lib):
        kernel, lanes = impl.contents, impl.contents.lanes
        for variant, iv_len in ((128, 16), (256, 25), (zuc.NEA6, 16)):
            keys = [rand_bytes(rng, KEY_BYTES[variant]) for _ in range(lanes)]
            ivs = [rand_iv(rng, variant, iv_len) for _ in range(lanes)]
            model = ref.lanes_state(variant, keys, ivs)
            state = (ctypes.c_uint32 * len(model))(*model)
            if variant == zuc.NEA6:
                kernel.init_more_rounds(state)
                ref.init_more_rounds(model, lanes)
                assert list(state) == model, impl_id(impl)
            kernel.init_rounds(state)
            ref.init_rounds(model, lanes)
            assert list(state) == model, impl_id(impl)
            for _ in range(2):
                rows = [ctypes.create_string_buffer(64) for _ in range(lanes)]
                kernel.keystream_block(state, pointer_array(rows))
                assert b"".join(row.raw for row in rows) == ref.keystream_block(model, lanes)
                assert list(state) == model
            messages = [rand_bytes(rng, 64) for _ in range(lanes)]
            rows = [buf(m) for m in messages]
            kernel.keystream_xor(state, pointer_array(rows), pointer_array(rows))
            ks = ref.keystream_block(model, lanes)
            assert [row.raw[:64] for row in rows] == [
                bytes(a ^ b for a, b in zip(ks[64 * j:64 * j + 64], messages[j])) for j in range(lanes)]
            assert list(state) == model


# ---- errors ---------------------------------------------------------------------------------

def test_error_codes(lib):
    st, key16, key32, iv16, iv25 = ZucState(), bytes(16), bytes(32), bytes(16), bytes(25)
    bad_iv25 = bytes(17) + bytes([0x40]) + bytes(7)
    tag, out = ctypes.create_string_buffer(16), ctypes.create_string_buffer(4)

    def init(variant, key, iv, tag_bits=0):
        return lib.zuc_init(ctypes.byref(st), variant, key, len(key), iv, len(iv), tag_bits)

    assert init(128, key16, iv16) == OK and init(256, key32, iv25) == OK and init(256, key32, bytes(23), 128) == OK
    assert init(128, bytes(15), iv16) == ERR_KEY_LENGTH
    assert init(256, key16, iv25) == ERR_KEY_LENGTH
    assert init(128, key16, bytes(15)) == ERR_IV_LENGTH
    assert init(256, key32, bytes(24)) == ERR_IV_LENGTH and init(256, key32, iv16) == ERR_IV_LENGTH
    assert init(256, key32, bad_iv25) == ERR_IV_VALUE
    assert init(256, key32, bytes(17) + bytes([0x3f]) * 8) == OK
    assert init(256, key32, iv25, 16) == ERR_TAG_LENGTH and init(128, key16, iv16, 64) == ERR_TAG_LENGTH
    assert init(192, key32, iv25) == ERR_VARIANT
    assert lib.zuc_init(None, 128, key16, 16, iv16, 16, 0) == ERR_ARGUMENT
    nea6 = C_VARIANT[zuc.NEA6]
    assert init(nea6, key32, iv16) == OK and init(nea6, key16, iv16) == ERR_KEY_LENGTH
    assert init(nea6, key32, iv25) == ERR_IV_LENGTH and init(nea6, key32, bytes(23)) == ERR_IV_LENGTH
    assert init(nea6, key32, iv16, 32) == ERR_TAG_LENGTH
    assert lib.zuc_mac(nea6, key32, 32, iv16, 16, b"\0", 8, 32, tag) == ERR_VARIANT

    assert lib.zuc_encrypt(256, key32, 32, bad_iv25, 25, b"\0", out, 8) == ERR_IV_VALUE
    assert lib.zuc_encrypt(128, key32, 32, iv16, 16, b"\0", out, 8) == ERR_KEY_LENGTH
    assert lib.zuc_encrypt(7, key16, 16, iv16, 16, b"\0", out, 8) == ERR_VARIANT
    assert lib.zuc_encrypt(128, key16, 16, iv16, 16, None, out, 8) == ERR_ARGUMENT
    assert lib.zuc_encrypt(128, key16, 16, iv16, 16, None, None, 0) == OK
    for t in (0, 16, 64, 128):
        assert lib.zuc_mac(128, key16, 16, iv16, 16, b"\0", 8, t, tag) == ERR_TAG_LENGTH
    for t in (0, 16, 48, 96, 256):
        assert lib.zuc_mac(256, key32, 32, iv25, 25, b"\0", 8, t, tag) == ERR_TAG_LENGTH
    assert lib.zuc_mac(256, key32, 32, bad_iv25, 25, b"\0", 8, 64, tag) == ERR_IV_VALUE
    assert lib.zuc_mac(256, key32, 32, iv25, 24, b"\0", 8, 64, tag) == ERR_IV_LENGTH
    assert lib.zuc_mac(256, key32, 32, iv25, 25, b"\0", 8, 64, None) == ERR_ARGUMENT

    keys, ivs = pointer_array([buf(key32)]), pointer_array([buf(bad_iv25)])
    msgs, tags, bits = pointer_array([buf(b"\0")]), pointer_array([tag]), (ctypes.c_size_t * 1)(8)
    assert lib.zuc_mac_lanes(None, MAC_CLMUL, 256, 1, keys, ivs, 25, msgs, bits, 32, tags) == ERR_IV_VALUE
    good_ivs = pointer_array([buf(iv25)])
    assert lib.zuc_mac_lanes(None, MAC_CLMUL512 + 1, 256, 1, keys, good_ivs, 25, msgs, bits, 32, tags) == ERR_ARGUMENT
    assert lib.zuc_mac_lanes(None, MAC_COMPARE, 128, 1, keys, good_ivs, 16, msgs, bits, 64, tags) == ERR_TAG_LENGTH
    assert lib.zuc_mac_lanes(None, MAC_CLMUL, 256, 1, keys, None, 25, msgs, bits, 32, tags) == ERR_ARGUMENT
    assert lib.zuc_encrypt_lanes(None, 256, 1, keys, good_ivs, 25, msgs, None, bits) == ERR_ARGUMENT
    assert lib.zuc_encrypt_lanes(None, 256, 0, None, None, 25, None, None, None) == OK
    fields = dict(ZucImpl._fields_)
    unsupported = ZucImpl(b"none", b"lanes", b"none", 4, 1, 0, fields["cpu_supported"](lambda: 0),
                          ctypes.cast(None, fields["init_more_rounds"]), ctypes.cast(None, fields["init_rounds"]),
                          ctypes.cast(None, fields["keystream_block"]))
    assert lib.zuc_encrypt_lanes(ctypes.byref(unsupported), 256, 1, keys, good_ivs, 25, msgs, tags, bits) == \
        ERR_NO_IMPL

    messages = {lib.zuc_strerror(code) for code in range(-9, 1)}
    assert len(messages) == 10 and lib.zuc_strerror(-99) == b"unknown status"


def test_nia6_vectors_and_lengths(lib):
    """3GPP's NIA6 vectors through zuc_nia6, and every message length from 0 to
    600 bytes (16-block steps, single blocks, a padded last one) and every tag
    length against the POLYVAL reference."""
    from gen.kernels import zuc_nxa6_reference as nxa6
    for v in json.loads((VECTORS / "zuc.json").read_text())["nia6_mac"]:
        key, iv, msg, want = (bytes.fromhex(v[k]) for k in ("key", "iv", "message", "tag"))
        tag = ctypes.create_string_buffer(len(want))
        assert lib.zuc_nia6(key, 32, iv, 16, msg, len(msg), len(want), tag) == OK
        assert tag.raw == want, v["source"]
    rng = random.Random(6)
    for n in list(range(0, 70)) + [255, 256, 257, 511, 512, 600]:
        key, iv, msg = rand_bytes(rng, 32), rand_bytes(rng, 16), rand_bytes(rng, n)
        tag_bytes = 4 + n % 13
        tag = ctypes.create_string_buffer(tag_bytes)
        assert lib.zuc_nia6(key, 32, iv, 16, msg, n, tag_bytes, tag) == OK
        assert tag.raw == nxa6.nia6(key, iv, msg, tag_bytes), n


def test_nia6_errors(lib):
    key, iv, tag = bytes(32), bytes(16), ctypes.create_string_buffer(16)
    assert lib.zuc_nia6(key, 16, iv, 16, b"", 0, 4, tag) == ERR_KEY_LENGTH
    assert lib.zuc_nia6(key, 32, iv, 25, b"", 0, 4, tag) == ERR_IV_LENGTH
    for bad in (0, 3, 17):
        assert lib.zuc_nia6(key, 32, iv, 16, b"", 0, bad, tag) == ERR_TAG_LENGTH
    assert lib.zuc_nia6(key, 32, iv, 16, None, 1, 4, tag) == ERR_ARGUMENT
    assert lib.zuc_nia6(key, 32, iv, 16, b"", 0, 4, None) == ERR_ARGUMENT
    assert lib.zuc_nia6(key, 32, iv, 16, None, 2**29, 4, tag) == -9  # ZUC_ERR_MESSAGE_LENGTH: past 2^32 - 1 bits
