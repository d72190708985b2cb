import ctypes
import json
import os
import subprocess
from pathlib import Path

import pytest

from gen.emit import build_files
from gen.linalg.bits import BitMatrix
from gen.linalg.sbox_decompose import Decomposition

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"


@pytest.fixture(scope="session")
def sm4_vectors():
    return json.loads((VECTORS / "sm4.json").read_text())


@pytest.fixture(scope="session")
def zuc_vectors():
    return json.loads((VECTORS / "zuc.json").read_text())


@pytest.fixture(scope="session")
def harness_build():
    """The build folder with kcrypt, verify and bench freshly built by
    `make -C harness/c` (which builds generated/ too), once per session:
    KC_BUILD_DIR (default <repo>/build) moves it, KC_GENERATED redirects
    generated/."""
    out = Path(os.environ.get("KC_BUILD_DIR", ROOT / "build")).resolve()
    cmd = ["make", "-C", str(ROOT / "harness" / "c"), f"BUILD={out}"]
    if os.environ.get("KC_GENERATED"):
        cmd.append(f"GENERATED={Path(os.environ['KC_GENERATED']).resolve()}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail("building the harness failed (run `make build` to see why):\n"
                    f"$ {' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return out


def generated_library(build, cipher_sources, name):
    """One cipher's native part of generated/ (and the shared sources) built
    by its own Makefile with gcc -O2 -fPIC into `build`, linked as a shared
    object and loaded: how the C-core tests drive the library through ctypes."""
    objects = [str(build / f.object) for f in (*build_files.SHARED_SOURCES, *cipher_sources.native)
               if f.arch in (None, "x86_64")]  # this machine's kernels: gcc builds for x86-64
    subprocess.run(["make", "-s", "-C", str(ROOT / "generated"), f"BUILD={build}", "CC=gcc", "CFLAGS=-O2 -fPIC",
                    "-j4", *objects], check=True, capture_output=True, text=True)
    shared = build / f"lib{name}_test.so"
    subprocess.run(["gcc", "-shared", "-o", str(shared), *objects], check=True, capture_output=True, text=True)
    return ctypes.CDLL(str(shared))


def run_generated_c(folder, program):
    """`program` (C source text using generated/'s headers) compiled strictly
    with kc_cpu.c in `folder`, then run: its standard output."""
    (folder / "main.c").write_text(program)
    exe = folder / "main"
    generated = ROOT / "generated"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{generated / 'include'}",
                    f"-I{generated / 'src'}", str(folder / "main.c"), str(generated / "src" / "kc_cpu.c"),
                    "-o", str(exe)], check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def native_impls(impls):
    """(name, impl) for each implementation the library lists (its
    `<cipher>_impls` function) that is native and runs on this CPU."""
    count = ctypes.c_size_t()
    table = impls(ctypes.byref(count))
    listed = [table[j] for j in range(count.value)]
    return [(imp.contents.name.decode(), imp) for imp in listed
            if not imp.contents.emulated and imp.contents.cpu_supported()]


def self_equivalence_orbit(d, field):
    """All (g·A1, g·c1, A2·g'^-1, c2) for g = a·F^k, g' = a^-1·F^k: inv∘g = g'∘inv."""
    fr = field.frobenius_matrix()
    frob = [BitMatrix.identity(8)]
    for _ in range(7):
        frob.append(fr @ frob[-1])
    out = set()
    for a in range(1, 256):
        Ma, Mai = field.mul_matrix(a), field.mul_matrix(field.inv(a))
        for k in range(8):
            g, gp = Ma @ frob[k], Mai @ frob[k]
            out.add(Decomposition(g @ d.A1, g.apply(d.c1), d.A2 @ gp.inverse(), d.c2))
    return out


def ctr_edge_counters(block_bits, rng):
    """CTR counters V at the edges of a batch: the low byte far from a carry, a
    few blocks before one, the carry running through 56 bits, and the whole
    counter a few blocks before wrapping around."""
    top = 1 << block_bits
    return [rng.randrange(top) & ~0xff | 0x05, rng.randrange(top) | 0xf0,
            rng.randrange(top) & ~((1 << 64) - 1) | ((1 << 64) - 7), top - 3]


def check_ctr_xor(entry, key, block_bits, batch, ctr, rng, ok, err_length, label):
    """A kernel's ctr_xor (out = E(V + j) ^ src for j < nblocks, the counter
    blocks built by the kernel from V and V + 256) against `ctr(iv, message)`,
    the reference's CTR: from every counter of ctr_edge_counters, over one
    batch and over a whole group of 256 blocks, from odd addresses, with
    src == out too; other counts are refused (`err_length`) with nothing written."""
    bb, top, group = block_bits // 8, 1 << block_bits, 256
    for v in ctr_edge_counters(block_bits, rng):
        form = b"".join(((v + d) % top).to_bytes(bb, "big") for d in (0, group))
        for blocks in (batch, group):
            message = rng.randbytes(blocks * bb)
            want = ctr(v.to_bytes(bb, "big"), message)
            buf = ctypes.create_string_buffer(1 + 2 * blocks * bb)  # odd offsets: unaligned
            src, out = ctypes.addressof(buf) + 1, ctypes.addressof(buf) + 1 + blocks * bb
            ctypes.memmove(src, message, len(message))
            assert entry(ctypes.byref(key), form, src, out, blocks) == ok
            assert ctypes.string_at(out, len(want)) == want, (label, hex(v), blocks)
            assert entry(ctypes.byref(key), form, src, src, blocks) == ok
            assert ctypes.string_at(src, len(want)) == want, (label, hex(v), blocks, "src == out")
    out = ctypes.create_string_buffer(b"\xa5" * (group + batch) * bb, (group + batch) * bb)
    for blocks in (batch + 1, group + batch):
        assert entry(ctypes.byref(key), form, out.raw, out, blocks) == err_length, (label, blocks)
        assert out.raw == b"\xa5" * len(out.raw), (label, blocks)
