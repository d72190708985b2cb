"""The architectures targets belong to: how generated C tells which one it is
compiled for.  A build compiles the kernels of one architecture (the
compiler's), and every registry lists that architecture's kernels alone."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Arch:
    name: str
    c_condition: str  # a preprocessor expression, true when compiling for this architecture
    package: str      # its backend: gen/backends/<package>/
    cmake_processor: str  # CMAKE_SYSTEM_PROCESSOR's spellings of it (Linux, macOS, Windows), a CMake regex


X86_64 = Arch("x86_64", "defined(__x86_64__)", "x86", "^(x86_64|AMD64|amd64)$")
AARCH64 = Arch("aarch64", "defined(__aarch64__)", "aarch64", "^(aarch64|arm64|ARM64)$")
ARCHES = (X86_64, AARCH64)
