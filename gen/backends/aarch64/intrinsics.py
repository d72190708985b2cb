"""The AArch64 dialect of the C emitter (gen/backends/c_emitter.py): NEON
intrinsics of <arm_neon.h>, 128-bit vectors only.  Every value is a
uint8x16_t; the ops on wider elements go through the kc_* macros of
generated/src/kc_neon.h, which reinterpret around the typed intrinsic (their
shift counts must be constants, so they are macros)."""

from ..c_emitter import address, index_address, index_expr

# Ops that are one intrinsic or kc_neon.h macro on their arguments in order.
_FORMS = {
    "xor": "veorq_u8({a}, {b})",
    "and": "vandq_u8({a}, {b})",
    "or": "vorrq_u8({a}, {b})",
    "andnot": "vbicq_u8({b}, {a})",          # ~a & b: BIC clears b's bits that a has
    "lookup16": "vqtbl1q_u8({a}, {b})",      # TBL: indices of 16 and above give 0
    "shl": "kc_shl{lane}({a}, {n})",
    "shr": "kc_shr{lane}({a}, {n})",
    "sli": "kc_sli{lane}({a}, {b}, {n})",
    "unpacklo": "kc_zip1_{lane}({a}, {b})",
    "unpackhi": "kc_zip2_{lane}({a}, {b})",
    "add": "kc_add{lane}({a}, {b})",
    "minu": "kc_minu{lane}({a}, {b})",
    "maxs": "kc_maxs{lane}({a}, {b})",
    "aese": "vaeseq_u8({a}, {b})",
    "sm4e": "kc_sm4e({a}, {b})",
    "rev": "kc_rev{group_bits}_{element_bits}({a})",
    "eor3": "veor3q_u8({a}, {b}, {c})",
    "bsl": "vbslq_u8({a}, {c}, {b})",         # BSL(m, then, else): b where m is 1
    "trn": "kc_trn{half}_{lane}({a}, {b})",
    "rbit": "vrbitq_u8({a})",
}


def vector_type(bits):
    if bits != 128:
        raise ValueError(f"AArch64 C emitter: NEON vectors are 128 bits, not {bits}")
    return "uint8x16_t"


def expression(op):
    """The C expression computing `op` (ops with a result)."""
    vector_type(op.result.bits)
    names = [arg.name for arg in op.args]
    code, attrs = op.opcode, op.attrs
    if code == "load" and attrs.get("volatile"):
        return f"kc_load_volatile128({address(attrs)})"
    if code in ("load", "bcast128"):
        where = address(attrs) if code == "load" else index_address(attrs["index"], attrs["param"])
        return f"vld1q_u8({where})"
    if code == "bcast8":
        return f"vdupq_n_u8({attrs['param']}[{index_expr(attrs['index'])}])"
    if code == "bcast32":
        return f"kc_bcast32({index_address(attrs['index'], attrs['param'])})"
    if code == "const":
        return f"vld1q_u8({op.result.name}_bytes)"
    if code == "rev":
        attrs = dict(attrs, group_bits=8 * attrs["group"], element_bits=8 * attrs["element"])
    if code == "clmul":
        return _pmull(names, attrs["halves"])
    if code in _FORMS:
        return _FORMS[code].format(**dict(zip("abc", names)), **attrs)
    raise ValueError(f"AArch64 C emitter: no form for opcode {code!r}")


def _pmull(names, halves):
    """PMULL (low halves) or PMULL2 (high halves); the rules leave no other pairing."""
    if halves[0] != halves[1]:
        raise ValueError(f"AArch64 C emitter: PMULL multiplies like halves, not {halves} (rules.clmul_by_pmull)")
    a, b = (f"vreinterpretq_p64_u8({name})" for name in names)
    if halves[0]:
        return f"vreinterpretq_u8_p128(vmull_high_p64({a}, {b}))"
    return f"vreinterpretq_u8_p128(vmull_p64(vgetq_lane_p64({a}, 0), vgetq_lane_p64({b}, 0)))"


def store(op):
    value = op.args[0].name
    if op.attrs.get("volatile"):
        return f"kc_store_volatile128({address(op.attrs)}, {value})"
    return f"vst1q_u8({address(op.attrs)}, {value})"


def note_suffix(op):
    return ""
