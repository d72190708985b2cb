"""The block-cipher modes of issue 44 as their standards write them, over any
16-byte block cipher: GCM (NIST SP 800-38D), CCM (SP 800-38C, RFC 8998's
SM4-CCM), XTS with ciphertext stealing (IEEE Std 1619; the tweak rule IEEE or
GB/T 17964-2021, a parameter), CMAC (SP 800-38B) and plain CBC-MAC.

Slow and plain, one block at a time: the oracle the generated modes and the
gmsm peer (harness/peers/gmsm) are checked against.  The cipher is a
`Block` (its encrypt and decrypt functions of one block); `sm4(key)` gives
SM4's from gen/kernels/sm4_reference.py.  GF(2^128) is not done here: GHASH
is ghash_reference's, XTS's multiplication by alpha and CMAC's subkeys are
gf128_reference's.
"""

from dataclasses import dataclass
from typing import Callable

from ..specs import gf128
from . import ghash_reference, gf128_reference, sm4_reference

BLOCK = gf128.BLOCK_BYTES
GCM_TAG_BYTES = range(4, BLOCK + 1)            # SP 800-38D 5.2.1.2 names 16, 15, 14, 13, 12, 8 and 4
CCM_NONCE_BYTES = range(7, 14)                 # SP 800-38C A.1: n in {7, ..., 13}, q = 15 - n
CCM_TAG_BYTES = range(4, BLOCK + 1, 2)         # SP 800-38C A.1: t in {4, 6, ..., 16}
XTS_RULES = {c.name: c for c in gf128.XTS_CONVENTIONS}


class AuthenticationError(ValueError):
    """A tag that does not verify."""


@dataclass(frozen=True)
class Block:
    """A 16-byte block cipher under one key."""

    encrypt: Callable[[bytes], bytes]
    decrypt: Callable[[bytes], bytes]


def sm4(key):
    """SM4 under `key` (its round keys computed once)."""
    round_keys = sm4_reference.key_schedule(key)
    reverse = round_keys[::-1]
    return Block(lambda b: sm4_reference.crypt_block(round_keys, b),
                 lambda b: sm4_reference.crypt_block(reverse, b))


xor = ghash_reference.xor


def _blocks(data):
    return [data[at:at + BLOCK] for at in range(0, len(data), BLOCK)]


def _zero_padded(data):
    return data + bytes(-len(data) % BLOCK)


def _check(what, value, allowed):
    if value not in allowed:
        raise ValueError(f"{what} {value} is not one of {allowed.start}..{allowed.stop - 1}"
                         f"{f' in steps of {allowed.step}' if allowed.step != 1 else ''}")


# ---- GCM (SP 800-38D) -------------------------------------------------------

def inc32(block):
    """The last 32 bits incremented mod 2^32 (SP 800-38D 6.2)."""
    low = (int.from_bytes(block[-4:], "big") + 1) % (1 << 32)
    return block[:-4] + low.to_bytes(4, "big")


def gctr(cipher, icb, data):
    """GCTR_K(ICB, X) (SP 800-38D 6.5): X xor E(CB_1) || E(CB_2) ..., CB_(i+1) = inc32(CB_i)."""
    out, cb = [], icb
    for chunk in _blocks(data):
        out.append(xor(chunk, cipher.encrypt(cb)))
        cb = inc32(cb)
    return b"".join(out)


def gcm_j0(h, iv):
    """The pre-counter block (SP 800-38D 7.1 step 2): IV || 0^31 || 1 for a
    96-bit IV, else GHASH_H(IV || 0^(s+64) || [len(IV)]_64)."""
    if not iv:
        raise ValueError("GCM's IV must not be empty (SP 800-38D 5.2.1.1)")
    if len(iv) == 12:
        return iv + (1).to_bytes(4, "big")
    return ghash_reference.ghash(h, _zero_padded(iv) + bytes(8) + (8 * len(iv)).to_bytes(8, "big"))


def _gcm_tag(cipher, h, j0, aad, ciphertext, tag_bytes):
    s = ghash_reference.ghash(h, ghash_reference.gcm_blocks(aad, ciphertext))
    return gctr(cipher, j0, s)[:tag_bytes]


def gcm_encrypt(cipher, iv, plaintext, aad=b"", tag_bytes=BLOCK):
    """GCM-AE_K(IV, P, A) (SP 800-38D 7.1): (C, T), T the first tag_bytes of the full tag."""
    _check("GCM tag length", tag_bytes, GCM_TAG_BYTES)
    h = cipher.encrypt(bytes(BLOCK))
    j0 = gcm_j0(h, iv)
    ciphertext = gctr(cipher, inc32(j0), plaintext)
    return ciphertext, _gcm_tag(cipher, h, j0, aad, ciphertext, tag_bytes)


def gcm_decrypt(cipher, iv, ciphertext, tag, aad=b""):
    """GCM-AD_K(IV, C, A, T) (SP 800-38D 7.2): P, or AuthenticationError."""
    _check("GCM tag length", len(tag), GCM_TAG_BYTES)
    h = cipher.encrypt(bytes(BLOCK))
    j0 = gcm_j0(h, iv)
    if _gcm_tag(cipher, h, j0, aad, ciphertext, len(tag)) != tag:
        raise AuthenticationError("GCM tag mismatch")
    return gctr(cipher, inc32(j0), ciphertext)


# ---- CCM (SP 800-38C, RFC 8998 section 3.1.2) ---------------------------------

def ccm_aad_length(a):
    """The encoding of the associated data's length a (SP 800-38C A.2.2):
    2 bytes below 2^16 - 2^8, else 0xff 0xfe and 4 bytes below 2^32, else 0xff 0xff and 8 bytes."""
    if a < (1 << 16) - (1 << 8):
        return a.to_bytes(2, "big")
    if a < 1 << 32:
        return b"\xff\xfe" + a.to_bytes(4, "big")
    return b"\xff\xff" + a.to_bytes(8, "big")


def _ccm_counter(nonce, i):
    q = 15 - len(nonce)
    return bytes([q - 1]) + nonce + i.to_bytes(q, "big")


def _ccm_mac(cipher, nonce, aad, payload, tag_bytes):
    """T: CBC-MAC over B_0 (flags, N, Q), the length-prefixed AAD and the payload,
    each zero-padded to whole blocks (SP 800-38C A.2, 6.1 steps 1-4)."""
    q = 15 - len(nonce)
    if len(payload) >> (8 * q):
        raise ValueError(f"CCM with a {len(nonce)}-byte nonce takes at most 2^{8 * q} - 1 bytes")
    flags = (64 if aad else 0) | (tag_bytes - 2) // 2 << 3 | (q - 1)
    b = bytes([flags]) + nonce + len(payload).to_bytes(q, "big")
    if aad:
        b += _zero_padded(ccm_aad_length(len(aad)) + aad)
    return cbc_mac(cipher, b + _zero_padded(payload))[:tag_bytes]


def _ccm_check(nonce, tag_bytes):
    _check("CCM nonce length", len(nonce), CCM_NONCE_BYTES)
    _check("CCM tag length", tag_bytes, CCM_TAG_BYTES)


def _ccm_ctr(cipher, nonce, data):
    out = []
    for i, chunk in enumerate(_blocks(data), start=1):
        out.append(xor(chunk, cipher.encrypt(_ccm_counter(nonce, i))))
    return b"".join(out)


def ccm_encrypt(cipher, nonce, plaintext, aad=b"", tag_bytes=BLOCK):
    """(C, U): the payload under Ctr_1, Ctr_2 ... and U = T xor MSB_t(E(Ctr_0)) (SP 800-38C 6.1)."""
    _ccm_check(nonce, tag_bytes)
    t = _ccm_mac(cipher, nonce, aad, plaintext, tag_bytes)
    return _ccm_ctr(cipher, nonce, plaintext), xor(t, cipher.encrypt(_ccm_counter(nonce, 0)))


def ccm_decrypt(cipher, nonce, ciphertext, tag, aad=b""):
    """P, or AuthenticationError (SP 800-38C 6.2)."""
    _ccm_check(nonce, len(tag))
    plaintext = _ccm_ctr(cipher, nonce, ciphertext)
    t = xor(tag, cipher.encrypt(_ccm_counter(nonce, 0)))
    if _ccm_mac(cipher, nonce, aad, plaintext, len(tag)) != t:
        raise AuthenticationError("CCM tag mismatch")
    return plaintext


# ---- XTS (IEEE Std 1619 section 5, GB/T 17964-2021) ----------------------------

def xts_with_tweaks(cipher, tweaks, data, decrypt=False):
    """One data unit of at least one block under the given tweaks (T_j for
    block j, one more than the whole blocks); a partial last block steals the
    tail of the block before (IEEE 1619 5.3.2 / 5.4.2: decryption swaps the
    last two tweaks)."""
    if len(data) < BLOCK:
        raise ValueError(f"an XTS data unit is at least {BLOCK} bytes, not {len(data)}")
    full, tail = divmod(len(data), BLOCK)
    crypt = cipher.decrypt if decrypt else cipher.encrypt

    def one(block, t):
        return xor(crypt(xor(block, t)), t)

    blocks = _blocks(data)
    out = [one(blocks[j], tweaks[j]) for j in range(full - (1 if tail else 0))]
    if tail:
        m = full - 1
        first, second = (tweaks[m + 1], tweaks[m]) if decrypt else (tweaks[m], tweaks[m + 1])
        cc = one(blocks[m], first)
        out += [one(blocks[m + 1] + cc[tail:], second), cc[:tail]]
    return b"".join(out)


def _xts(cipher, tweak_cipher, tweak, data, rule, decrypt):
    """T_0 = E_K2(tweak), T_(j+1) = T_j * alpha in `rule`'s convention."""
    if rule not in XTS_RULES:
        raise ValueError(f"XTS tweak rule {rule!r} is none of {sorted(XTS_RULES)}")
    if len(tweak) != BLOCK:
        raise ValueError(f"the XTS tweak is {BLOCK} bytes, not {len(tweak)}")
    tweaks = gf128_reference.sequence(rule, tweak_cipher.encrypt(tweak), len(data) // BLOCK + 1)
    return xts_with_tweaks(cipher, tweaks, data, decrypt)


def xts_encrypt(cipher, tweak_cipher, tweak, plaintext, rule="ieee"):
    """XTS encryption of one data unit: `cipher` under K1, `tweak_cipher` under K2."""
    return _xts(cipher, tweak_cipher, tweak, plaintext, rule, decrypt=False)


def xts_decrypt(cipher, tweak_cipher, tweak, ciphertext, rule="ieee"):
    return _xts(cipher, tweak_cipher, tweak, ciphertext, rule, decrypt=True)


# ---- CMAC (SP 800-38B) and CBC-MAC ---------------------------------------------

def cbc_mac(cipher, message):
    """CBC-MAC with a zero IV over whole blocks: the last ciphertext block."""
    if not message or len(message) % BLOCK:
        raise ValueError(f"CBC-MAC takes one or more whole {BLOCK}-byte blocks, not {len(message)} bytes")
    state = bytes(BLOCK)
    for chunk in _blocks(message):
        state = cipher.encrypt(xor(state, chunk))
    return state


def cmac(cipher, message, tag_bytes=BLOCK):
    """CMAC (SP 800-38B 6.2): the last block XORed with K1 when complete, else
    padded with 10* and XORed with K2; an empty message is one padded block."""
    _check("CMAC tag length", tag_bytes, range(1, BLOCK + 1))
    k1, k2 = gf128_reference.cmac_subkeys(cipher.encrypt(bytes(BLOCK)))
    blocks = _blocks(message) or [b""]
    last = blocks[-1]
    if len(last) == BLOCK:
        blocks[-1] = xor(last, k1)
    else:
        blocks[-1] = xor(last + b"\x80" + bytes(BLOCK - 1 - len(last)), k2)
    return cbc_mac(cipher, b"".join(blocks))[:tag_bytes]
