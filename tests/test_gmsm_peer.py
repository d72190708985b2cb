"""The gmsm peer (harness/peers/gmsm, github.com/emmansun/gmsm v0.44.0) against
gen/kernels/modes_reference.py on random cases: an implementation written by
others beside ours from the standards, so that a misreading of a standard
shared by the reference and the C modes would show.

GCM: IV lengths 1-64, AAD and message lengths 0-300 (unaligned ones among
them), every tag length gmsm takes (12-16), both directions, tampered
ciphertext, AAD and tag rejected.  CCM: every nonce length and even tag
length, a 2- and a 6-byte AAD length encoding.  XTS: both tweak rules, data
units with partial last blocks.  CMAC: messages 0-300 bytes, every tag
length.  Every published GCM, CCM, XTS and CMAC vector of sm4.json; CTR and
CBC: the published vectors.  The peer is built if missing
or older than its sources (harness/peers/gmsm/build.sh, which fetches Go
1.25 and gmsm through the Go module proxy the first time)."""

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from gen.kernels import modes_reference as modes

REPO = Path(__file__).resolve().parents[1]
PEER_SOURCES = REPO / "harness" / "peers" / "gmsm"


@pytest.fixture(scope="module")
def peer():
    """A running peer; ask(op, *fields) sends one request, returns the answer's fields."""
    exe = Path(os.environ.get("KC_BUILD_DIR", REPO / "build")).resolve() / "peers" / "gmsm"
    newest = max(f.stat().st_mtime for f in PEER_SOURCES.iterdir())
    if not exe.exists() or exe.stat().st_mtime < newest:
        proc = subprocess.run([str(PEER_SOURCES / "build.sh"), str(exe)], capture_output=True, text=True,
                              timeout=600)
        if proc.returncode != 0:
            pytest.fail(f"building the gmsm peer failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(op, *fields):
        text = " ".join(f.hex() or "-" if isinstance(f, bytes) else str(f) for f in fields)
        proc.stdin.write(f"{op} {text}\n")
        proc.stdin.flush()
        answer = proc.stdout.readline().split()
        assert answer, f"the peer said nothing to {op}"
        if answer[0] == "ok":
            return [b"" if f == "-" else bytes.fromhex(f) for f in answer[1:]]
        return answer

    yield ask
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0


def sm4_json():
    return json.loads((Path(os.environ.get("KC_VECTORS_DIR", REPO / "tests" / "vectors")) / "sm4.json").read_text())


def lengths(rng, count, most=300):
    """Edge lengths around block boundaries, then random ones up to `most`."""
    edges = [0, 1, 15, 16, 17, 31, 32, 33, 64, 255, 256, 257, most]
    return edges + [rng.randrange(most + 1) for _ in range(count - len(edges))]


def flipped(data, rng):
    out = bytearray(data)
    out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def test_gcm(peer):
    rng = random.Random("gcm")
    tags = [12, 13, 14, 15, 16]
    msg_lengths, aad_lengths = lengths(rng, 64), lengths(rng, 64)
    rng.shuffle(aad_lengths)
    for i, iv_len in enumerate(range(1, 65)):
        key, iv = rng.randbytes(16), rng.randbytes(iv_len)
        pt, aad, tag_bytes = rng.randbytes(msg_lengths[i]), rng.randbytes(aad_lengths[i]), tags[i % len(tags)]
        cipher = modes.sm4(key)
        ct, tag = modes.gcm_encrypt(cipher, iv, pt, aad, tag_bytes)
        assert peer("gcm-seal", key, iv, tag_bytes, aad, pt) == [ct, tag], (iv_len, len(pt), len(aad), tag_bytes)
        assert peer("gcm-open", key, iv, aad, ct, tag) == [pt]
        assert modes.gcm_decrypt(cipher, iv, ct, tag, aad) == pt
        assert peer("gcm-open", key, iv, aad, ct, flipped(tag, rng)) == ["fail"]
        if ct:
            assert peer("gcm-open", key, iv, aad, flipped(ct, rng), tag) == ["fail"]
        if aad:
            assert peer("gcm-open", key, iv, flipped(aad, rng), ct, tag) == ["fail"]


@pytest.mark.parametrize("mode", ["gcm", "ccm"])
def test_published_vectors(peer, mode):
    """gmsm on every published vector of sm4.json (RFC 8998's and Wycheproof's):
    the ciphertext and tag, or, for a modified tag, its rejection."""
    for v in sm4_json()[mode]:
        key, iv, aad, pt, ct, tag = (bytes.fromhex(v[k]) for k in ("key", "iv", "aad", "plaintext", "ciphertext",
                                                                      "tag"))
        invalid = v.get("result") == "invalid"
        sealed = peer(f"{mode}-seal", key, iv, len(tag), aad, pt)
        assert sealed[0] == ct and (sealed[1] != tag) == invalid, v["source"]
        assert peer(f"{mode}-open", key, iv, aad, ct, tag) == (["fail"] if invalid else [pt]), v["source"]


def test_published_xts_and_cmac(peer):
    for v in sm4_json()["xts"]:
        key, tweak, pt, ct = (bytes.fromhex(v[k]) for k in ("key", "iv", "plaintext", "ciphertext"))
        assert peer("xts-enc", v["tweak_rule"], key, tweak, pt) == [ct], v["source"]
        assert peer("xts-dec", v["tweak_rule"], key, tweak, ct) == [pt], v["source"]
    for v in sm4_json()["cmac"]:
        key, msg, tag = (bytes.fromhex(v[k]) for k in ("key", "message", "tag"))
        assert peer("cmac", key, len(tag), msg) == [tag], v["source"]


def test_gcm_tag_lengths_gmsm_refuses(peer):
    """Tags under 12 bytes are SP 800-38D's and the reference's, not gmsm's: the
    cross-check covers 12-16 (the reference's shorter tags are prefixes:
    test_modes_reference.py)."""
    for t in (4, 8, 11, 17):
        answer = peer("gcm-seal", bytes(16), bytes(12), t, b"", b"x")
        assert answer[0] == "err" and f"not {t}" in " ".join(answer), answer


def test_ccm(peer):
    rng = random.Random("ccm")
    cases = [(n, t) for n in modes.CCM_NONCE_BYTES for t in modes.CCM_TAG_BYTES]
    msg_lengths, aad_lengths = lengths(rng, len(cases)), lengths(rng, len(cases))
    rng.shuffle(msg_lengths)
    for (nonce_len, tag_bytes), m, a in zip(cases, msg_lengths, aad_lengths):
        key, nonce, pt, aad = rng.randbytes(16), rng.randbytes(nonce_len), rng.randbytes(m), rng.randbytes(a)
        cipher = modes.sm4(key)
        ct, tag = modes.ccm_encrypt(cipher, nonce, pt, aad, tag_bytes)
        assert peer("ccm-seal", key, nonce, tag_bytes, aad, pt) == [ct, tag], (nonce_len, tag_bytes, m, a)
        assert peer("ccm-open", key, nonce, aad, ct, tag) == [pt]
        assert peer("ccm-open", key, nonce, aad, ct, flipped(tag, rng)) == ["fail"]
        if ct:
            assert peer("ccm-open", key, nonce, aad, flipped(ct, rng), tag) == ["fail"]


def test_ccm_six_byte_aad_length(peer):
    """AAD of 2^16 - 2^8 bytes, the first with the 0xfffe form of its length."""
    rng = random.Random("ccm6")
    key, nonce, pt, aad = rng.randbytes(16), rng.randbytes(12), rng.randbytes(40), rng.randbytes(0xff00)
    ct, tag = modes.ccm_encrypt(modes.sm4(key), nonce, pt, aad, 16)
    assert peer("ccm-seal", key, nonce, 16, aad, pt) == [ct, tag]


@pytest.mark.parametrize("rule", sorted(modes.XTS_RULES))
def test_xts(peer, rule):
    rng = random.Random(rule)
    edges = [16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 79, 129, 255, 256, 257, 300]
    for n in edges + [rng.randrange(16, 301) for _ in range(20)]:
        key, tweak, pt = rng.randbytes(32), rng.randbytes(16), rng.randbytes(n)
        k1, k2 = modes.sm4(key[:16]), modes.sm4(key[16:])
        ct = modes.xts_encrypt(k1, k2, tweak, pt, rule)
        assert peer("xts-enc", rule, key, tweak, pt) == [ct], (rule, n)
        assert peer("xts-dec", rule, key, tweak, ct) == [pt], (rule, n)


def test_cmac(peer):
    rng = random.Random("cmac")
    for i, n in enumerate(lengths(rng, 48)):
        key, msg, tag_bytes = rng.randbytes(16), rng.randbytes(n), 16 - i % 16
        assert peer("cmac", key, tag_bytes, msg) == [modes.cmac(modes.sm4(key), msg, tag_bytes)], (n, tag_bytes)


def test_ctr_and_cbc(peer):
    """The published SM4 CTR and CBC vectors, CBC both ways; CTR's counter is
    the whole block, carried past 2^64 and wrapping at 2^128."""
    doc = sm4_json()
    for v in doc["ctr"]:
        key, iv, pt, ct = (bytes.fromhex(v[k]) for k in ("key", "iv", "plaintext", "ciphertext"))
        assert peer("ctr", key, iv, pt) == [ct]
    for v in doc["cbc"]:
        key, iv, pt, ct = (bytes.fromhex(v[k]) for k in ("key", "iv", "plaintext", "ciphertext"))
        assert peer("cbc-enc", key, iv, pt) == [ct] and peer("cbc-dec", key, iv, ct) == [pt]
    key = bytes(range(16))
    e = modes.sm4(key).encrypt
    carry = bytes(8) + b"\xff" * 8
    assert peer("ctr", key, carry, bytes(32)) == [e(carry) + e(bytes(7) + b"\x01" + bytes(8))]
    assert peer("ctr", key, b"\xff" * 16, bytes(32)) == [e(b"\xff" * 16) + e(bytes(16))]


def test_refusals(peer):
    assert peer("xts-enc", "cmac", bytes(32), bytes(16), bytes(16))[0] == "err"
    assert peer("xts-enc", "gb", bytes(32), bytes(16), bytes(15))[0] == "err"
    assert peer("cbc-enc", bytes(16), bytes(16), bytes(17))[0] == "err"
    assert peer("ofb", bytes(16))[:2] == ["err", "unknown"]
    assert peer("ccm-seal", bytes(16), bytes(6), 16, b"", b"")[0] == "err"


def test_bench_mode_reports_a_rate():
    exe = Path(os.environ.get("KC_BUILD_DIR", REPO / "build")).resolve() / "peers" / "gmsm"
    assert exe.exists(), "the peer fixture builds it first"
    for op in ("gcm-seal", "xts-enc-gb", "cmac"):
        out = subprocess.run([str(exe), "bench", op, "0.05"], capture_output=True, text=True, timeout=30,
                             check=True).stdout.split()
        assert out[:3] == [op, "65536", "bytes_per_second"] and float(out[3]) > 0, out
    bad = subprocess.run([str(exe), "bench", "nonsense", "1"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "unknown bench operation" in bad.stderr
