"""gen/kernels/modes_reference.py: every published SM4 mode vector in
tests/vectors/sm4.json (RFC 8998's GCM and CCM, GB/T 17964-2021's XTS in both
tweak rules, Linux's CMAC and CBC-MAC), both directions, tampering rejected;
the parts no published SM4 vector reaches (GCM's GHASHed IV, CCM's longer
length encodings, truncated tags) by the standards' own statements; and the
refusals.  The gmsm peer checks the rest on random cases (test_gmsm_peer.py)."""

import json
import os
import random
from pathlib import Path

import pytest

from gen.kernels import ghash_reference, modes_reference as modes

REPO = Path(__file__).resolve().parents[1]


def sm4_vectors():
    folder = Path(os.environ.get("KC_VECTORS_DIR", REPO / "tests" / "vectors"))
    return json.loads((folder / "sm4.json").read_text())


def listed(mode):
    words = ("source", "tweak_rule", "result")
    return [pytest.param({k: v if k in words else bytes.fromhex(v) for k, v in o.items()}, id=f"{mode}{i + 1}")
            for i, o in enumerate(sm4_vectors()[mode])]


def flipped(data, at):
    out = bytearray(data)
    out[at % len(out)] ^= 1
    return bytes(out)


@pytest.mark.parametrize("mode", ["gcm", "ccm", "xts", "cmac", "cbc_mac"])
def test_every_mode_list_is_present(mode):
    assert sm4_vectors()[mode], mode


def check_aead(encrypt, decrypt, v, at):
    """A published AEAD vector: encryption gives its ciphertext and (unless the vector is
    "invalid", its tag modified) its tag; decryption gives the plaintext, or rejects the
    modified tag; a flipped bit of ciphertext, tag or AAD is rejected."""
    cipher = modes.sm4(v["key"])
    ct, tag = encrypt(cipher, v["iv"], v["plaintext"], v["aad"], len(v["tag"]))
    assert ct == v["ciphertext"]
    if v.get("result") == "invalid":
        assert tag != v["tag"]
        with pytest.raises(modes.AuthenticationError):
            decrypt(cipher, v["iv"], v["ciphertext"], v["tag"], v["aad"])
        return
    assert tag == v["tag"]
    assert decrypt(cipher, v["iv"], v["ciphertext"], v["tag"], v["aad"]) == v["plaintext"]
    tampered = [(v["ciphertext"], flipped(v["tag"], at), v["aad"])]
    if v["ciphertext"]:
        tampered.append((flipped(v["ciphertext"], at), v["tag"], v["aad"]))
    if v["aad"]:
        tampered.append((v["ciphertext"], v["tag"], flipped(v["aad"], at)))
    for ct, tag, aad in tampered:
        with pytest.raises(modes.AuthenticationError):
            decrypt(cipher, v["iv"], ct, tag, aad)


@pytest.mark.parametrize("v", listed("gcm"))
def test_gcm_published(v):
    check_aead(modes.gcm_encrypt, modes.gcm_decrypt, v, 5)


@pytest.mark.parametrize("v", listed("ccm"))
def test_ccm_published(v):
    check_aead(modes.ccm_encrypt, modes.ccm_decrypt, v, 63)


def test_published_lists_reach_what_they_should():
    """The published GCM vectors include IVs of other lengths than 12 bytes (1 to
    257) and the CCM ones every nonce length 7-13 and tag lengths under 16; both hold
    modified-tag vectors."""
    doc = sm4_vectors()
    gcm_ivs = {len(v["iv"]) // 2 for v in doc["gcm"]}
    assert {1, 2, 4, 8, 16, 32, 257} <= gcm_ivs
    assert {len(v["iv"]) // 2 for v in doc["ccm"]} == set(modes.CCM_NONCE_BYTES)
    assert {len(v["tag"]) // 2 for v in doc["ccm"]} >= {4, 6, 8, 10, 12, 14, 16}
    assert all(any(v.get("result") == "invalid" for v in doc[m]) for m in ("gcm", "ccm"))


@pytest.mark.parametrize("v", listed("xts"))
def test_xts_published(v):
    """Each vector in its own tweak rule; the other rule gives another
    ciphertext (so the rule is what the vector tests)."""
    k1, k2 = modes.sm4(v["key"][:16]), modes.sm4(v["key"][16:])
    rule = v["tweak_rule"]
    assert modes.xts_encrypt(k1, k2, v["iv"], v["plaintext"], rule) == v["ciphertext"]
    assert modes.xts_decrypt(k1, k2, v["iv"], v["ciphertext"], rule) == v["plaintext"]
    other = modes.xts_encrypt(k1, k2, v["iv"], v["plaintext"], "gb" if rule == "ieee" else "ieee")
    assert other != v["ciphertext"]


@pytest.mark.parametrize("v", listed("cmac"))
def test_cmac_published(v):
    assert modes.cmac(modes.sm4(v["key"]), v["message"], len(v["tag"])) == v["tag"]


@pytest.mark.parametrize("v", listed("cbc_mac"))
def test_cbc_mac_published(v):
    assert modes.cbc_mac(modes.sm4(v["key"]), v["message"])[:len(v["tag"])] == v["tag"]


def test_gcm_iv_of_12_bytes_is_the_ghashed_form_too():
    """SP 800-38D 7.1: a 96-bit IV is used as IV || 0^31 || 1, any other length
    GHASHed; the 12-byte shortcut is what the general rule is not, and a
    13-byte IV reaches GHASH's padding and length block."""
    cipher = modes.sm4(bytes(range(16)))
    h = cipher.encrypt(bytes(16))
    iv12 = bytes(range(12))
    assert modes.gcm_j0(h, iv12) == iv12 + b"\0\0\0\1"
    ghashed = ghash_reference.ghash(h, iv12 + bytes(4) + bytes(8) + (96).to_bytes(8, "big"))
    assert modes.gcm_j0(h, iv12) != ghashed
    iv13 = bytes(range(13))
    assert modes.gcm_j0(h, iv13) == ghash_reference.ghash(h, iv13 + bytes(3) + bytes(8) + (104).to_bytes(8, "big"))


def test_truncated_tags_are_prefixes():
    """MSB_t: a shorter GCM tag is the full tag's first bytes; CCM's t enters
    B_0's flags, so its shorter tags are not."""
    rng = random.Random("tags")
    cipher = modes.sm4(rng.randbytes(16))
    iv, pt, aad = rng.randbytes(12), rng.randbytes(40), rng.randbytes(7)
    _, full = modes.gcm_encrypt(cipher, iv, pt, aad)
    for t in modes.GCM_TAG_BYTES:
        ct, tag = modes.gcm_encrypt(cipher, iv, pt, aad, t)
        assert tag == full[:t] and modes.gcm_decrypt(cipher, iv, ct, tag, aad) == pt
    _, ccm_full = modes.ccm_encrypt(cipher, iv, pt, aad)
    ccm8 = modes.ccm_encrypt(cipher, iv, pt, aad, 8)[1]
    assert len(ccm8) == 8 and ccm8 != ccm_full[:8]


def test_ccm_aad_length_encodings():
    """SP 800-38C A.2.2: 2 bytes below 2^16 - 2^8, 0xfffe and 4 bytes below 2^32, else 0xffff and 8."""
    assert modes.ccm_aad_length(1) == b"\x00\x01"
    assert modes.ccm_aad_length(0xfeff) == b"\xfe\xff"
    assert modes.ccm_aad_length(0xff00) == b"\xff\xfe\x00\x00\xff\x00"
    assert modes.ccm_aad_length((1 << 32) - 1) == b"\xff\xfe\xff\xff\xff\xff"
    assert modes.ccm_aad_length(1 << 32) == b"\xff\xff\x00\x00\x00\x01\x00\x00\x00\x00"


@pytest.mark.parametrize("rule", ["ieee", "gb"])
def test_xts_round_trips_every_tail(rule):
    rng = random.Random(rule)
    k1, k2 = modes.sm4(rng.randbytes(16)), modes.sm4(rng.randbytes(16))
    tweak = rng.randbytes(16)
    for n in range(16, 50):
        pt = rng.randbytes(n)
        ct = modes.xts_encrypt(k1, k2, tweak, pt, rule)
        assert len(ct) == n and ct != pt and modes.xts_decrypt(k1, k2, tweak, ct, rule) == pt


def test_refusals():
    cipher = modes.sm4(bytes(16))
    with pytest.raises(ValueError, match="IV must not be empty"):
        modes.gcm_encrypt(cipher, b"", b"")
    with pytest.raises(ValueError, match="GCM tag length 3 is not one of 4..16"):
        modes.gcm_encrypt(cipher, bytes(12), b"", tag_bytes=3)
    with pytest.raises(ValueError, match="CCM nonce length 6 is not one of 7..13"):
        modes.ccm_encrypt(cipher, bytes(6), b"")
    with pytest.raises(ValueError, match="CCM tag length 5 is not one of 4..16 in steps of 2"):
        modes.ccm_encrypt(cipher, bytes(12), b"", tag_bytes=5)
    with pytest.raises(ValueError, match="at most 2"):
        modes.ccm_encrypt(cipher, bytes(13), bytes(1 << 16))
    with pytest.raises(ValueError, match="at least 16 bytes, not 15"):
        modes.xts_encrypt(cipher, cipher, bytes(16), bytes(15))
    with pytest.raises(ValueError, match="tweak rule 'cmac'"):
        modes.xts_encrypt(cipher, cipher, bytes(16), bytes(16), "cmac")
    with pytest.raises(ValueError, match="whole 16-byte blocks, not 17"):
        modes.cbc_mac(cipher, bytes(17))
    with pytest.raises(ValueError, match="not 0 bytes"):
        modes.cbc_mac(cipher, b"")
