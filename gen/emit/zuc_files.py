"""The ZUC part of generated/: public header, core (key loading, one-stream and
many-stream API, MACs, dispatch), scalar reference kernel, SIMDe bundle, and the
lanes kernels of zuc_kernel_files."""

import re

from ..kernels import zuc_mac, zuc_nxa6_reference, zuc_reference
from ..specs import zuc
from . import gf128_files, registry, zuc_kernel_files
from .build_files import CipherSources, EmulatedUnit, SourceFile, kernel_sources
from .render import hex_rows, provenance, render

SPEC_SOURCES = ["gen/specs/zuc.py"]
LANES_MAX = 16         # the most lanes any kernel may run (ZUC_LANES_MAX)
REFERENCE_LANES = 2    # lanes of the scalar reference: exercises the interleaved layout


def impl_names():
    """Registry order, fastest first; the reference last."""
    return list(zuc_kernel_files.IMPLS) + ["reference_scalar"]


def _feedback_terms():
    """The LFSR feedback as (cell, k) terms of sum cell * 2^k (each multiplier
    split into its powers of two)."""
    return [(cell, k) for cell, multiplier in zuc.LFSR_TAPS for k in range(multiplier.bit_length())
            if multiplier >> k & 1]


def _feedback_formula():
    def power(m):
        parts = [f"2^{k}" if k else "1" for k in range(m.bit_length()) if m >> k & 1]
        return parts[0] if len(parts) == 1 else "(" + " + ".join(parts) + ")"
    return " + ".join(f"{power(m)} s{cell}" for cell, m in zuc.LFSR_TAPS)


def _byte_expression(name):
    """C expression of a KEY_LOADING_256 name: K<n> / IV<n> a key / IV byte,
    K<n>_H / K<n>_L its high / low nibble."""
    found = re.fullmatch(r"(K|IV)(\d+)(?:_([HL]))?", name)
    if not found:
        raise ValueError(f"ZUC key loading: unknown source {name!r}")
    array, index, nibble = found.groups()
    byte = f"{'k' if array == 'K' else 'iv'}[{index}]"
    return {None: byte, "H": f"({byte} >> 4)", "L": f"({byte} & 0x0f)"}[nibble]


def _load_lines(table):
    """C lines of a loading table (KEY_LOADING_256's form) into s[], constants d[]."""
    lines = []
    for i, (a, extra, b, c) in enumerate(table):
        middle = f"d[{i}]" + (f" | {_byte_expression(extra)}" if extra else "")
        lines.append(f"s[{i}] = cell256({_byte_expression(a)}, {middle}, {_byte_expression(b)}, "
                     f"{_byte_expression(c)});")
    return lines


def _iv_layout():
    fields = (zuc.IV_BYTES_256 - zuc.IV_PACKED_BYTES_256) * 8 // (8 - zuc.IV_FIELD_BITS_256)
    return dict(iv_bytes_128=zuc.IV_BYTES_128, iv_bytes_256=zuc.IV_BYTES_256,
                iv_packed_bytes_256=zuc.IV_PACKED_BYTES_256, iv_field_bits=zuc.IV_FIELD_BITS_256,
                iv_fields=fields, iv_full_bytes=zuc.IV_BYTES_256 - fields,
                iv_field_mask=(1 << zuc.IV_FIELD_BITS_256) - 1)


def sources():
    """What the build compiles: core and reference without ISA flags, each
    kernel with its own, the SIMDe unit with the emulable kernels."""
    native = [SourceFile("zuc_core", ""), SourceFile("zuc_reference_scalar", "")]
    native += [f for impl, target in zuc_kernel_files.registry_kernels() for f in kernel_sources(f"zuc_{impl}", target)]
    native += gf128_files.sources()  # NIA6's POLYVAL
    return CipherSources(tuple(native),
                         EmulatedUnit("zuc_emulated", tuple(f"zuc_{i}.c" for i in zuc_kernel_files.EMULABLE)))


def files(choices):
    """{path relative to generated/: contents} under `choices` (gen/choices.py)."""
    c_prov = provenance(SPEC_SOURCES + ["templates/"])
    s0_rows, s1_rows = hex_rows(zuc.s0_table()), hex_rows(zuc.s1_table())
    out = dict(zuc_kernel_files.kernel_files(choices))
    nea6 = dict(init_more_rounds=zuc_reference.INIT_MORE_ROUNDS, iv_bytes_nea6=zuc.IV_BYTES_NEA6,
                nia6_tag_bytes=(zuc_nxa6_reference.TAG_BYTES[0], zuc_nxa6_reference.TAG_BYTES[-1]))
    out["include/zuc.h"] = render("zuc.h.j2", provenance=c_prov, impls=impl_names(), lanes_max=LANES_MAX,
                                  init_rounds_nea6=zuc.init_rounds(zuc.NEA6), **nea6)
    out["src/zuc_internal.h"] = render("zuc_internal.h.j2", provenance=c_prov, fold_chunks=zuc_mac.FOLD_CHUNKS)
    out["src/zuc_core.c"] = render(
        "zuc_core.c.j2", provenance=c_prov, key_bytes=zuc.KEY_BYTES, cells=zuc.LFSR_CELLS,
        tag_bits_128=zuc.TAG_BITS_128, tag_bits_256=zuc.TAG_BITS_256,
        d128_rows=hex_rows(zuc.D128, 8, "0x{:04x}"),
        d256=[(tag, ", ".join(f"0x{v:02x}" for v in row)) for tag, row in sorted(zuc.D256.items())],
        load256=_load_lines(zuc.KEY_LOADING_256), load_nea6=_load_lines(zuc.KEY_LOADING_NEA6),
        d_nea6=", ".join(f"0x{v:02x}" for v in zuc.D_NEA6), key_bytes_nea6=zuc.KEY_BYTES[zuc.NEA6],
        nia6_keystream_words=zuc_nxa6_reference.KEY_BLOCKS * zuc_nxa6_reference.BLOCK // 4,
        registry=registry.sections(zuc_kernel_files.registry_kernels()), **nea6, **_iv_layout())
    out["src/zuc_reference_scalar.c"] = render(
        "zuc_reference_scalar.c.j2", provenance=c_prov, lanes=REFERENCE_LANES, s0_rows=s0_rows, s1_rows=s1_rows,
        s0_rotation=zuc.S0_ROTATION, s1_constant=zuc.S1_CONSTANT, s1_field=zuc.S1_FIELD_POLY,
        init_rounds=zuc.INIT_ROUNDS, init_more_rounds=zuc_reference.INIT_MORE_ROUNDS, modulus=zuc.LFSR_MODULUS,
        cells=zuc.LFSR_CELLS, l1_rotations=zuc.L1_ROTATIONS,
        l2_rotations=zuc.L2_ROTATIONS, feedback_terms=_feedback_terms(), feedback_formula=_feedback_formula())
    emulable = list(zuc_kernel_files.EMULABLE)
    out["src/zuc_emulated.c"] = render("zuc_emulated.c.j2", provenance=c_prov, impls=emulable,
                                       targets=[i.removeprefix("lanes_") for i in emulable])
    return out
