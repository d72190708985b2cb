"""Emitter of x86 C intrinsics for lowered IR programs, any vector width.

It turns each op into one named `const` temporary, state variables into
mutable locals, loops into `for` loops, and constants into function-local
`static const uint8_t` tables (16 bytes broadcast to the vector width, or the
whole register loaded), each with the comment that says where it comes from.
Helpers with width in their name (kc_bcast16_256, kc_aesenclast256, kc_load32)
live in generated/include/kc_x86.h.
"""

from ..ir import Assign, Comment, Loop, Op

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


def _index_expr(index):
    """`base + coeff * var ...` as C, e.g. "128 * r + 4"."""
    parts = [f"{coeff} * {var}" for var, coeff in index.terms]
    if index.base or not parts:
        parts.append(str(index.base))
    return " + ".join(parts)


def _index(index, param):
    """The address param + index, as C."""
    offset = _index_expr(index)
    return param if offset == "0" else f"{param} + {offset}"


def _address(attrs):
    """The address a load or store names: param + index, or param[row] + index."""
    param = f"{attrs['param']}[{attrs['row']}]" if "row" in attrs else attrs["param"]
    return _index(attrs["index"], param)


def expression(op):
    """The C expression computing `op` (ops with a result)."""
    bits = op.result.bits
    p, si = _PREFIX[bits], _SI[bits]
    a = [arg.name for arg in op.args]
    code, attrs = op.opcode, op.attrs
    if code == "load" and attrs.get("volatile"):
        return f"kc_load_volatile{bits}((const void *)({_address(attrs)}))"
    if code == "load":
        return f"{p}_loadu_{si}((const void *)({_address(attrs)}))"
    if code == "bcast8":
        return f"{p}_set1_epi8((char){attrs['param']}[{_index_expr(attrs['index'])}])"
    if code == "bcast32":
        return f"{p}_set1_epi32(kc_load32({_index(attrs['index'], attrs['param'])}))"
    if code == "bcast128":
        return f"kc_bcast16_{bits}({_index(attrs['index'], attrs['param'])})"
    if code == "bcast256":
        load = f"_mm256_loadu_si256((const void *)({_index(attrs['index'], attrs['param'])}))"
        return load if bits == 256 else f"_mm512_broadcast_i64x4({load})"
    if code == "const":
        if len(attrs["data"]) == 16:
            return f"kc_bcast16_{bits}({op.result.name}_bytes)"
        return f"{p}_loadu_{si}((const void *){op.result.name}_bytes)"
    if code in _FORMS:
        return _FORMS[code].format(p=p, si=si, bits=bits, args=", ".join(a), **attrs)
    if code == "aesenclast":
        return f"_mm_aesenclast_si128({a[0]}, {a[1]})" if bits == 128 else f"kc_aesenclast{bits}({a[0]}, {a[1]})"
    if code == "blendv" and bits == 512:
        return f"kc_blendv512({a[0]}, {a[1]}, {a[2]})"
    if code == "blendv":
        return f"{p}_blendv_epi8({a[0]}, {a[1]}, {a[2]})"
    if code == "permute2b":
        return f"{p}_permutex2var_epi8({a[1]}, {a[0]}, {a[2]})"
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
    if bits == 512 and len(picks) == 4:
        if a == b or max(picks[:2]) < 4 and min(picks[2:]) >= 4:
            imm = sum((p % 4) << (2 * i) for i, p in enumerate(picks))
            return f"_mm512_shuffle_i32x4({a}, {b}, {imm:#04x})"
        qwords = ", ".join(str(2 * p + k) for p in reversed(picks) for k in (1, 0))
        return f"_mm512_permutex2var_epi64({a}, _mm512_set_epi64({qwords}), {b})"
    raise ValueError(f"x86 C emitter: no instruction picks 128-bit blocks {picks} at {bits} bits")


def _extract128(bits, value, lane):
    if lane == 0:
        return f"{_PREFIX[bits]}_cast{_SI[bits]}_si128({value})"
    if bits == 256:
        return f"_mm256_extracti128_si256({value}, {lane})"
    return f"_mm512_extracti32x4_epi32({value}, {lane})"


def _const_lines(op, indent):
    data = ", ".join(f"0x{b:02x}" for b in op.attrs["data"])
    name = op.result.name
    return [f"{indent}/* {op.attrs['note']} */",
            f"{indent}static const uint8_t {name}_bytes[{len(op.attrs['data'])}] = {{{data}}};",
            f"{indent}const {_TYPE[op.result.bits]} {name} = {expression(op)};"]


def function_body(program, indent="    "):
    """The statements of the kernel function, as lines of C."""
    lines = []
    for name, nbytes in program.scratch.items():
        lines.append(f"{indent}_Alignas(64) uint8_t {name}[{nbytes}];")
    if program.state:
        names = ", ".join(v.name for v in program.state)
        lines.append(f"{indent}{_TYPE[program.bits]} {names};")
    lines.extend(_block(program.body, indent))
    return lines


def _block(stmts, indent):
    lines = []
    for stmt in stmts:
        if isinstance(stmt, Comment):
            lines.append("")
            lines.append(f"{indent}/* {stmt.text} */")
        elif isinstance(stmt, Assign):
            lines.append(f"{indent}{stmt.var.name} = {stmt.value.name};")
        elif isinstance(stmt, Loop):
            inner = indent + "    "
            lines.append(f"{indent}for (size_t {stmt.var} = 0; {stmt.var} < {stmt.count}; {stmt.var}++) {{")
            lines.append(f'{inner}KC_MCA_BEGIN("loop_{stmt.var}");')
            lines.extend(_block(stmt.body, inner))
            lines.append(f'{inner}KC_MCA_END("loop_{stmt.var}");')
            lines.append(f"{indent}}}")
        elif stmt.opcode == "const":
            lines.extend(_const_lines(stmt, indent))
        elif stmt.opcode == "store":
            bits = stmt.args[0].bits
            store = f"kc_store_volatile{bits}" if stmt.attrs.get("volatile") else f"{_PREFIX[bits]}_storeu_{_SI[bits]}"
            lines.append(f"{indent}{store}((void *)({_address(stmt.attrs)}), {stmt.args[0].name});")
        else:
            note = stmt.attrs.get("note")
            suffix = f" /* {note} */" if note and stmt.opcode.startswith("gf2p8") else ""
            lines.append(f"{indent}const {_TYPE[stmt.result.bits]} {stmt.result.name} = {expression(stmt)};{suffix}")
    return lines
