"""The build files of generated/ (Makefile, CMakeLists.txt) and the files all
ciphers share (kc_kernel.h, each ISA's header, kc_wipe.h, kc_xor.h, kc_batches.h, kc_modes.h, and
kc_cpu.h/.c, the CPU feature query of every dispatch; kc_dispatch.c, rendered by
dispatch_files, is built with them), over every cipher's
sources: libkcrypt.a from the native ones, libkcrypt_emulated.a from each
cipher's SIMDe unit.
Each cipher's emitter lists its sources; this module only renders them, so
adding a cipher adds a list, not a build rule."""

from dataclasses import dataclass

from ..backends import SIMD_TARGETS, cpu_features, x86
from ..backends.arch import ARCHES
from ..ir.keystream import CTR_GROUP_BLOCKS, counter_group_bytes
from .render import ROOT, backend_folder, provenance, render

# The SIMDe builds' flags: their host target's (gen/backends/x86), the
# emulated kernels' own instructions coming from SIMDe's portable C on top.
EMULATION_FLAGS = " ".join(x86.EMULATION_HOST.cflags + ("-Wno-psabi",))


@dataclass(frozen=True)
class SourceFile:
    stem: str
    flags: str  # compiler flags of this file alone ("" for none)
    arch: str | None = None  # the architecture it builds for (gen/backends/arch.py); None: every one
    ext: str = "c"           # "c", or "S" for assembly (run through the C preprocessor)

    @property
    def name(self):
        return f"{self.stem}.{self.ext}"

    @property
    def object(self):
        """Its object file: stem.o, or stem.S.o for an assembly file (whose C
        glue of the same stem is stem.o)."""
        return f"{self.stem}.o" if self.ext == "c" else f"{self.stem}.{self.ext}.o"


def kernel_sources(stem, target):
    """A kernel's sources, built with its target's flags for its target's
    architecture: its C file, and for an assembly twin its .S as well."""
    flags = " ".join(target.cflags)
    files = [SourceFile(stem, flags, target.arch.name)]
    if target.form == "asm":
        files.append(SourceFile(stem, flags, target.arch.name, ext="S"))
    return files


@dataclass(frozen=True)
class EmulatedUnit:
    stem: str        # the translation unit, e.g. "sm4_emulated"
    includes: tuple  # the kernel .c files it #includes (make dependencies)


@dataclass(frozen=True)
class CipherSources:
    native: tuple         # SourceFile, in libkcrypt.a
    emulated: EmulatedUnit  # in libkcrypt_emulated.a
    max_block_bytes: int = 16  # the widest block the shared mode layer (kc_modes.h) must hold


# Sources every cipher links against.
SHARED_SOURCES = (SourceFile("kc_cpu", ""), SourceFile("kc_dispatch", ""))


def cpu_files():
    """kc_cpu.h and kc_cpu.c from the feature table of gen/backends/cpu_features.py:
    one header for every architecture, each architecture's detection in kc_cpu.c."""
    features = cpu_features.FEATURES
    x86 = cpu_features.X86_FEATURES
    leaves = sorted({(f.leaf, f.subleaf) for f in x86})
    if len({leaf for leaf, _ in leaves}) != len(leaves):
        raise ValueError("kc_cpu.c names a CPUID leaf by its number: one subleaf per leaf")
    if len(features) > 31:
        raise ValueError("kc_cpu.c keeps bit 31 of the feature word as its cache marker")
    sources = ["gen/backends/cpu_features.py", "templates/kc_cpu.h.j2", "templates/kc_cpu.c.j2"]
    return {
        "include/kc_cpu.h": render("kc_cpu.h.j2", provenance=provenance(sources), features=features,
                               width=max(len(f"{f.macro} = 1u << {i},") for i, f in enumerate(features))),
        "src/kc_cpu.c": render("kc_cpu.c.j2", provenance=provenance(sources), x86_features=x86, leaves=leaves,
                               aarch64_features=cpu_features.AARCH64_FEATURES, features=features,
                               states=cpu_features.STATES, sse=cpu_features.STATE_SSE,
                               state_width=max(len(s.macro) for s in cpu_features.STATES)),
    }


def isa_headers():
    """The header of each instruction set's kernels (Target.header: kc_x86.h,
    ...), from the template of the same name in its backend's package."""
    headers = sorted({(t.header, t.arch) for t in SIMD_TARGETS.values()}, key=lambda h: h[0])
    return {f"src/{h}": render(f"{h}.j2", provenance=provenance([
        f"{backend_folder(arch).relative_to(ROOT)}/{h}.j2"])) for h, arch in headers}


def files(ciphers):
    """{path relative to generated/: contents} for the build of all `ciphers`."""
    # A source two ciphers compile (the GF(2^128) key side: SM4's modes, ZUC-NIA6) once.
    native = list(dict.fromkeys([*SHARED_SOURCES, *(f for c in ciphers for f in c.native)]))
    portable = [f for f in native if f.arch is None]
    per_arch = [(arch, files) for arch in ARCHES if (files := [f for f in native if f.arch == arch.name])]
    make_prov = provenance(["templates/"], comment="make")
    max_block_bytes = max(c.max_block_bytes for c in ciphers)
    return {
        "Makefile": render("Makefile.j2", provenance_make=make_prov, portable_files=portable, per_arch=per_arch,
                           native_files=native, emulated_units=[c.emulated for c in ciphers],
                           emulation_flags=EMULATION_FLAGS),
        "CMakeLists.txt": render("CMakeLists.txt.j2", provenance_make=make_prov, portable_files=portable,
                                 per_arch=per_arch, native_files=native),
        # Headers every cipher's sources share.
        "src/kc_kernel.h": render("kc_kernel.h.j2", provenance=provenance(["templates/kc_kernel.h.j2"])),
        "src/kc_wipe.h": render("kc_wipe.h.j2", provenance=provenance(["templates/kc_wipe.h.j2"])),
        "src/kc_xor.h": render("kc_xor.h.j2", provenance=provenance(["templates/kc_xor.h.j2"])),
        "src/kc_batches.h": render("kc_batches.h.j2",
                                   provenance=provenance(["templates/kc_batches.h.j2", "gen/ir/keystream.py"]),
                                   ctr_group_blocks=CTR_GROUP_BLOCKS, max_block_bytes=max_block_bytes,
                                   ctr_group_bytes=counter_group_bytes(max_block_bytes)),
        "src/kc_modes.h": render("kc_modes.h.j2",
                                 provenance=provenance(["templates/kc_modes.h.j2"]),
                                 max_block_bytes=max_block_bytes),
        **cpu_files(),
        **isa_headers(),
        **provider_files(),
    }


def provider_files():
    """The OpenSSL 3 provider (docs/consumers.md): glue over the library's
    public headers, and the version script that exports its entry alone."""
    return {f"provider/{name}": render(f"{name}.j2", provenance=provenance([f"templates/{name}.j2"]))
            for name in ("kcrypt_provider.c", "kcrypt_provider.map")}
