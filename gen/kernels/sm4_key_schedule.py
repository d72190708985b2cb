"""SM4's key schedule as an IR program on 128-bit vectors, which the C core
(templates/sm4_core.c.j2) calls through the key-schedule file of its
architecture (gen/emit/sm4_files.py).

The key schedule has the shape of encryption: K = MK ^ FK, then
K[i + 4] = K[i] ^ L'(tau(K[i + 1] ^ K[i + 2] ^ K[i + 3] ^ CK[i])) and
rk[i] = K[i + 4], L' with the rotations of gen/specs/sm4.py.  Each word K[i]
is held in all four 32-bit elements of a register (native byte order, so L'
is element rotations), four of them in turn as the round loop's state, four
rounds an iteration so that the slots never move.  tau is sbox8 over SM4's
table: a target without a byte permutation of 256 entries looks it up from
nibble tables (gen/backends/rules.py sbox8_by_nibble_tables), so no key byte
ever picks an address.

One program writes the whole key form of sm4_key (templates/sm4.h.j2) from
the key bytes and the CK table:
  rk[encrypt]           the round keys in order, native 32-bit words;
  rk[decrypt]           the same reversed;
  rk_sliced[d][i][j]    byte j (big-endian) of rk[d][i] mapped by the chosen
                        S-box decomposition's inner affine map (A1, c1), in
                        all four bytes of the word: the byte-sliced kernels'
                        round keys (gen/kernels/sm4_byteslice.py).
"""

from ..ir import Builder, Index
from ..linalg import AffineMap, byteswap_mask
from ..linalg.shuffle import permutation_mask
from ..specs import sm4
from .rotations import linear_layer
from .sm4_constants import decomposition

PARAMS = ("key", "ck", "out")
WORD_BYTES = 4
VECTOR_BYTES = 16
ROUNDS_PER_ITERATION = 4  # one vector of round keys per iteration; the state's slots come back in place
# sm4_key's layout (templates/sm4.h.j2: rk[2][SM4_ROUNDS], then rk_sliced[2][SM4_ROUNDS][4],
# indexed by sm4_direction, SM4_DECRYPT = 0 and SM4_ENCRYPT = 1): the byte offset of each
# form, which the key-schedule file checks against offsetof.
DIRECTION_INDEX = {"decrypt": 0, "encrypt": 1}
ROUND_KEYS_BYTES = sm4.ROUNDS * WORD_BYTES
SLICED_ROUND_BYTES = WORD_BYTES * WORD_BYTES
SLICED_BYTES = sm4.ROUNDS * SLICED_ROUND_BYTES


def layout():
    """{(form, direction): byte offset in sm4_key}, form "rk" or "rk_sliced"."""
    out = {}
    for direction, d in DIRECTION_INDEX.items():
        out["rk", direction] = d * ROUND_KEYS_BYTES
        out["rk_sliced", direction] = len(DIRECTION_INDEX) * ROUND_KEYS_BYTES + d * SLICED_BYTES
    return out


def key_bytes():
    """The size of the key form the program writes (sm4_key's)."""
    return len(DIRECTION_INDEX) * (ROUND_KEYS_BYTES + SLICED_BYTES)


def _native_words(words):
    """32-bit words as the program's registers hold them: native (little-endian) bytes."""
    return b"".join(w.to_bytes(WORD_BYTES, "little") for w in words)


def ck_table():
    """The table the program reads at `ck`: CK[0..31] as native words."""
    return _native_words(sm4.CK)


def _word_mask(source_bytes):
    """A lookup16 mask whose output byte 4w + m is input byte source_bytes[m] in every word w."""
    return permutation_mask(list(source_bytes) * (VECTOR_BYTES // WORD_BYTES))


def program(decomposition_index=None):
    """The key form of one key (see the module's docstring).

    key  the 16 key bytes (MK, big-endian words);
    ck   ck_table();
    out  sm4_key's bytes (layout())."""
    dec = decomposition(decomposition_index)
    inner = AffineMap(dec.A1, dec.c1)
    places = layout()
    b = Builder("sm4_key_schedule", 128, PARAMS)
    bswap = b.const(byteswap_mask(WORD_BYTES), "bswap32", "byte order reversal in each 32-bit word")
    fk = b.const(_native_words(sm4.FK), "fk", "FK[0..3] (gen/specs/sm4.py), native words")
    b.comment("K0..K3 = MK ^ FK in native order, each word in all four elements of its register.")
    k = b.xor(b.lookup16(b.load("key", 0, "mk"), bswap, "mk_native"), fk, "k")
    state = [b.var(f"k{w}") for w in range(WORD_BYTES)]
    for w, var in enumerate(state):
        b.assign(var, b.lookup16(k, b.const(_word_mask(range(WORD_BYTES * w, WORD_BYTES * (w + 1))),
                                            f"word{w}", f"word {w} in every element"), f"k{w}_all"))
    # rk_sliced's word j repeats big-endian byte j of the round key: native byte 3 - j.
    spread = b.const(permutation_mask([WORD_BYTES - 1 - j for j in range(WORD_BYTES) for _ in range(WORD_BYTES)]),
                     "spread", "byte j (big-endian) of word 0 in all four bytes of word j")
    stride = ROUNDS_PER_ITERATION * WORD_BYTES
    sliced_stride = ROUNDS_PER_ITERATION * SLICED_ROUND_BYTES
    with b.loop("r", sm4.ROUNDS // ROUNDS_PER_ITERATION) as r:
        for slot in range(ROUNDS_PER_ITERATION):
            b.comment(f"Round {ROUNDS_PER_ITERATION}r+{slot}: K{slot} ^= L'(tau(K{slot + 1} ^ K{slot + 2} ^ "
                      f"K{slot + 3} ^ CK)) (slots mod 4), the round key.")
            ck = b.bcast32("ck", Index(WORD_BYTES * slot, ((r, stride),)), "ck")
            words = [state[(slot + w) % ROUNDS_PER_ITERATION] for w in range(ROUNDS_PER_ITERATION)]
            t = b.xor_all([words[1], words[2], ck, words[3]], "t")  # words[3]: the newest, joins last
            s = b.sbox8(t, sm4.SBOX, "s", note="tau: SM4's S-box (gen/specs/sm4.py)")
            b.assign(words[0], b.xor(words[0], linear_layer(b, s, sm4.L_KEY_ROTATIONS, "l"), "rk"))
            sliced = b.lookup16(b.affine8(words[0], inner, "rk_a1", note="A1, c1: the byte-sliced domain"),
                                spread, "rk_sliced")
            b.store("out", Index(places["rk_sliced", "encrypt"] + SLICED_ROUND_BYTES * slot, ((r, sliced_stride),)),
                    sliced)
            b.store("out", Index(places["rk_sliced", "decrypt"] + SLICED_BYTES - SLICED_ROUND_BYTES * (slot + 1),
                                 ((r, -sliced_stride),)), sliced)
        b.comment("This iteration's four round keys in order, and reversed.")
        in_order = b.unpacklo(b.unpacklo(state[0], state[1], 32, "rk01"), b.unpacklo(state[2], state[3], 32, "rk23"),
                              64, "rk_enc")
        reversed_ = b.unpacklo(b.unpacklo(state[3], state[2], 32, "rk32"), b.unpacklo(state[1], state[0], 32, "rk10"),
                               64, "rk_dec")
        b.store("out", Index(places["rk", "encrypt"], ((r, stride),)), in_order)
        b.store("out", Index(places["rk", "decrypt"] + ROUND_KEYS_BYTES - stride, ((r, -stride),)), reversed_)
    return b.finish(key_bytes=key_bytes())
