import ctypes
import json
import subprocess
from pathlib import Path

import pytest

from gen.emit import build_files

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT.parent / "shared" / "vectors"


@pytest.fixture(scope="session")
def sm4_vectors():
    return json.loads((VECTORS / "sm4.json").read_text())


@pytest.fixture(scope="session")
def zuc_vectors():
    return json.loads((VECTORS / "zuc.json").read_text())


def generated_library(build, cipher_sources, name):
    """One cipher's native part of generated/ (and the shared sources) built
    by its own Makefile with gcc -O2 -fPIC into `build`, linked as a shared
    object and loaded: how the C-core tests drive the library through ctypes."""
    objects = [str(build / f"{f.stem}.o") for f in (*build_files.SHARED_SOURCES, *cipher_sources.native)]
    subprocess.run(["make", "-s", "-C", str(ROOT / "generated"), f"BUILD={build}", "CC=gcc", "CFLAGS=-O2 -fPIC",
                    "-j4", *objects], check=True, capture_output=True, text=True)
    shared = build / f"lib{name}_test.so"
    subprocess.run(["gcc", "-shared", "-o", str(shared), *objects], check=True, capture_output=True, text=True)
    return ctypes.CDLL(str(shared))


def native_impls(impls):
    """(name, impl) for each implementation the library lists (its
    `<cipher>_impls` function) that is native and runs on this CPU."""
    count = ctypes.c_size_t()
    table = impls(ctypes.byref(count))
    listed = [table[j] for j in range(count.value)]
    return [(imp.contents.name.decode(), imp) for imp in listed
            if not imp.contents.emulated and imp.contents.cpu_supported()]
