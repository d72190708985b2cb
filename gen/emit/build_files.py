"""The build files of generated/ (Makefile, CMakeLists.txt) and the headers all
ciphers share (kc_x86.h, kc_wipe.h, kc_xor.h, kc_modes.h), over every cipher's
sources: libkcrypt.a from the native ones, libkcrypt_emulated.a from each
cipher's SIMDe unit.  Each cipher's emitter lists its sources; this module
only renders them, so adding a cipher adds a list, not a build rule."""

from dataclasses import dataclass

from .render import provenance, render

# Host ISA of the SIMDe builds: the emulated kernels' own instructions come
# from SIMDe's portable C on top of AVX2.
EMULATION_FLAGS = "-mavx2 -Wno-psabi"


@dataclass(frozen=True)
class SourceFile:
    stem: str
    flags: str  # compiler flags of this file alone ("" for none)


@dataclass(frozen=True)
class EmulatedUnit:
    stem: str        # the translation unit, e.g. "sm4_emulated"
    includes: tuple  # the kernel .c files it #includes (make dependencies)


@dataclass(frozen=True)
class CipherSources:
    native: tuple         # SourceFile, in libkcrypt.a
    emulated: EmulatedUnit  # in libkcrypt_emulated.a
    max_block_bytes: int = 16  # the widest block the shared mode layer (kc_modes.h) must hold


def files(ciphers):
    """{path relative to generated/: contents} for the build of all `ciphers`."""
    native = [f for c in ciphers for f in c.native]
    make_prov = provenance(["templates/"], comment="make")
    return {
        "Makefile": render("Makefile.j2", provenance_make=make_prov, native_files=native,
                           emulated_units=[c.emulated for c in ciphers], emulation_flags=EMULATION_FLAGS),
        "CMakeLists.txt": render("CMakeLists.txt.j2", provenance_make=make_prov, native_files=native),
        # Headers every cipher's sources share.
        "src/kc_x86.h": render("kc_x86.h.j2", provenance=provenance(["templates/kc_x86.h.j2"])),
        "src/kc_wipe.h": render("kc_wipe.h.j2", provenance=provenance(["templates/kc_wipe.h.j2"])),
        "src/kc_xor.h": render("kc_xor.h.j2", provenance=provenance(["templates/kc_xor.h.j2"])),
        "src/kc_modes.h": render("kc_modes.h.j2", provenance=provenance(["templates/kc_modes.h.j2"]),
                                 max_block_bytes=max(c.max_block_bytes for c in ciphers)),
    }
