"""The x86 dialect of the C emitter (gen/backends/c_emitter.py): intrinsics
of <immintrin.h> for every op, at 128, 256 and 512 bits.  A 16-byte constant is
broadcast to the vector width, a wider one loaded whole.  Helpers with a width
in their name (kc_bcast16_256, kc_aesenclast256, kc_load32) live in
generated/src/kc_x86.h.
"""

from ..c_emitter import address, index_address, index_expr
from .rules import shuffle_i32x4_picks

_TYPE = {128: "__m128i", 256: "__m256i", 512: "__m512i"}
_PREFIX = {128: "_mm", 256: "_mm256", 512: "_mm512"}
_SI = {128: "si128", 256: "si256", 512: "si512"}


# Ops that are one intrinsic on their arguments in order: the intrinsic's
# form, over the width's prefix p and suffix si, the width in bits and the op's
# attributes (lane, n, imm).
_FORMS = {
    "xor": "{p}_xor_{si}({args})",
    "and": "{p}_and_{si}({args})",
    "or": "{p}_or_{si}({args})",
    "andnot": "{p}_andnot_{si}({args})",
    "ternlog": "{p}_ternarylogic_epi32({args}, {imm:#04x})",
    "shl": "{p}_slli_epi{lane}({args}, {n})",
    "shr": "{p}_srli_epi{lane}({args}, {n})",
    "rotl_native": "{p}_rol_epi{lane}({args}, {n})",
    "shld_native": "kc_shldi{bits}_epi{lane}({args}, {n})",
    "lookup16": "{p}_shuffle_epi8({args})",
    "unpacklo": "{p}_unpacklo_epi{lane}({args})",
    "unpackhi": "{p}_unpackhi_epi{lane}({args})",
    "add": "{p}_add_epi{lane}({args})",
    "minu": "{p}_min_epu{lane}({args})",
    "maxs": "{p}_max_epi{lane}({args})",
    "gf2p8affine": "{p}_gf2p8affine_epi64_epi8({args}, {imm:#04x})",
    "gf2p8affineinv": "{p}_gf2p8affineinv_epi64_epi8({args}, {imm:#04x})",
}


def expression(op):
    """The C expression computing `op` (ops with a result)."""
    bits = op.result.bits
    p, si = _PREFIX[bits], _SI[bits]
    a = [arg.name for arg in op.args]
    code, attrs = op.opcode, op.attrs
    if code == "load" and attrs.get("volatile"):
        return f"kc_load_volatile{bits}((const void *)({address(attrs)}))"
    if code == "load":
        return f"{p}_loadu_{si}((const void *)({address(attrs)}))"
    if code == "bcast8":
        return f"{p}_set1_epi8((char){attrs['param']}[{index_expr(attrs['index'])}])"
    if code == "bcast32":
        return f"{p}_set1_epi32(kc_load32({index_address(attrs['index'], attrs['param'])}))"
    if code == "bcast128":
        return f"kc_bcast16_{bits}({index_address(attrs['index'], attrs['param'])})"
    if code == "bcast256":
        load = f"_mm256_loadu_si256((const void *)({index_address(attrs['index'], attrs['param'])}))"
        return load if bits == 256 else f"_mm512_broadcast_i64x4({load})"
    if code == "const":
        if len(attrs["data"]) == 16:
            return f"kc_bcast16_{bits}({op.result.name}_bytes)"
        return f"{p}_loadu_{si}((const void *){op.result.name}_bytes)"
    if code in _FORMS:
        return _FORMS[code].format(p=p, si=si, bits=bits, args=", ".join(a), **attrs)
    if code == "clmul":
        imm = attrs["halves"][0] | attrs["halves"][1] << 4
        name = {128: "_mm_clmulepi64_si128", 256: "kc_clmul256"}.get(bits, f"{p}_clmulepi64_epi128")
        return f"{name}({a[0]}, {a[1]}, {imm:#04x})"
    if code == "aesenclast":
        return f"_mm_aesenclast_si128({a[0]}, {a[1]})" if bits == 128 else f"kc_aesenclast{bits}({a[0]}, {a[1]})"
    if code == "blendv" and bits == 512:
        return f"kc_blendv512({a[0]}, {a[1]}, {a[2]})"
    if code == "blendv":
        return f"{p}_blendv_epi8({a[0]}, {a[1]}, {a[2]})"
    if code == "permute2b":
        return f"{p}_permutex2var_epi8({a[1]}, {a[0]}, {a[2]})"
    if code == "permute2q":
        return f"{p}_permutex2var_epi64({a[1]}, {a[0]}, {a[2]})"
    if code == "blocks128":
        return _blocks128(bits, a[0], a[1], attrs["picks"])
    if code == "extract128":
        return _extract128(op.args[0].bits, a[0], attrs["lane"])
    if code == "concat128":
        return f"_mm256_set_m128i({a[1]}, {a[0]})"
    raise ValueError(f"x86 C emitter: no form for opcode {code!r}")


def _blocks128(bits, a, b, picks):
    """At 256 bits VPERMQ where both come from one value (the lane swap of the
    uBlock paper's algorithm 5: one source, no false dependency), else
    VPERM2I128; at 512 VSHUFI32X4 where blocks 0, 1 come from a and 2, 3 from
    b (or a and b are one value), else VPERMT2Q with qword indices."""
    if bits == 256 and len(picks) == 2 and a == b:
        imm = sum((2 * (p % 2) + k) << (2 * (2 * i + k)) for i, p in enumerate(picks) for k in (0, 1))
        return f"_mm256_permute4x64_epi64({a}, {imm:#04x})"
    if bits == 256 and len(picks) == 2:
        return f"_mm256_permute2x128_si256({a}, {b}, {picks[0] | picks[1] << 4:#04x})"
    if bits == 512 and shuffle_i32x4_picks(picks, a == b):
        imm = sum((p % 4) << (2 * i) for i, p in enumerate(picks))
        return f"_mm512_shuffle_i32x4({a}, {b}, {imm:#04x})"
    raise ValueError(f"x86 C emitter: no instruction picks 128-bit blocks {picks} at {bits} bits")


def _extract128(bits, value, lane):
    if lane == 0:
        return f"{_PREFIX[bits]}_cast{_SI[bits]}_si128({value})"
    if bits == 256:
        return f"_mm256_extracti128_si256({value}, {lane})"
    return f"_mm512_extracti32x4_epi32({value}, {lane})"


def vector_type(bits):
    return _TYPE[bits]


def store(op):
    bits = op.args[0].bits
    store_fn = f"kc_store_volatile{bits}" if op.attrs.get("volatile") else f"{_PREFIX[bits]}_storeu_{_SI[bits]}"
    return f"{store_fn}((void *)({address(op.attrs)}), {op.args[0].name})"


def note_suffix(op):
    """GFNI ops carry their matrix's note: the instruction's operand is only a qword."""
    note = op.attrs.get("note")
    return f" /* {note} */" if note and op.opcode.startswith("gf2p8") else ""
