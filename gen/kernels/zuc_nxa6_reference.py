"""3GPP's ZUC-NIA6 (integrity) and ZUC-NCA6 (authenticated encryption) from
their definitions, slow and plain: the oracle the library's NIA6 and NCA6
will be held to.  Both run on ZUC-NEA6's keystream (gen/specs/zuc.py NEA6;
IV byte 0 carries the tag length and NCA6's flag, as the caller builds it).

The keystream's first 48 bytes are three blocks H, Q and P.  The tag is
T = dot(S, Q) ^ P truncated to 4..16 bytes, S being POLYVAL_H (RFC 8452) over
the zero-padded input XORed with a length block: for NIA6 the message alone,
its length in bits in the block's last 8 bytes; for NCA6 the padded AAD then
the padded ciphertext, the ciphertext's length in bits in the first 8 bytes
and the AAD's in the last.  NCA6 encrypts with the keystream from byte 48 on,
and its tag covers the ciphertext.  POLYVAL is computed here through GHASH,
by RFC 8452's Appendix A: POLYVAL(H, X_1..X_n) = ByteReverse(GHASH(
mulX_GHASH(ByteReverse(H)), ByteReverse(X_1), ..., ByteReverse(X_n))).
"""

from ..specs import gf128, zuc
from ..specs.validate import SpecError
from . import ghash_reference, zuc_reference

BLOCK = gf128.BLOCK_BYTES
KEY_BLOCKS = 3                          # H, Q, P
TAG_BYTES = range(4, BLOCK + 1)
X_GHASH = bytes([0x40]) + bytes(BLOCK - 1)  # x in GHASH's bit order (x^0 is byte 0's top bit)


def polyval(h, blocks):
    """POLYVAL_H over whole blocks: S_j = dot(S_(j-1) ^ X_j, H), dot(a, b) = a b x^-128
    in GF(2)[x]/(x^128 + x^127 + x^126 + x^121 + 1), blocks little-endian."""
    if len(blocks) % BLOCK:
        raise ValueError(f"POLYVAL takes whole blocks, not {len(blocks)} bytes")
    key = ghash_reference.multiply(h[::-1], X_GHASH)
    reversed_blocks = b"".join(blocks[at:at + BLOCK][::-1] for at in range(0, len(blocks), BLOCK))
    return ghash_reference.ghash(key, reversed_blocks)[::-1]


def _padded(data):
    return data + bytes(-len(data) % BLOCK)


def _check_tag_bytes(tag_bytes):
    if tag_bytes not in TAG_BYTES:
        raise SpecError(f"a NIA6/NCA6 tag is 4..16 bytes, not {tag_bytes}")


def _keystream(key, iv, nbytes):
    words = zuc_reference.keystream_words(zuc.NEA6, key, iv, -(-nbytes // 4))
    return b"".join(w.to_bytes(4, "big") for w in words)[:nbytes]


def _tag(h, q, p, blocks, lengths, tag_bytes):
    s = ghash_reference.xor(polyval(h, blocks), lengths)
    return ghash_reference.xor(polyval(q, s), p)[:tag_bytes]


def nia6(key, iv, msg, tag_bytes):
    """The NIA6 tag of msg (whole bytes), tag_bytes long."""
    _check_tag_bytes(tag_bytes)
    h, q, p = (_keystream(key, iv, KEY_BLOCKS * BLOCK)[i * BLOCK:(i + 1) * BLOCK] for i in range(KEY_BLOCKS))
    lengths = bytes(8) + (8 * len(msg)).to_bytes(8, "little")
    return _tag(h, q, p, _padded(msg), lengths, tag_bytes)


def nca6_encrypt(key, iv, aad, plaintext, tag_bytes):
    """(ciphertext, tag) of NCA6."""
    _check_tag_bytes(tag_bytes)
    stream = _keystream(key, iv, KEY_BLOCKS * BLOCK + len(plaintext))
    h, q, p = (stream[i * BLOCK:(i + 1) * BLOCK] for i in range(KEY_BLOCKS))
    ciphertext = ghash_reference.xor(plaintext, stream[KEY_BLOCKS * BLOCK:])
    lengths = (8 * len(ciphertext)).to_bytes(8, "little") + (8 * len(aad)).to_bytes(8, "little")
    return ciphertext, _tag(h, q, p, _padded(aad) + _padded(ciphertext), lengths, tag_bytes)


def nca6_decrypt(key, iv, aad, ciphertext, tag):
    """The plaintext if tag verifies, else None."""
    plaintext, _ = nca6_encrypt(key, iv, b"", ciphertext, len(tag))
    _, want = nca6_encrypt(key, iv, aad, plaintext, len(tag))
    return plaintext if want == tag else None
