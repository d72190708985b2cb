"""What each opcode means (the interpreter is the executable definition).

Vectors are sequences of bytes, byte 0 the least significant.  A vector of
more than 128 bits is a row of 128-bit blocks (bytes 16k..16k+15 are block k),
and the "in-lane" ops below (lookup16, unpacklo/hi) act on each block on its
own: that is the IR's rule, whatever width an ISA's registers have.

abstract (lowered by backends):
  affine8(a)            per byte: map.apply(x), map an AffineMap           attrs: map
  affine_inv8(a)        per byte: map.apply(inv(x)), inv in GF(2^8)/0x11B  attrs: map
  sbox8(a)              per byte: table[x], a 256-byte table               attrs: table, note
  rotl(a)               rotate each `lane`-bit element left by n             attrs: n, lane
  select(m, a, b)       bitwise: b where m is 1, a where m is 0
  shld(a, b)            (a << n) | (b >> (lane - n)) per `lane`-bit element  attrs: n, lane
  sm4_rounds4(x, k)     per 128-bit block: four SM4 rounds (gen/specs/sm4.py) on the state
                        X0..X3 (x's 32-bit words 0..3, native order) with the round keys of
                        k's words 0..3 in turn; the result is X4..X7 in the same places
                        (AArch64 SM4E, x86 VSM4RNDS4: targets without one lower none)
target-level:
  load / store          `bits`/8 bytes at param + index                    attrs: param, index
                        (row: param[row] + index; volatile: made where it stands, never
                        merged or forwarded by the C compiler)
  bcast8 / bcast32      broadcast the 8/32-bit element at param + index     attrs: param, index,
                        (bcast32 uniform: the kernel promises its 4 bytes are     [uniform]
                        equal, so every byte of the result is one value; the
                        interpreter checks it)
  bcast128 / bcast256   the 16/32 bytes at param + index in every 128/256-bit block
                        (a plain load at the register's own width)          attrs: param, index
  const                 data of 16 bytes: repeated in every lane; of bits/8  attrs: data, label, note
                        bytes: the whole register
  xor, and, or          bitwise;  andnot(a, b) = ~a & b
  shl, shr              logical shift of each `lane`-bit element by n       attrs: n, lane,
                        (1 <= n < lane; lane 8 shifts bytes)                  [known, care]
                        A byte shift may carry two byte masks, facts for a lowering onto
                        wider shifts (which must clear the bits that cross between bytes
                        unless these show that nothing reads them or they are zero):
                        known: only these bits may be set in an input byte (the interpreter
                        checks it); care: the users read only these bits of a result byte
                        (the others are unspecified: run(..., flip_dont_care=True) flips them)
  lookup16(t, i)        per 128-bit block: an index byte k < 16 picks byte k of t's
                        same block, k >= 0x80 gives 0; 16 <= k < 0x80 has no meaning
                        (an error in the interpreter: x86's pshufb and AArch64's TBL
                        differ there)
  unpacklo, unpackhi    in-lane interleave of `lane`-bit elements           attrs: lane
  add                   wrapping add of `lane`-bit elements                 attrs: lane
  minu                  unsigned minimum of `lane`-bit elements (SSE4.1+)    attrs: lane
  maxs                  signed maximum of `lane`-bit elements (SSE4.1+)      attrs: lane
  extract128(a)         128-bit lane `lane` of a 256- or 512-bit value      attrs: lane
  blocks128(a, b)       output block i = block picks[i] of (a's blocks, b's) attrs: picks
                        (blocks128(a, a, (1, 0)) swaps a's 128-bit lanes; at 512,
                        (1, 0, 3, 2) swaps them within each 256-bit half)
  concat128(lo, hi)     a 256-bit value from two 128-bit halves
  clmul(a, b)           per 128-bit block: the 128-bit carry-less product     attrs: halves
                        (polynomial product over GF(2)) of a's 64-bit half
                        halves[0] and b's 64-bit half halves[1] (0 the low
                        half, 1 the high one), as a little-endian 128-bit
                        number (x86 PCLMULQDQ/VPCLMULQDQ, AArch64 PMULL/PMULL2;
                        a target without one legalizes it from shifts and masks,
                        gen/backends/rules.py clmul_by_shifts)

backend-private: a backend may lower onto ops of its own (one instruction of its
ISA that no kernel writes: x86's ternary logic, GFNI, AESENCLAST, ...).  Their
meaning is not here: the backend registers it with semantics.register_op (x86:
gen/backends/x86/ops.py), and the interpreter runs them once that module is imported.
"""

ABSTRACT = frozenset({"affine8", "affine_inv8", "rotl", "sbox8", "select", "shld", "sm4_rounds4"})
TARGET_LEVEL = frozenset({"load", "store", "bcast8", "bcast32", "bcast128", "bcast256", "const",
                          "xor", "and", "or", "andnot", "shl", "shr", "lookup16", "unpacklo", "unpackhi",
                          "add", "minu", "maxs", "extract128", "blocks128", "concat128", "clmul"})
# The ops that read memory (a store is the one that writes it).
MEMORY_READS = frozenset({"load", "bcast8", "bcast32", "bcast128", "bcast256"})
# Every opcode whose meaning the IR itself defines: no backend may register one.
NEUTRAL = ABSTRACT | TARGET_LEVEL

# What kind of operation each is, for costing a lowered program (gen/explore.py):
# a backend gives each of its own ops a kind when it registers it.
KINDS = ("memory", "constant", "shuffle", "alu", "gfni", "cipher")
KIND = {**{op: "memory" for op in MEMORY_READS | {"store"}}, "const": "constant",
        **{op: "shuffle" for op in ("lookup16", "unpacklo", "unpackhi", "extract128", "blocks128", "concat128")},
        **{op: "alu" for op in ("xor", "and", "or", "andnot", "shl", "shr", "add", "minu", "maxs")},
        "clmul": "cipher"}  # a multiplier unit of its own, several cycles' latency
