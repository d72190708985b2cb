"""ZUC-128, ZUC-256 and ZUC-NEA6 straight from the spec, one stream at a time: the oracle
every kernel program and every generated C kernel is checked against.

Besides keystream, encryption and the MACs it models the kernel ABI of
templates/zuc.h.j2 (`lanes_state`, `init_more_rounds`, `init_rounds`, `keystream_block`): the state
of `lanes` streams as 18 * lanes words, word i (s0..s15, R1, R2) of lane j at
index i * lanes + j, advanced in place.
"""

from ..linalg import rotl
from ..specs import zuc
from ..specs.validate import SpecError

MASK32 = 0xFFFFFFFF
STATE_WORDS = zuc.LFSR_CELLS + 2  # s0..s15, R1, R2
BLOCK_WORDS = 16                  # keystream words per lane per keystream_block


def linear(word, rotations):
    """L1 or L2: the word XORed with its left rotations."""
    out = word
    for r in rotations:
        out ^= rotl(word, r, 32)
    return out


def sbox_layer(word):
    """S: S0, S1, S0, S1 on the bytes of a word, most significant byte first."""
    s0, s1 = zuc.s0_table(), zuc.s1_table()
    b = word.to_bytes(4, "big")
    return int.from_bytes(bytes((s0[b[0]], s1[b[1]], s0[b[2]], s1[b[3]])), "big")


def _high16(cell):
    return cell >> 15


def _low16(cell):
    return cell & 0xFFFF


class ZucState:
    """LFSR cells s0..s15 and the FSM's R1, R2; `round` is one clock of the cipher."""

    def __init__(self, cells, r1=0, r2=0):
        if len(cells) != zuc.LFSR_CELLS:
            raise ValueError(f"ZUC state needs {zuc.LFSR_CELLS} LFSR cells, got {len(cells)}")
        self.cells = list(cells)
        self.r1, self.r2 = r1, r2

    @classmethod
    def loaded(cls, variant, key, iv, tag_bits=0):
        """The state after key loading, before the initialisation rounds."""
        return cls(zuc.load_key(variant, key, iv, tag_bits))

    def bit_reorganization(self):
        """X0..X3, each two 16-bit halves of cells (the high half of a 31-bit cell is
        F_H(cell << 1), its bits 30..15)."""
        s = self.cells
        return (_high16(s[15]) << 16 | _low16(s[14]), _low16(s[11]) << 16 | _high16(s[9]),
                _low16(s[7]) << 16 | _high16(s[5]), _low16(s[2]) << 16 | _high16(s[0]))

    def round(self, init_mode):
        """One clock; returns the keystream word Z = W ^ X3 (discarded in initialisation)."""
        x0, x1, x2, x3 = self.bit_reorganization()
        w = ((x0 ^ self.r1) + self.r2) & MASK32
        w1 = (self.r1 + x1) & MASK32
        w2 = self.r2 ^ x2
        self.r1 = sbox_layer(linear((w1 << 16 | w2 >> 16) & MASK32, zuc.L1_ROTATIONS))
        self.r2 = sbox_layer(linear((w2 << 16 | w1 >> 16) & MASK32, zuc.L2_ROTATIONS))
        feedback = sum(m * self.cells[i] for i, m in zuc.LFSR_TAPS)
        if init_mode:
            feedback += w >> 1
        s16 = feedback % zuc.LFSR_MODULUS or zuc.LFSR_MODULUS
        self.cells = self.cells[1:] + [s16]
        return w ^ x3

    def initialise(self, rounds=zuc.INIT_ROUNDS):
        """The initialisation rounds, then the first work-mode round (its Z discarded)."""
        self.init_mode_rounds(rounds)
        self.round(init_mode=False)

    def init_mode_rounds(self, rounds):
        for _ in range(rounds):
            self.round(init_mode=True)

    def words(self, n):
        return [self.round(init_mode=False) for _ in range(n)]


def keystream_words(variant, key, iv, n, tag_bits=0):
    """The first n keystream words of (key, iv) with the constants of `tag_bits`."""
    state = ZucState.loaded(variant, key, iv, tag_bits)
    state.initialise(zuc.init_rounds(variant))
    return state.words(n)


def keystream_bits(variant, key, iv, nbits, tag_bits=0):
    """The first nbits keystream bits as one int (z0 the most significant) and its width."""
    words = keystream_words(variant, key, iv, (nbits + 31) // 32, tag_bits)
    width = 32 * len(words)
    return int.from_bytes(b"".join(w.to_bytes(4, "big") for w in words), "big"), width


def _message_bits(msg, bits):
    nbytes = (bits + 7) // 8
    if len(msg) < nbytes:
        raise ValueError(f"{bits} bits need {nbytes} bytes, got {len(msg)}")
    return int.from_bytes(msg[:nbytes], "big") >> (8 * nbytes - bits)


def encrypt(variant, key, iv, data, bits):
    """data XOR keystream over `bits` bits (ceil(bits / 8) bytes out); the unused low
    bits of a final partial byte are zero.  Decryption is the same function."""
    nbytes = (bits + 7) // 8
    if len(data) < nbytes:
        raise ValueError(f"{bits} bits need {nbytes} bytes, got {len(data)}")
    stream, width = keystream_bits(variant, key, iv, bits)
    out = bytearray(a ^ b for a, b in zip(data, (stream >> (width - 8 * nbytes)).to_bytes(nbytes, "big")))
    if bits % 8:
        out[-1] &= (0xFF << (8 - bits % 8)) & 0xFF
    return bytes(out)


def _window(stream, width, start, size):
    """Keystream bits z_start .. z_{start+size-1} as an int (z_start the most significant)."""
    return (stream >> (width - start - size)) & ((1 << size) - 1)


def mac(variant, key, iv, msg, bits, tag_bits):
    """The MAC of the first `bits` bits of msg as tag_bits / 8 bytes, big-endian.

    ZUC-128: 128-EIA3 with the IV as given (T ^= z_i..z_{i+31} for each set bit
    m_i, then T ^= z_LENGTH.., MAC = T ^ z_{32(L-1)}.. with L = ceil(LENGTH/32) + 2).
    ZUC-256 (2018): Tag = z_0..z_{t-1}; Tag ^= z_{t+i}..z_{2t+i-1} for each set bit
    m_i; finally Tag ^= z_{t+l}..z_{2t+l-1}; loaded with the tag length's constants."""
    zuc.check_tag_bits(variant, tag_bits)
    if tag_bits == 0:
        raise SpecError("a MAC needs a tag length, not 0")
    m = _message_bits(msg, bits)
    if variant == 128:
        nwords = (bits + 31) // 32 + 2
        stream, width = keystream_bits(variant, key, iv, 32 * nwords, tag_bits)
        tag, offset = _window(stream, width, 32 * (nwords - 1), 32), 0
    else:
        stream, width = keystream_bits(variant, key, iv, 32 * ((bits + 31) // 32) + 2 * tag_bits, tag_bits)
        tag, offset = _window(stream, width, 0, tag_bits), tag_bits
    for i in range(bits):
        if (m >> (bits - 1 - i)) & 1:
            tag ^= _window(stream, width, offset + i, tag_bits)
    tag ^= _window(stream, width, offset + bits, tag_bits)
    return tag.to_bytes(tag_bits // 8, "big")


# ---- the kernel ABI -------------------------------------------------------------------

def lanes_state(variant, keys, ivs, tag_bits=0):
    """18 * lanes words after key loading (R1 = R2 = 0), word i of lane j at i * lanes + j."""
    if len(keys) != len(ivs):
        raise ValueError(f"{len(keys)} keys but {len(ivs)} IVs")
    return _pack([ZucState.loaded(variant, k, v, tag_bits) for k, v in zip(keys, ivs)])


def _pack(states):
    lanes = len(states)
    words = [0] * (STATE_WORDS * lanes)
    for j, st in enumerate(states):
        for i, w in enumerate(st.cells + [st.r1, st.r2]):
            words[i * lanes + j] = w
    return words


def _unpack(state_words, lanes):
    if lanes < 1 or len(state_words) != STATE_WORDS * lanes:
        raise ValueError(f"{lanes} lanes need {STATE_WORDS * lanes} state words, got {len(state_words)}")
    return [ZucState([state_words[i * lanes + j] for i in range(zuc.LFSR_CELLS)],
                     state_words[16 * lanes + j], state_words[17 * lanes + j]) for j in range(lanes)]


def init_rounds(state_words, lanes):
    """The kernel's init_rounds, in place: 32 initialisation rounds and one discarded round."""
    states = _unpack(state_words, lanes)
    for st in states:
        st.initialise()
    state_words[:] = _pack(states)


INIT_MORE_ROUNDS = max(zuc.INIT_ROUNDS_BY_VARIANT.values()) - zuc.INIT_ROUNDS


def init_more_rounds(state_words, lanes):
    """The kernel's init_more_rounds, in place: the initialisation rounds a
    variant runs beyond init_rounds' 32 (NEA6's 16 of 48), run before it, no
    round discarded."""
    states = _unpack(state_words, lanes)
    for st in states:
        st.init_mode_rounds(INIT_MORE_ROUNDS)
    state_words[:] = _pack(states)


def keystream_block(state_words, lanes):
    """The kernel's keystream_block, in place: 16 rounds per lane; returns 64 * lanes bytes,
    bytes 64 * j .. 64 * j + 63 being lane j's words big-endian."""
    states = _unpack(state_words, lanes)
    out = b"".join(w.to_bytes(4, "big") for st in states for w in st.words(BLOCK_WORDS))
    state_words[:] = _pack(states)
    return out


def keystream_word(state_words, lanes):
    """The kernel's keystream_word, in place: one round per lane; returns each lane's keystream word."""
    states = _unpack(state_words, lanes)
    out = [st.words(1)[0] for st in states]
    state_words[:] = _pack(states)
    return out


# ---- the MAC by carry-less folding (gen/kernels/zuc_mac.py) ----------------------------

def _carryless(x, y):
    out = 0
    while y:
        if y & 1:
            out ^= x
        x, y = x << 1, y >> 1
    return out


def _reverse64(x):
    return int(f"{x:064b}"[::-1], 2)


def fold_sums(msg, ks, chunks, pieces):
    """The fold's sums P_0 .. P_(pieces-1) as 128-bit integers: XOR over chunks
    c of M_c · K_h(c), M_c the bit-reversed big-endian chunk at msg[8c:],
    K_h(c) the big-endian 64-bit value at ks[8c + 8h:]."""
    sums = [0] * pieces
    for c in range(chunks):
        m = _reverse64(int.from_bytes(msg[8 * c:8 * c + 8], "big"))
        for h in range(pieces):
            sums[h] ^= _carryless(m, int.from_bytes(ks[8 * c + 8 * h:8 * c + 8 * h + 8], "big"))
    return sums


def tag_from_sums(sums, tag_bits):
    """The folded part of a tag (without A) from the sums: bits N - t .. N - 1
    of M·K, i.e. lo(P0) ^ hi(P1) then lo(P1) ^ hi(P2), truncated to t bits."""
    low64 = (1 << 64) - 1
    high = (sums[0] ^ sums[1] >> 64) & low64
    if tag_bits == 128:
        return high << 64 | ((sums[1] ^ sums[2] >> 64) & low64)
    return high >> (64 - tag_bits)


def mac_by_folding(variant, key, iv, msg, bits, tag_bits):
    """mac() as the core computes it: the message's bits and one extra 1 bit
    in 64-bit chunks, folded by carry-less products (fold_sums), then A."""
    zuc.check_tag_bits(variant, tag_bits)
    pieces = 3 if tag_bits == 128 else 2
    chunks = bits // 64 + 1
    padded = (_message_bits(msg, bits) << 1 | 1) << (64 * chunks - bits - 1)
    offset_words = 0 if variant == 128 else tag_bits // 32
    nwords = offset_words + 2 * chunks + 2 * pieces
    words = keystream_words(variant, key, iv, nwords, tag_bits)
    ks = b"".join(w.to_bytes(4, "big") for w in words[offset_words:])
    tag = tag_from_sums(fold_sums(padded.to_bytes(8 * chunks, "big"), ks, chunks, pieces), tag_bits)
    if variant == 128:
        a = words[(bits + 31) // 32 + 1]
    else:
        a = int.from_bytes(b"".join(w.to_bytes(4, "big") for w in words[:tag_bits // 32]), "big")
    return (tag ^ a).to_bytes(tag_bits // 8, "big")
