"""The ZUC MACs' carry-less fold: 128-EIA3 and the ZUC-256 tags of 32, 64
and 128 bits, as one IR program per vector width and kind of tag.

Both MACs XOR into the tag the t-bit keystream window at off + i for every
set message bit m_i (the core, templates/zuc_core.c.j2, gives the whole
derivation and adds A and the final window).  Let chunk c hold message bits
64c .. 64c+63 and let the keystream window of chunk c start at byte 8c of
`ks` (the core points ks at the window of the first chunk).  As polynomials
over GF(2):

  M_c(x)   = sum m_i x^i of the chunk: the bit reversal of its big-endian
             value, which is the bit reversal within every byte of a
             little-endian load;
  K_h(c)   = the big-endian 64-bit keystream value at byte 8c + 8h of ks,
             h = 0, 1 (and 2 for 128-bit tags): a byte reversal of 16 bytes
             gives K_(h+1) in the low half and K_h in the high one.

The fold adds P_h = XOR over chunks of M_c · K_h(c) into three sums (two
for tags of 32 and 64 bits, whose windows span K0 and K1 only); the core
turns them into the tag once: lo(P0) ^ hi(P1) holds tag bits 0..63,
lo(P1) ^ hi(P2) bits 64..127.

A call folds FOLD_CHUNKS chunks: its message is FOLD_CHUNKS * 8 bytes at msg,
its windows the FOLD_CHUNKS * 8 + 8 (+ 8 more for 128-bit tags) bytes at ks.
Each 128-bit block q of a `bits`-wide register takes chunks 2q and 2q + 1 of
a step (their message is that block's 16 bytes), so one load of the message
and one load at ks (+ 8, + 16) per step give every block its operands, with
no shuffle across blocks.  The products are linear: they are summed in a
balanced tree of independent XORs across the whole call, and the sums are
kept `bits` wide: the core adds up the blocks (and the halves) at the end.
The program knows no instruction set: the backends lower clmul (PCLMULQDQ,
VPCLMULQDQ, PMULL/PMULL2, or shifts and masks) and the bit reversal (GFNI,
or nibble tables).
"""

from ..ir import Builder
from ..linalg import AffineMap, bit_reversal, byteswap_mask

FOLD_CHUNKS = 32     # 64-bit chunks per call: 256 message bytes (64 measured no faster)
TAG_KINDS = {2: (32, 64), 3: (128,)}   # keystream pieces per window -> the tag sizes that need that many


def pieces(tag_bits):
    """The 64-bit keystream pieces K_h of a chunk's window that a tag of tag_bits reads."""
    for count, tags in TAG_KINDS.items():
        if tag_bits in tags:
            return count
    raise ValueError(f"no ZUC MAC has a {tag_bits}-bit tag")


def fold_program(bits, tag_bits, chunks=FOLD_CHUNKS):
    """Fold `chunks` chunks into the sums: params (sums, msg, ks); sums holds
    P0, P1 (, P2), each `bits` wide, at byte h * bits / 8."""
    step_bytes = bits // 8
    if chunks * 8 % step_bytes:
        raise ValueError(f"{chunks} chunks are no whole number of {bits}-bit steps")
    count = pieces(tag_bits)
    b = Builder(f"zuc_mac_fold{bits}_k{count}", bits, ("sums", "msg", "ks"))
    reverse_bytes = b.const(byteswap_mask(16), "reverse16", "byte i <- byte 15 - i: 16 keystream bytes to (K1, K0)")
    products = [[] for _ in range(count)]
    b.comment(f"{chunks} chunks, {step_bytes // 8} per step: block q of a step takes chunks 2q and 2q + 1.")
    for step in range(chunks * 8 // step_bytes):
        at = step * step_bytes
        m = b.affine8(b.load("msg", at, "msg"), AffineMap(bit_reversal(8), 0), "m",
                      note="bit i of every byte to bit 7 - i (gen/linalg/bits.py bit_reversal)")
        # k[0] = (K1, K0) of chunk 2q, k[1] = (K1, K0) of chunk 2q + 1 = (K2, K1) of 2q, k[2] = (K2, K1) of 2q + 1.
        k = [b.lookup16(b.load("ks", at + 8 * i, f"ks{i}"), reverse_bytes, f"k{i}") for i in range(count)]
        # P_h: M(2q) · K_h(2q) from the low half of m and M(2q + 1) · K_h(2q + 1) from its high half.
        products[0] += [b.clmul(m, k[0], (0, 1), "p0"), b.clmul(m, k[1], (1, 1), "p0")]
        products[1] += [b.clmul(m, k[0], (0, 0), "p1"), b.clmul(m, k[1], (1, 0), "p1")]
        if count == 3:
            products[2] += [b.clmul(m, k[1], (0, 0), "p2"), b.clmul(m, k[2], (1, 0), "p2")]
    b.comment("Each sum plus its products, in a balanced tree.")
    for h, terms in enumerate(products):
        total = b.xor_tree(terms, f"sum{h}")
        b.store("sums", h * step_bytes, b.xor(b.load("sums", h * step_bytes, f"old{h}"), total, f"new{h}"))
    return b.finish(chunks=chunks, pieces=count)

