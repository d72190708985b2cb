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
target-level double shift:
  shld_native(a, b)     the same, one instruction (AVX-512 VBMI2 VPSHLDD/W)  attrs: n, lane
target-level rotation:
  rotl_native(a)        the same, one instruction (AVX-512 VPROLD)          attrs: n, lane
target-level:
  load / store          `bits`/8 bytes at param + index                    attrs: param, index
                        (row: param[row] + index; volatile: made where it stands, never
                        merged or forwarded by the C compiler)
  bcast8 / bcast32      broadcast the 8/32-bit element at param + index     attrs: param, index
  bcast128 / bcast256   the 16/32 bytes at param + index in every 128/256-bit block
                        (a plain load at the register's own width)          attrs: param, index
  const                 data of 16 bytes: repeated in every lane; of bits/8  attrs: data, label, note
                        bytes: the whole register
  xor, and, or          bitwise;  andnot(a, b) = ~a & b
  shl, shr              logical shift of each `lane`-bit element by n       attrs: n, lane
  lookup16(t, i)        per 128-bit block: an index byte k < 16 picks byte k of t's
                        same block, k >= 0x80 gives 0; 16 <= k < 0x80 has no meaning
                        (an error in the interpreter: x86's pshufb and AArch64's TBL
                        differ there)
  unpacklo, unpackhi    in-lane interleave of `lane`-bit elements           attrs: lane
  add                   wrapping add of `lane`-bit elements                 attrs: lane
  minu                  unsigned minimum of `lane`-bit elements (SSE4.1+)    attrs: lane
  maxs                  signed maximum of `lane`-bit elements (SSE4.1+)      attrs: lane
  gf2p8affine(a, m)     GF2P8AFFINEQB with matrix qwords m                  attrs: imm
  gf2p8affineinv(a, m)  GF2P8AFFINEINVQB                                     attrs: imm
  aesenclast(a, k)      AESENCLAST on every 128-bit lane
  ternlog(a, b, c)       bitwise: result bit = imm bit (a<<2 | b<<1 | c)      attrs: imm
  blendv(a, b, m)       per byte: b where m's byte has bit 7 set, else a (PBLENDVB)
  permute2b(i, a, b)    per byte: of a's bytes then b's (2 x bits/8), the one i's byte
                        picks, modulo 2 x bits/8 (AVX-512 VBMI VPERMI2B)
  extract128(a)         128-bit lane `lane` of a 256- or 512-bit value      attrs: lane
  blocks128(a, b)       output block i = block picks[i] of (a's blocks, b's) attrs: picks
                        (blocks128(a, a, (1, 0)) swaps a's 128-bit lanes; at 512,
                        (1, 0, 3, 2) swaps them within each 256-bit half)
  concat128(lo, hi)     a 256-bit value from two 128-bit halves
"""

ABSTRACT = frozenset({"affine8", "affine_inv8", "rotl", "sbox8", "select", "shld"})
