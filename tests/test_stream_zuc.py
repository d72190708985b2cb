"""ZUC in pieces (zuc_eea_* and zuc_mac_* in generated/src/zuc_core.c), built
with gcc -O2 as a shared object and driven through ctypes: any split of a
message into updates and a final piece in bits gives exactly what the one-shot
zuc_encrypt / zuc_mac give for the whole message, on every native kernel, for
ZUC-128 and ZUC-256 (both IV forms) and every tag length; the official vectors
fed in pieces; misuse (no init, after final or reset) refused with nothing
written; the MAC's 2^32 - 1 bit limit checked before any read; final and reset
leave the state all zero."""

import ctypes
import json
import mmap

import pytest
from hypothesis import given, settings, strategies as st

from gen.emit import zuc_files

from conftest import VECTORS, generated_library, native_impls, run_generated_c
from test_zuc_c_core import ZucImpl

OK, ERR_KEY_LENGTH, ERR_TAG_LENGTH, ERR_ARGUMENT, ERR_STATE, ERR_MESSAGE_LENGTH = 0, -1, -4, -7, -8, -9
KEY_BYTES = {128: 16, 256: 32}
TAGS = {128: (32,), 256: (32, 64, 128)}
FORMS = [(128, 16), (256, 25), (256, 23)]
MAC_MAX_BITS = 2**32 - 1
SENTINEL = 0xA5


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("zuc_stream"), zuc_files.sources(), "zuc_stream")
    p, size, u32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint
    signatures = {
        "zuc_impls": (ctypes.POINTER(ctypes.POINTER(ZucImpl)), [ctypes.POINTER(size)]),
        "zuc_encrypt": (ctypes.c_int, [ctypes.c_int, p, size, p, size, p, p, size]),
        "zuc_mac": (ctypes.c_int, [ctypes.c_int, p, size, p, size, p, size, u32, p]),
        "zuc_eea_init": (ctypes.c_int, [p, p, ctypes.c_int, p, size, p, size]),
        "zuc_eea_update": (ctypes.c_int, [p, p, p, size]),
        "zuc_eea_final": (ctypes.c_int, [p, p, p, size]),
        "zuc_eea_reset": (None, [p]),
        "zuc_mac_init": (ctypes.c_int, [p, p, ctypes.c_int, p, size, p, size, u32]),
        "zuc_mac_update": (ctypes.c_int, [p, p, size]),
        "zuc_mac_final": (ctypes.c_int, [p, p, size, p]),
        "zuc_mac_reset": (None, [p]),
    }
    for name, (restype, argtypes) in signatures.items():
        getattr(so, name).restype, getattr(so, name).argtypes = restype, argtypes
    return so


@pytest.fixture(scope="module")
def sizes(tmp_path_factory):
    """sizeof the two state structs, as the C compiler lays them out."""
    out = run_generated_c(tmp_path_factory.mktemp("zuc_stream_sizes"), """
#include <stdio.h>
#include "zuc.h"
int main(void) { printf("%zu %zu\\n", sizeof(zuc_eea_state), sizeof(zuc_mac_state)); return 0; }
""")
    eea, mac = map(int, out.split())
    return {"eea": eea, "mac": mac}


@pytest.fixture(scope="module")
def kernels(lib):
    """None (the library's choice) and every native kernel this CPU runs."""
    return [("default", None)] + [(name, ctypes.cast(impl, ctypes.c_void_p))
                                  for name, impl in native_impls(lib.zuc_impls)]


GUARD = 64  # sentinel bytes past the struct: nothing may write there


def new_state(size, fill=0):
    """A buffer for a state of `size` bytes (8-byte aligned) and a guard after it."""
    words = (size + GUARD + 7) // 8
    state = (ctypes.c_uint64 * words)()
    ctypes.memset(state, fill, ctypes.sizeof(state))
    return state


def state_bytes(state):
    return ctypes.string_at(state, ctypes.sizeof(state))


def out_buffer(n):
    return ctypes.create_string_buffer(bytes([SENTINEL]) * max(1, n), max(1, n))


# ---- helpers that run one message through the API ---------------------------------

def eea_pieces(lib, sizes, impl, variant, key, iv, data, pieces, final_bits):
    """data through updates of `pieces` bytes each, then a final of final_bits bits."""
    state = new_state(sizes["eea"])
    assert lib.zuc_eea_init(state, impl, variant, key, len(key), iv, len(iv)) == OK
    out, at = [], 0
    for n in pieces:
        piece, buf = data[at:at + n], out_buffer(n)
        assert lib.zuc_eea_update(state, piece, buf, n) == OK
        out.append(buf.raw[:n])
        at += n
    tail = data[at:at + (final_bits + 7) // 8]
    buf = out_buffer(len(tail))
    assert lib.zuc_eea_final(state, tail, buf, final_bits) == OK
    out.append(buf.raw[:len(tail)])
    return b"".join(out), state


def eea_oneshot(lib, variant, key, iv, data, bits):
    buf = out_buffer(len(data))
    assert lib.zuc_encrypt(variant, key, len(key), iv, len(iv), data, buf, bits) == OK
    return buf.raw[:len(data)]


def mac_pieces(lib, sizes, impl, variant, key, iv, msg, pieces, final_bits, tag_bits):
    state = new_state(sizes["mac"])
    assert lib.zuc_mac_init(state, impl, variant, key, len(key), iv, len(iv), tag_bits) == OK
    at = 0
    for n in pieces:
        assert lib.zuc_mac_update(state, msg[at:at + n], n) == OK
        at += n
    tag = out_buffer(tag_bits // 8)
    assert lib.zuc_mac_final(state, msg[at:], final_bits, tag) == OK
    return tag.raw, state


def mac_oneshot(lib, variant, key, iv, msg, bits, tag_bits):
    tag = out_buffer(tag_bits // 8)
    assert lib.zuc_mac(variant, key, len(key), iv, len(iv), msg, bits, tag_bits, tag) == OK
    return tag.raw


# ---- random splits ---------------------------------------------------------------

# Piece sizes around the 64-byte keystream block, the 8-byte MAC chunk and
# several blocks (a MAC refill is 1 KiB of keystream).
PIECE = st.one_of(st.sampled_from([0, 1, 7, 8, 9, 63, 64, 65, 128, 130]), st.integers(0, 200),
                  st.integers(200, 1500))


@st.composite
def split_message(draw):
    """(variant, iv_len, key, iv, pieces, final whole bytes, final extra bits, message)."""
    variant, iv_len = draw(st.sampled_from(FORMS))
    key = draw(st.binary(min_size=KEY_BYTES[variant], max_size=KEY_BYTES[variant]))
    if iv_len == 25:
        iv = draw(st.binary(min_size=17, max_size=17)) + bytes(draw(st.lists(st.integers(0, 63), min_size=8,
                                                                              max_size=8)))
    else:
        iv = draw(st.binary(min_size=iv_len, max_size=iv_len))
    pieces = draw(st.lists(PIECE, max_size=8))
    final_bytes = draw(st.one_of(st.just(0), PIECE))
    extra_bits = draw(st.integers(0, 7))
    total = sum(pieces) + final_bytes + (1 if extra_bits else 0)
    msg = draw(st.binary(min_size=total, max_size=total))
    return variant, key, iv, pieces, 8 * final_bytes + extra_bits, msg


@settings(max_examples=150, deadline=None)
@given(case=split_message())
def test_eea_pieces_match_one_shot_on_every_kernel(lib, sizes, kernels, case):
    variant, key, iv, pieces, final_bits, data = case
    bits = 8 * sum(pieces) + final_bits
    want = eea_oneshot(lib, variant, key, iv, data, bits)
    for name, impl in kernels:
        got, _ = eea_pieces(lib, sizes, impl, variant, key, iv, data, pieces, final_bits)
        assert got == want, name


@settings(max_examples=150, deadline=None)
@given(case=split_message())
def test_mac_pieces_match_one_shot_on_every_kernel(lib, sizes, kernels, case):
    variant, key, iv, pieces, final_bits, msg = case
    bits = 8 * sum(pieces) + final_bits
    for tag_bits in TAGS[variant]:
        want = mac_oneshot(lib, variant, key, iv, msg, bits, tag_bits)
        for name, impl in kernels:
            got, _ = mac_pieces(lib, sizes, impl, variant, key, iv, msg, pieces, final_bits, tag_bits)
            assert got == want, (name, tag_bits)


def test_long_messages_in_uneven_pieces(lib, sizes, kernels):
    """Some ten KiB in pieces that cross many blocks and MAC refills at odd
    places, and byte by byte for a while, then a final of several blocks."""
    import random
    rng = random.Random(5)
    pieces = [1] * 70 + [3000, 5, 1031, 0, 4096, 77]
    for variant, iv_len in FORMS:
        key = bytes(rng.randrange(256) for _ in range(KEY_BYTES[variant]))
        iv = bytes(rng.randrange(64) for _ in range(iv_len))
        final_bits = 8 * 700 + 3
        msg = bytes(rng.randrange(256) for _ in range(sum(pieces) + 701))
        bits = 8 * sum(pieces) + final_bits
        want = eea_oneshot(lib, variant, key, iv, msg, bits)
        tags = {t: mac_oneshot(lib, variant, key, iv, msg, bits, t) for t in TAGS[variant]}
        for name, impl in kernels:
            assert eea_pieces(lib, sizes, impl, variant, key, iv, msg, pieces, final_bits)[0] == want, name
            for t in TAGS[variant]:
                assert mac_pieces(lib, sizes, impl, variant, key, iv, msg, pieces, final_bits, t)[0] == tags[t]


def test_in_place_encryption(lib, sizes):
    key, iv, data = bytes(range(16)), bytes(range(16, 32)), bytes(range(256)) * 3
    want = eea_oneshot(lib, 128, key, iv, data, 8 * len(data))
    state, buf = new_state(sizes["eea"]), ctypes.create_string_buffer(data, len(data))
    assert lib.zuc_eea_init(state, None, 128, key, 16, iv, 16) == OK
    at = 0
    for n in (5, 64, 200, 1, 100):
        piece = ctypes.byref(buf, at)
        assert lib.zuc_eea_update(state, piece, piece, n) == OK
        at += n
    assert lib.zuc_eea_final(state, ctypes.byref(buf, at), ctypes.byref(buf, at), 8 * (len(data) - at)) == OK
    assert buf.raw == want


# ---- official vectors ----------------------------------------------------------------

def test_official_vectors_in_pieces(lib, sizes, kernels):
    vectors = json.loads((VECTORS / "zuc.json").read_text())
    for variant, name, form in ((128, "zuc128_keystream", "iv"), (256, "zuc256_keystream", "iv25"),
                                (256, "zuc256_keystream", "iv23")):
        for v in vectors[name]:
            if form not in v:
                continue
            key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v[form])
            want = bytes.fromhex("".join(v["keystream"]))
            pieces = [1, 0, 2, 3][:len(want) // 3] + [len(want) // 3]
            rest = len(want) - sum(pieces)
            for kname, impl in kernels:
                got, _ = eea_pieces(lib, sizes, impl, variant, key, iv, bytes(len(want)), pieces, 8 * rest)
                assert got == want, (name, kname)
    for variant, name in ((128, "zuc128_mac"), (256, "zuc256_mac")):
        for v in vectors[name]:
            key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v.get("iv") or v["iv25"])
            msg, bits = bytes.fromhex(v["message"]), v["bits"]
            whole = bits // 8
            pieces = [whole // 3, 1, 0, whole // 2] if whole >= 4 else [0]
            final_bits = bits - 8 * sum(pieces)
            for t in TAGS[variant]:
                for kname, impl in kernels:
                    got, _ = mac_pieces(lib, sizes, impl, variant, key, iv, msg, pieces, final_bits, t)
                    assert got.hex() == v[f"tag{t}"], (name, t, kname)


# ---- misuse and wiping -------------------------------------------------------------------

KEY, IV = bytes(range(16)), bytes(range(16))


def test_never_initialised_state_is_refused(lib, sizes):
    data, tag = b"\x11" * 80, out_buffer(4)
    for fill in (0, 0x5A):
        eea, mac, out = new_state(sizes["eea"], fill), new_state(sizes["mac"], fill), out_buffer(80)
        before = state_bytes(eea), state_bytes(mac)
        assert lib.zuc_eea_update(eea, data, out, 80) == ERR_STATE
        assert lib.zuc_eea_final(eea, data, out, 8 * 80) == ERR_STATE
        assert lib.zuc_mac_update(mac, data, 80) == ERR_STATE
        assert lib.zuc_mac_final(mac, data, 8 * 80, tag) == ERR_STATE
        assert out.raw == bytes([SENTINEL]) * 80 and tag.raw == bytes([SENTINEL]) * 4
        assert (state_bytes(eea), state_bytes(mac)) == before


@pytest.mark.parametrize("finish", ["final", "reset"])
def test_final_and_reset_wipe_and_then_refuse(lib, sizes, finish):
    data = b"\x22" * 100
    eea = new_state(sizes["eea"], SENTINEL)
    assert lib.zuc_eea_init(eea, None, 256, bytes(32), 32, bytes(25), 25) == OK
    assert lib.zuc_eea_update(eea, data, out_buffer(30), 30) == OK
    if finish == "final":
        assert lib.zuc_eea_final(eea, data, out_buffer(3), 21) == OK
    else:
        lib.zuc_eea_reset(eea)
    raw = state_bytes(eea)
    assert raw[:sizes["eea"]] == bytes(sizes["eea"]) and raw[sizes["eea"]:] == bytes([SENTINEL]) * (len(raw) - sizes["eea"])
    out = out_buffer(100)
    assert lib.zuc_eea_update(eea, data, out, 100) == ERR_STATE
    assert lib.zuc_eea_final(eea, data, out, 800) == ERR_STATE
    assert out.raw == bytes([SENTINEL]) * 100

    mac = new_state(sizes["mac"], SENTINEL)
    assert lib.zuc_mac_init(mac, None, 256, bytes(32), 32, bytes(23), 23, 128) == OK
    assert lib.zuc_mac_update(mac, data, 37) == OK
    tag = out_buffer(16)
    if finish == "final":
        assert lib.zuc_mac_final(mac, data, 13, tag) == OK
        assert tag.raw != bytes([SENTINEL]) * 16
    else:
        lib.zuc_mac_reset(mac)
    raw = state_bytes(mac)
    assert raw[:sizes["mac"]] == bytes(sizes["mac"]) and raw[sizes["mac"]:] == bytes([SENTINEL]) * (len(raw) - sizes["mac"])
    tag = out_buffer(16)
    assert lib.zuc_mac_update(mac, data, 8) == ERR_STATE
    assert lib.zuc_mac_final(mac, data, 8, tag) == ERR_STATE
    assert tag.raw == bytes([SENTINEL]) * 16
    lib.zuc_eea_reset(None)
    lib.zuc_mac_reset(None)


def test_failed_init_leaves_a_refused_state(lib, sizes):
    eea, mac = new_state(sizes["eea"]), new_state(sizes["mac"])
    assert lib.zuc_eea_init(eea, None, 128, KEY, 16, IV, 16) == OK
    assert lib.zuc_eea_init(eea, None, 128, KEY, 15, IV, 16) == ERR_KEY_LENGTH
    assert lib.zuc_eea_update(eea, b"x", out_buffer(1), 1) == ERR_STATE
    assert lib.zuc_mac_init(mac, None, 128, KEY, 16, IV, 16, 64) == ERR_TAG_LENGTH
    assert lib.zuc_mac_update(mac, b"x", 1) == ERR_STATE
    assert lib.zuc_eea_init(None, None, 128, KEY, 16, IV, 16) == ERR_ARGUMENT
    assert lib.zuc_mac_init(None, None, 128, KEY, 16, IV, 16, 32) == ERR_ARGUMENT
    assert lib.zuc_mac_init(mac, None, 256, bytes(32), 32, bytes(25), 25, 48) == ERR_TAG_LENGTH
    assert lib.zuc_mac_init(mac, None, 256, bytes(32), 32, None, 25, 32) == ERR_ARGUMENT


def test_refused_pieces_leave_the_state_as_it_was(lib, sizes):
    """NULL buffers are refused (ZUC_ERR_ARGUMENT) with nothing written, and the
    stream then goes on as if they had not been given."""
    data = bytes(range(200))
    eea = new_state(sizes["eea"])
    assert lib.zuc_eea_init(eea, None, 128, KEY, 16, IV, 16) == OK
    first = out_buffer(70)
    assert lib.zuc_eea_update(eea, data, first, 70) == OK
    out = out_buffer(50)
    assert lib.zuc_eea_update(eea, None, out, 50) == ERR_ARGUMENT
    assert lib.zuc_eea_update(eea, data[70:], None, 50) == ERR_ARGUMENT
    assert lib.zuc_eea_final(eea, None, out, 9) == ERR_ARGUMENT
    assert out.raw == bytes([SENTINEL]) * 50
    assert lib.zuc_eea_update(eea, None, None, 0) == OK
    rest = out_buffer(130)
    assert lib.zuc_eea_final(eea, data[70:], rest, 8 * 130) == OK
    assert first.raw + rest.raw == eea_oneshot(lib, 128, KEY, IV, data, 1600)

    mac = new_state(sizes["mac"])
    assert lib.zuc_mac_init(mac, None, 128, KEY, 16, IV, 16, 32) == OK
    assert lib.zuc_mac_update(mac, data, 13) == OK
    assert lib.zuc_mac_update(mac, None, 5) == ERR_ARGUMENT
    assert lib.zuc_mac_final(mac, data[13:], 8, None) == ERR_ARGUMENT
    tag = out_buffer(4)
    assert lib.zuc_mac_final(mac, data[13:], 8 * 186 + 5, tag) == OK
    assert tag.raw == mac_oneshot(lib, 128, KEY, IV, data, 1600 - 3, 32)


@pytest.mark.parametrize("variant,tag_bits", [(128, 32), (256, 64)])
def test_mac_length_limit_checked_before_reading(lib, sizes, variant, tag_bits):
    """Past 2^32 - 1 bits in all, update and final return ZUC_ERR_MESSAGE_LENGTH
    before touching msg (a 1-byte buffer, or NULL, stands for the huge piece)
    and leave the state as it was."""
    key, iv = bytes(KEY_BYTES[variant]), bytes(16 if variant == 128 else 25)
    msg = bytes(range(40))
    state, tiny = new_state(sizes["mac"]), ctypes.create_string_buffer(1)
    assert lib.zuc_mac_init(state, None, variant, key, len(key), iv, len(iv), tag_bits) == OK
    assert lib.zuc_mac_update(state, tiny, 2**29) == ERR_MESSAGE_LENGTH          # exactly 2^32 bits
    assert lib.zuc_mac_update(state, msg, 3) == OK
    assert lib.zuc_mac_update(state, tiny, 2**29 + 1) == ERR_MESSAGE_LENGTH
    assert lib.zuc_mac_update(state, None, 2**29 + 1) == ERR_MESSAGE_LENGTH      # not ERR_ARGUMENT: no read
    assert lib.zuc_mac_update(state, tiny, 2**29 - 3) == ERR_MESSAGE_LENGTH      # 24 + 2^32 - 24 bits
    assert lib.zuc_mac_update(state, tiny, 2**64 - 1) == ERR_MESSAGE_LENGTH      # 8 * bytes would wrap
    tag = out_buffer(tag_bits // 8)
    assert lib.zuc_mac_final(state, tiny, MAC_MAX_BITS - 24 + 1, tag) == ERR_MESSAGE_LENGTH
    assert lib.zuc_mac_final(state, None, 2**64 - 1, tag) == ERR_MESSAGE_LENGTH
    assert tag.raw == bytes([SENTINEL]) * (tag_bits // 8)
    assert lib.zuc_mac_update(state, msg[3:], 30) == OK
    assert lib.zuc_mac_final(state, msg[33:], 51, tag) == OK
    assert tag.raw == mac_oneshot(lib, variant, key, iv, msg, 8 * 33 + 51, tag_bits)


def test_mac_takes_exactly_the_limit(lib, sizes):
    """2^32 - 1 bits (of zeros, from untouched anonymous pages) are accepted
    and give zuc_mac's tag; one bit more is refused, by the state and by the
    one-shot zuc_mac alike."""
    view = (ctypes.c_char * 2**29).from_buffer(mmap.mmap(-1, 2**29))  # unmapped with view
    state, tag = new_state(sizes["mac"]), out_buffer(4)
    assert lib.zuc_mac_init(state, None, 128, KEY, 16, IV, 16, 32) == OK
    assert lib.zuc_mac_update(state, view, 2**28) == OK
    assert lib.zuc_mac_final(state, ctypes.byref(view, 2**28), 8 * 2**28, tag) == ERR_MESSAGE_LENGTH
    assert lib.zuc_mac_final(state, ctypes.byref(view, 2**28), 8 * 2**28 - 1, tag) == OK
    assert tag.raw == mac_oneshot(lib, 128, KEY, IV, view, MAC_MAX_BITS, 32)
    over = out_buffer(4)
    assert lib.zuc_mac(128, KEY, 16, IV, 16, view, MAC_MAX_BITS + 1, 32, over) == ERR_MESSAGE_LENGTH
    assert over.raw == bytes([SENTINEL]) * 4  # refused before anything is written


def test_empty_pieces_take_null_buffers(lib, sizes):
    """A piece of 0 bytes (or a final of 0 bits) needs no buffers: the whole
    message given that way is the empty one."""
    eea, mac, tag = new_state(sizes["eea"]), new_state(sizes["mac"]), out_buffer(4)
    assert lib.zuc_eea_init(eea, None, 128, KEY, 16, IV, 16) == OK
    assert lib.zuc_eea_update(eea, None, None, 0) == OK
    assert lib.zuc_eea_final(eea, None, None, 0) == OK
    assert state_bytes(eea)[:sizes["eea"]] == bytes(sizes["eea"])
    assert lib.zuc_mac_init(mac, None, 128, KEY, 16, IV, 16, 32) == OK
    assert lib.zuc_mac_update(mac, None, 0) == OK
    assert lib.zuc_mac_final(mac, None, 0, tag) == OK
    assert tag.raw == mac_oneshot(lib, 128, KEY, IV, b"", 0, 32)
