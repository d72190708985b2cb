"""The streaming (incremental) CTR and CBC calls of SM4 and uBlock
(sm4_ctr_init/update/final/reset, sm4_cbc_*, ublock_ctr_*, ublock_cbc_*),
built with gcc -O2 as shared objects and driven through ctypes: a message cut
into pieces at random (empty ones, single bytes, pieces across kernel
batches, CTR groups and the mode layer's chunks) gives what one call over the
whole message gives, on every native kernel and uBlock variant, in place too;
the counter wraps around across pieces as in one call; and the misuse rules:
nothing written by a state that is not live, CBC pieces of whole blocks only
(refused with the state unchanged), final and reset leave zero bytes, NULL
picks the one-shot call's kernel, a kernel the CPU cannot run fails init."""

import ctypes
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gen.emit import sm4_files, ublock_files
from gen.kernels import sm4_reference
from gen.kernels import ublock_reference

from conftest import generated_library, native_impls, run_generated_c
from test_sm4_c_core import Sm4Impl, Sm4Key
from test_ublock_c_core import MAX_BLOCK, VARIANTS, UblockImpl, UblockKey, variant_index

OK, ERR_LENGTH, ERR_NO_IMPL = 0, -1, -2
SM4_ERR_STATE, UBLOCK_ERR_VARIANT, UBLOCK_ERR_STATE = -3, -3, -4
ECB, CBC, CTR = 0, 1, 2
DECRYPT, ENCRYPT = 0, 1
SM4_BLOCK = 16


def ctr_state(block):
    class CtrState(ctypes.Structure):
        _fields_ = [("magic", ctypes.c_uint64), ("impl", ctypes.c_void_p), ("key", ctypes.c_void_p),
                    ("counter", ctypes.c_uint8 * block), ("keystream", ctypes.c_uint8 * block),
                    ("used", ctypes.c_size_t)]
    return CtrState


def cbc_state(block):
    class CbcState(ctypes.Structure):
        _fields_ = [("magic", ctypes.c_uint64), ("impl", ctypes.c_void_p), ("key", ctypes.c_void_p),
                    ("dir", ctypes.c_int), ("chain", ctypes.c_uint8 * block)]
    return CbcState


def by_ref(state):
    """A state by reference; None stays NULL."""
    return None if state is None else ctypes.byref(state)


@dataclass
class Cipher:
    """One cipher's library and what the tests need of it, so that every test
    below runs the same way on SM4 and on each uBlock variant."""
    name: str
    lib: ctypes.CDLL
    prefix: str             # "sm4" or "ublock"
    err_state: int
    block: int              # this variant's block bytes
    key: ctypes.Structure   # an expanded key
    ctr_type: type
    cbc_type: type
    impl_type: type

    def fn(self, name):
        return getattr(self.lib, f"{self.prefix}_{name}")

    def impls(self):
        return native_impls(self.fn("impls"))

    def one_shot(self, impl, mode, direction, iv, data):
        out = ctypes.create_string_buffer(len(data) + 1)
        rc = self.fn("crypt")(impl, mode, direction, ctypes.byref(self.key), iv, data, out, len(data))
        assert rc == OK, (self.name, mode, direction)
        return out.raw[:len(data)]

    def init(self, mode, impl, direction, iv, state=None):
        """A state of `mode` (a new one, or `state`) and init's return code."""
        if mode == CTR:
            state = state if state is not None else self.ctr_type()
            rc = self.fn("ctr_init")(ctypes.byref(state), impl, ctypes.byref(self.key), iv)
        else:
            state = state if state is not None else self.cbc_type()
            rc = self.fn("cbc_init")(ctypes.byref(state), impl, direction, ctypes.byref(self.key), iv)
        return state, rc

    def update(self, mode, state, inp, out, length):
        return self.fn("ctr_update" if mode == CTR else "cbc_update")(by_ref(state), inp, out, length)

    def final(self, mode, state):
        return self.fn("ctr_final" if mode == CTR else "cbc_final")(by_ref(state))

    def reset(self, mode, state):
        self.fn("ctr_reset" if mode == CTR else "cbc_reset")(by_ref(state))

    def stream(self, mode, impl, direction, iv, data, sizes, in_place=False):
        """data through one state in pieces of `sizes` bytes, then final."""
        state, rc = self.init(mode, impl, direction, iv)
        assert rc == OK
        buf = ctypes.create_string_buffer(data, len(data) + 1)
        out = buf if in_place else ctypes.create_string_buffer(len(data) + 1)
        at = 0
        for size in sizes:
            src, dst = ctypes.addressof(buf) + at, ctypes.addressof(out) + at
            assert self.update(mode, state, src, dst, size) == OK, (self.name, mode, at, size)
            at += size
        assert at == len(data)
        assert self.final(mode, state) == OK
        assert bytes(state) == bytes(ctypes.sizeof(state))  # final wiped it
        return out.raw[:len(data)]


def set_signatures(lib, prefix, impl_type):
    p, size, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    fn = lambda name: getattr(lib, f"{prefix}_{name}")  # noqa: E731
    fn("crypt").argtypes = [p, i, i, p, ctypes.c_char_p, ctypes.c_char_p, p, size]
    fn("impls").restype = ctypes.POINTER(ctypes.POINTER(impl_type))
    fn("impls").argtypes = [ctypes.POINTER(size)]
    fn("impl_best").restype = p
    fn("ctr_init").argtypes = [p, p, p, ctypes.c_char_p]
    fn("cbc_init").argtypes = [p, p, i, p, ctypes.c_char_p]
    for mode in ("ctr", "cbc"):
        fn(f"{mode}_update").argtypes = [p, p, p, size]
        fn(f"{mode}_final").argtypes = [p]
        fn(f"{mode}_reset").argtypes = [p]
        fn(f"{mode}_reset").restype = None


@pytest.fixture(scope="module")
def sm4_lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("sm4_stream"), sm4_files.sources(), "sm4_stream")
    set_signatures(so, "sm4", Sm4Impl)
    so.sm4_set_key.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    return so


@pytest.fixture(scope="module")
def ublock_lib(tmp_path_factory):
    so = generated_library(tmp_path_factory.mktemp("ublock_stream"), ublock_files.sources(), "ublock_stream")
    set_signatures(so, "ublock", UblockImpl)
    so.ublock_set_key.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
    return so


CIPHERS = ["sm4"] + [f"ublock{n}_{k}" for n, k in VARIANTS]


@pytest.fixture(scope="module", params=CIPHERS)
def cipher(request, sm4_lib, ublock_lib):
    """SM4, and uBlock in each variant, with a random key (the raw key bytes
    in `raw`, for the Python references)."""
    rng = random.Random(request.param)
    if request.param == "sm4":
        raw = rng.randbytes(16)
        key = Sm4Key()
        sm4_lib.sm4_set_key(ctypes.byref(key), raw)
        c = Cipher("sm4", sm4_lib, "sm4", SM4_ERR_STATE, SM4_BLOCK, key, ctr_state(SM4_BLOCK),
                   cbc_state(SM4_BLOCK), Sm4Impl)
    else:
        n, k = map(int, request.param[len("ublock"):].split("_"))
        raw = rng.randbytes(k // 8)
        key = UblockKey()
        assert ublock_lib.ublock_set_key(ctypes.byref(key), variant_index(n, k), raw) == OK
        c = Cipher(request.param, ublock_lib, "ublock", UBLOCK_ERR_STATE, n // 8, key, ctr_state(MAX_BLOCK),
                   cbc_state(MAX_BLOCK), UblockImpl)
    c.raw = raw
    return c


def reference_ctr(cipher, iv, data):
    """CTR by the Python reference: the IV one big-endian counter of the block's width."""
    if cipher.prefix == "ublock":
        n, k = map(int, cipher.name[len("ublock"):].split("_"))
        return ublock_reference.ctr(n, k, cipher.raw, iv, data)
    bb, start = cipher.block, int.from_bytes(iv, "big")
    stream = b"".join(sm4_reference.encrypt_block(cipher.raw, ((start + j) % (1 << 8 * bb)).to_bytes(bb, "big"))
                      for j in range(-(-len(data) // bb)))
    return bytes(a ^ b for a, b in zip(data, stream))


def test_state_layout_matches_c():
    """The ctypes mirrors above have C's sizes and offsets (so that the byte
    checks below see the whole state)."""
    fields = {"sm4_ctr_state": ("magic", "impl", "key", "counter", "keystream", "used"),
              "sm4_cbc_state": ("magic", "impl", "key", "dir", "chain"),
              "ublock_ctr_state": ("magic", "impl", "key", "counter", "keystream", "used"),
              "ublock_cbc_state": ("magic", "impl", "key", "dir", "chain")}
    lines = [f'    printf("%zu\\n", sizeof({t}));' + "".join(f' printf("%zu\\n", offsetof({t}, {f}));' for f in fs)
             for t, fs in fields.items()]
    program = "#include <stddef.h>\n#include <stdio.h>\n#include \"sm4.h\"\n#include \"ublock.h\"\n" \
              "int main(void)\n{\n" + "\n".join(lines) + "\n    return 0;\n}\n"
    with tempfile.TemporaryDirectory() as folder:
        got = list(map(int, run_generated_c(Path(folder), program).split()))
    want = []
    for t, fs in fields.items():
        mirror = (ctr_state if "ctr" in t else cbc_state)(SM4_BLOCK if t.startswith("sm4") else MAX_BLOCK)
        want += [ctypes.sizeof(mirror)] + [getattr(mirror, f).offset for f in fs]
    assert got == want


# ---- pieces ------------------------------------------------------------------------

@st.composite
def split(draw, total, unit=1):
    """Piece sizes (multiples of `unit`) adding up to `total`: empty pieces,
    single units, short ones and long ones."""
    sizes, left = [], total
    while left:
        size = draw(st.one_of(st.just(0), st.just(1), st.integers(0, 40), st.integers(0, left // unit)))
        size = min(size, left // unit)
        sizes.append(size * unit)
        left -= size * unit
        if len(sizes) > 24:  # the rest in one piece
            sizes.append(left)
            left = 0
    return sizes


def message_blocks(block):
    """A message length in blocks: short, a few thousand bytes, or past a CTR
    group of 256 blocks (uBlock's counter form) and the mode layer's chunks."""
    return st.one_of(st.integers(0, 4), st.integers(0, 3000 // block), st.integers(250, 300))


IVS = st.sampled_from(["random", "ones", "near_wrap"])


def make_iv(kind, block, rng):
    if kind == "ones":
        return b"\xff" * block  # the counter wraps after the first block
    if kind == "near_wrap":
        return b"\xff" * (block - 1) + bytes([rng.randrange(0xe0, 0x100)])
    return rng.randbytes(block)


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data(), iv_kind=IVS, seed=st.integers(0, 2**32 - 1))
def test_ctr_in_pieces_equals_one_call(cipher, data, iv_kind, seed):
    bb = cipher.block
    rng = random.Random(seed)
    blocks = data.draw(message_blocks(bb))
    length = max(0, blocks * bb - data.draw(st.integers(0, bb - 1)))  # ends inside a block too
    sizes = data.draw(split(length))
    in_place = data.draw(st.booleans())
    message, iv = rng.randbytes(length), make_iv(iv_kind, bb, rng)
    impls = cipher.impls()
    assert len(impls) > 1
    want = cipher.one_shot(dict(impls)["reference_scalar"], CTR, ENCRYPT, iv, message)
    for name, imp in impls:
        assert cipher.one_shot(imp, CTR, ENCRYPT, iv, message) == want, name
        assert cipher.stream(CTR, imp, ENCRYPT, iv, message, sizes, in_place) == want, (name, sizes)


@SETTINGS
@given(data=st.data(), iv_kind=IVS, seed=st.integers(0, 2**32 - 1), direction=st.sampled_from([ENCRYPT, DECRYPT]))
def test_cbc_in_pieces_equals_one_call(cipher, data, iv_kind, seed, direction):
    bb = cipher.block
    rng = random.Random(seed)
    length = data.draw(message_blocks(bb)) * bb
    sizes = data.draw(split(length, bb))
    in_place = data.draw(st.booleans())
    message, iv = rng.randbytes(length), make_iv(iv_kind, bb, rng)
    impls = cipher.impls()
    want = cipher.one_shot(dict(impls)["reference_scalar"], CBC, direction, iv, message)
    for name, imp in impls:
        assert cipher.one_shot(imp, CBC, direction, iv, message) == want, name
        assert cipher.stream(CBC, imp, direction, iv, message, sizes, in_place) == want, (name, sizes)


def test_counter_wraps_across_pieces_as_the_reference(cipher):
    """From an IV of all 0xff bytes the counter wraps to zero after the first
    block, inside a piece and at a piece's edge, as the Python reference has it."""
    bb = cipher.block
    rng = random.Random(5)
    message = rng.randbytes(3 * bb + 5)
    want = reference_ctr(cipher, b"\xff" * bb, message)
    for sizes in ([1, bb - 1, 2 * bb + 5], [bb, 0, 2 * bb + 5], [bb + 3, 2 * bb + 2], [len(message)]):
        for name, imp in cipher.impls():
            assert cipher.stream(CTR, imp, ENCRYPT, b"\xff" * bb, message, sizes) == want, (name, sizes)
    state, _ = cipher.init(CTR, None, ENCRYPT, b"\xff" * bb)
    out = ctypes.create_string_buffer(bb + 1)
    assert cipher.update(CTR, state, message, out, bb + 1) == OK
    assert bytes(state.counter)[:bb] == (1).to_bytes(bb, "big")  # the next block's, after the wrap
    assert state.used == 1
    cipher.reset(CTR, state)


# ---- misuse ------------------------------------------------------------------------

SENTINEL = 0xa5


def sentinel_buffer(size):
    return ctypes.create_string_buffer(bytes([SENTINEL]) * size, size)


@pytest.mark.parametrize("mode", [CTR, CBC], ids=["ctr", "cbc"])
def test_state_not_live_is_refused_and_writes_nothing(cipher, mode):
    bb = cipher.block
    iv, message = bytes(range(bb)), bytes(4 * bb)
    out = sentinel_buffer(4 * bb)
    untouched = out.raw

    fresh = (cipher.ctr_type if mode == CTR else cipher.cbc_type)()  # zeroed: never initialised
    assert cipher.update(mode, fresh, message, out, 4 * bb) == cipher.err_state
    assert cipher.final(mode, fresh) == cipher.err_state
    garbage = type(fresh).from_buffer_copy(random.Random(1).randbytes(ctypes.sizeof(fresh)))
    before = bytes(garbage)
    assert cipher.update(mode, garbage, message, out, 4 * bb) == cipher.err_state
    assert cipher.final(mode, garbage) == cipher.err_state
    assert bytes(garbage) == before  # a state not live is left alone by final
    assert cipher.update(mode, None, message, out, 4 * bb) == cipher.err_state
    assert cipher.final(mode, None) == cipher.err_state
    cipher.reset(mode, None)  # no effect, no crash

    for finish in ("final", "reset"):
        state, rc = cipher.init(mode, None, ENCRYPT, iv)
        assert rc == OK and state.magic != 0
        assert cipher.update(mode, state, message, out, bb) == OK
        ctypes.memset(out, SENTINEL, 4 * bb)
        if finish == "final":
            assert cipher.final(mode, state) == OK
        else:
            cipher.reset(mode, state)
        assert bytes(state) == bytes(ctypes.sizeof(state)), finish  # every byte wiped
        assert cipher.update(mode, state, message, out, 4 * bb) == cipher.err_state, finish
        assert cipher.update(mode, state, message, out, 0) == cipher.err_state, finish
        assert cipher.final(mode, state) == cipher.err_state, finish
        assert out.raw == untouched, finish
    # reset wipes a live state whatever it held, keystream part-used included
    state, _ = cipher.init(mode, None, ENCRYPT, iv)
    if mode == CTR:
        assert cipher.update(mode, state, message, out, 3) == OK and state.used == 3
        assert any(bytes(state.keystream))
    cipher.reset(mode, state)
    assert bytes(state) == bytes(ctypes.sizeof(state))


@pytest.mark.parametrize("direction", [ENCRYPT, DECRYPT], ids=["encrypt", "decrypt"])
def test_cbc_piece_of_partial_blocks_is_refused_and_the_state_goes_on(cipher, direction):
    bb = cipher.block
    rng = random.Random(bb + direction)
    iv, message = rng.randbytes(bb), rng.randbytes(6 * bb)
    want = cipher.one_shot(None, CBC, direction, iv, message)
    state, rc = cipher.init(CBC, None, direction, iv)
    assert rc == OK
    out = ctypes.create_string_buffer(6 * bb)
    assert cipher.update(CBC, state, message, out, 2 * bb) == OK
    before = bytes(state)
    for bad in (15, bb + 1, bb - 1, 3 * bb - 1):
        tail = sentinel_buffer(4 * bb)
        assert cipher.update(CBC, state, message[2 * bb:], tail, bad) == ERR_LENGTH, bad
        assert tail.raw == bytes([SENTINEL]) * (4 * bb), bad  # nothing written
        assert bytes(state) == before, bad                   # state unchanged
    assert cipher.update(CBC, state, message[2 * bb:], ctypes.addressof(out) + 2 * bb, 4 * bb) == OK
    assert cipher.final(CBC, state) == OK
    assert out.raw == want



class DispatchWhy(ctypes.Structure):
    """kc_dispatch_why (kc_dispatch.h)."""
    _fields_ = [("source", ctypes.c_int), ("record", ctypes.c_int), ("refused", ctypes.c_char_p)]


SERIAL_ROLE, FEATURE_ORDER = 1, 0  # KC_DISPATCH_SERIAL, KC_DISPATCH_FEATURE_ORDER

def test_null_impl_is_the_one_shot_default_and_unrunnable_impl_fails_init(cipher):
    bb = cipher.block
    iv = bytes(bb)
    impls = cipher.impls()
    variant = cipher.key.variant if cipher.prefix == "ublock" else None

    def batch(imp):
        blocks = imp.contents.batch_blocks
        return blocks if variant is None else blocks[variant]

    # CBC encryption's default: in feature order the native SIMD kernel with the smallest batch
    # (the first of equals); where KC_DISPATCH or this CPU's measured record decides
    # (kc_dispatch.h, tests/test_dispatch.py), the kernel <cipher>_impl_dispatch names.
    serial = min((imp for name, imp in impls if name != "reference_scalar"), key=batch)
    why = DispatchWhy()
    impl_dispatch = cipher.fn("impl_dispatch")
    impl_dispatch.restype = ctypes.c_void_p
    dispatched = impl_dispatch(SERIAL_ROLE, *(() if variant is None else (variant,)), ctypes.byref(why))
    if why.source != FEATURE_ORDER:
        serial = ctypes.cast(dispatched, type(serial))
    best = cipher.fn("impl_best")()
    # ... which <cipher>_impl_serial names (uBlock's per variant, none for one out of range).
    impl_serial = cipher.fn("impl_serial")
    impl_serial.restype = ctypes.c_void_p
    assert impl_serial(*(() if variant is None else (variant,))) == ctypes.cast(serial, ctypes.c_void_p).value
    if variant is not None:
        assert impl_serial(3) is None and impl_serial(-1) is None
    for mode, direction, want in ((CTR, ENCRYPT, best), (CBC, DECRYPT, best),
                                  (CBC, ENCRYPT, ctypes.cast(serial, ctypes.c_void_p).value)):
        state, rc = cipher.init(mode, None, direction, iv)
        assert rc == OK
        assert state.impl == want, (mode, direction)
        cipher.reset(mode, state)

    unrunnable = cipher.impl_type(name=b"unrunnable", cpu_supported=ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 0))
    for mode in (CTR, CBC):
        state = (cipher.ctr_type if mode == CTR else cipher.cbc_type)()
        ctypes.memset(ctypes.byref(state), 0x5a, ctypes.sizeof(state))  # whatever it held before
        assert cipher.init(mode, ctypes.pointer(unrunnable), ENCRYPT, iv, state)[1] == ERR_NO_IMPL, mode
        assert bytes(state) == bytes(ctypes.sizeof(state))  # not live
        out = sentinel_buffer(bb)
        assert cipher.update(mode, state, bytes(bb), out, bb) == cipher.err_state
        assert out.raw == bytes([SENTINEL]) * bb


def test_ublock_init_refuses_a_key_of_no_variant(ublock_lib):
    key = UblockKey()
    key.variant = len(VARIANTS)
    for mode, init, args in ((CTR, ublock_lib.ublock_ctr_init, (None, ctypes.byref(key), bytes(32))),
                             (CBC, ublock_lib.ublock_cbc_init, (None, ENCRYPT, ctypes.byref(key), bytes(32)))):
        state = (ctr_state if mode == CTR else cbc_state)(MAX_BLOCK)()
        assert init(ctypes.byref(state), *args) == UBLOCK_ERR_VARIANT
        assert (ublock_lib.ublock_ctr_update if mode == CTR else ublock_lib.ublock_cbc_update)(
            ctypes.byref(state), bytes(32), None, 0) == UBLOCK_ERR_STATE
