"""`kcrypt sm4 gcm|ccm|xts|cmac|cbc-mac` (harness/c/kcrypt_sm4_modes.c), end to end.

* RFC 8998's A.1 (GCM) and A.2 (CCM) vectors through the CLI on every implementation
  this machine runs (native, and emulated with --emulated), both directions; the
  reference kernel, which has no SIMD, refused for gcm and xts with a clear message;
* libgcrypt (loaded through ctypes; an independent SM4-GCM, -CCM, -XTS and -CMAC) as
  the peer on random keys, IV/nonce, AAD and message lengths and every tag length;
  XTS's GB/T 17964 tweak rule against a small oracle here (libgcrypt's SM4 blocks, the
  tweak doubled in GB's bit order), which first reproduces libgcrypt's IEEE XTS;
* inputs either side of kcrypt's 1 MiB pieces (gcm holds the tag back across them);
* tampered ciphertext, AAD and tag: exit status 2, "authentication failed", nothing on
  stdout, an output file (`> out`) left empty, nothing left in $TMPDIR;
* every misuse refused before stdin is read, nothing written.

Environment: KC_BUILD_DIR and KC_GENERATED as for test_kcrypt_cli.py.
"""

import ctypes
import ctypes.util
import random
import shlex
import subprocess

import pytest

from test_kcrypt_cli import assert_clean_error, impl_flags, impls, kcrypt, peak_rss_kib, run, runnable  # noqa: F401

# RFC 8998 appendix A (A.1 SM4-GCM, A.2 SM4-CCM): one key, IV/nonce, AAD and plaintext.
KEY = "0123456789ABCDEFFEDCBA9876543210"
NONCE = "00001234567800000000ABCD"
AAD = "FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2"
PLAIN = bytes.fromhex("AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD"
                      "EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA")
RFC = {
    "gcm": bytes.fromhex("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
                         "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
                         "83de3541e4c2b58177e065a9bf7b62ec"),
    "ccm": bytes.fromhex("48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094"
                         "fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b"
                         "16842d4fa186f56ab33256971fa110f4"),
}
PIECE = 1 << 20  # kcrypt's KC_CHUNK_BYTES


def sm4(exe, args, data=b"", env=None):
    """kcrypt sm4 ARGS < data: the CompletedProcess."""
    return run(exe, ["sm4", *args], data, env)


def ok(exe, args, data=b"", env=None):
    proc = sm4(exe, args, data, env)
    assert proc.returncode == 0 and proc.stderr == b"", (args, proc.stderr.decode())
    return proc.stdout


def aead(mode, direction, key, iv, aad=b"", tag=None):
    """The arguments of `kcrypt sm4 gcm|ccm -e|-d`."""
    return [mode, direction, "-k", key.hex(), "-i", iv.hex(), "-a", aad.hex(),
            *(["--tag-bytes", str(tag)] if tag else [])]


# --------------------------------------------------------------------------
# libgcrypt, the peer
# --------------------------------------------------------------------------

class Gcrypt:
    """libgcrypt's SM4 modes through ctypes (constants: gcrypt.h)."""
    SM4, ECB, CCM, GCM, XTS, CMAC_SM4, SET_CCM_LENGTHS = 318, 1, 8, 9, 13, 212, 69

    def __init__(self):
        path = ctypes.util.find_library("gcrypt")
        assert path, "libgcrypt not found (make deps installs libgcrypt20-dev)"
        self.lib = lib = ctypes.CDLL(path)
        lib.gcry_check_version.restype = ctypes.c_char_p
        assert lib.gcry_check_version(None)
        p, i, n = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        for name, args in {"cipher_open": [p, i, i, ctypes.c_uint], "cipher_setkey": [p, p, n],
                           "cipher_setiv": [p, p, n], "cipher_ctl": [p, i, p, n],
                           "cipher_authenticate": [p, p, n], "cipher_encrypt": [p, p, n, p, n],
                           "cipher_gettag": [p, p, n], "cipher_close": [p],
                           "mac_open": [p, i, ctypes.c_uint, p], "mac_setkey": [p, p, n],
                           "mac_write": [p, p, n], "mac_read": [p, p, p], "mac_close": [p]}.items():
            getattr(lib, "gcry_" + name).argtypes = args

    def _check(self, rc):
        assert rc == 0, f"libgcrypt error {rc:#x}"

    def cipher(self, mode, key, iv, aad, data, tag_len=16):
        """(ciphertext, tag) of one message; tag None for ECB and XTS."""
        hd = ctypes.c_void_p()
        lib = self.lib
        self._check(lib.gcry_cipher_open(ctypes.byref(hd), self.SM4, mode, 0))
        try:
            self._check(lib.gcry_cipher_setkey(hd, key, len(key)))
            if iv is not None:
                self._check(lib.gcry_cipher_setiv(hd, iv, len(iv)))
            if mode == self.CCM:
                lengths = (ctypes.c_uint64 * 3)(len(data), len(aad), tag_len)
                self._check(lib.gcry_cipher_ctl(hd, self.SET_CCM_LENGTHS, lengths, ctypes.sizeof(lengths)))
            if mode in (self.CCM, self.GCM):
                self._check(lib.gcry_cipher_authenticate(hd, aad, len(aad)))
            out = ctypes.create_string_buffer(max(len(data), 1))
            self._check(lib.gcry_cipher_encrypt(hd, out, len(data), data, len(data)))
            if mode not in (self.CCM, self.GCM):
                return out.raw[:len(data)], None
            tag = ctypes.create_string_buffer(16)
            self._check(lib.gcry_cipher_gettag(hd, tag, 16 if mode == self.GCM else tag_len))
            return out.raw[:len(data)], tag.raw[:tag_len]
        finally:
            lib.gcry_cipher_close(hd)

    def cmac(self, key, msg):
        hd, n = ctypes.c_void_p(), ctypes.c_size_t(16)
        self._check(self.lib.gcry_mac_open(ctypes.byref(hd), self.CMAC_SM4, 0, None))
        try:
            self._check(self.lib.gcry_mac_setkey(hd, key, len(key)))
            self._check(self.lib.gcry_mac_write(hd, msg, len(msg)))
            tag = ctypes.create_string_buffer(16)
            self._check(self.lib.gcry_mac_read(hd, tag, ctypes.byref(n)))
            return tag.raw
        finally:
            self.lib.gcry_mac_close(hd)

    def ecb(self, key, data):
        return self.cipher(self.ECB, key, None, b"", data)[0]


@pytest.fixture(scope="module")
def gcry():
    return Gcrypt()


def xts_oracle(gcry, key, tweak, data, rule):
    """XTS encryption of one data unit (IEEE 1619, ciphertext stealing) with libgcrypt's
    SM4 blocks and the tweak doubled by `rule`: IEEE's x·T on the little-endian integer, or
    GB/T 17964's, the same product with each byte's bits taken the other way."""
    flip = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))

    def double(t):
        if rule == "gb":
            return double_ieee(t.translate(flip)).translate(flip)
        return double_ieee(t)

    def double_ieee(t):
        v = int.from_bytes(t, "little") << 1
        return ((v & ((1 << 128) - 1)) ^ (0x87 if v >> 128 else 0)).to_bytes(16, "little")

    def xor(a, b):
        return bytes(x ^ y for x, y in zip(a, b))

    k1, k2 = key[:16], key[16:]
    t = gcry.ecb(k2, tweak)
    full, rest = divmod(len(data), 16)
    out, tweaks = [], []
    for j in range(full):
        tweaks.append(t)
        out.append(xor(gcry.ecb(k1, xor(data[16 * j:16 * j + 16], t)), t))
        t = double(t)
    if rest:  # stealing: the last full block's ciphertext lends its tail
        last = out.pop()
        tail = data[16 * full:]
        padded = tail + last[rest:]
        out += [xor(gcry.ecb(k1, xor(padded, t)), t), last[:rest]]
    return b"".join(out)


# --------------------------------------------------------------------------
# RFC 8998 on every implementation
# --------------------------------------------------------------------------

def test_rfc8998_vectors_on_every_implementation(kcrypt, impls):
    for strategy, target, status in runnable(impls):
        flags = impl_flags(strategy, target, status)
        for mode, want in RFC.items():
            args = [mode, "-k", KEY, "-i", NONCE, "-a", AAD, *flags]
            if mode == "gcm" and strategy == "reference":
                proc = sm4(kcrypt, [args[0], "-e", *args[1:]], PLAIN)
                assert_clean_error(proc, "gcm on the reference")
                assert "SIMD" in proc.stderr.decode()
                continue
            assert ok(kcrypt, [args[0], "-e", *args[1:]], PLAIN) == want, (mode, flags)
            assert ok(kcrypt, [args[0], "-d", *args[1:]], want) == PLAIN, (mode, flags)


def test_round_trips_on_every_implementation(kcrypt, impls, gcry):
    """Every mode both ways on every kernel, lengths around a block; the output equals
    the default kernel's (gcm, xts, cmac: libgcrypt's)."""
    rng = random.Random(8998)
    key, key2, iv = rng.randbytes(16), rng.randbytes(32), rng.randbytes(12)
    data = rng.randbytes(53)
    want_gcm = b"".join(gcry.cipher(Gcrypt.GCM, key, iv, b"ad", data))
    want_xts = gcry.cipher(Gcrypt.XTS, key2, iv + bytes(4), b"", data)[0]
    want_cmac = gcry.cmac(key, data).hex().encode() + b"\n"
    want_ccm = ok(kcrypt, aead("ccm", "-e", key, iv, b"ad"), data)
    want_cbc_mac = ok(kcrypt, ["cbc-mac", "-k", key.hex()], data[:48])
    for strategy, target, status in runnable(impls):
        flags = impl_flags(strategy, target, status)
        if strategy != "reference":
            assert ok(kcrypt, [*aead("gcm", "-e", key, iv, b"ad"), *flags], data) == want_gcm
            assert ok(kcrypt, [*aead("gcm", "-d", key, iv, b"ad"), *flags], want_gcm) == data
            xts = ["xts", "-k", key2.hex(), "-i", (iv + bytes(4)).hex(), *flags]
            assert ok(kcrypt, [*xts, "-e"], data) == want_xts, flags
            assert ok(kcrypt, [*xts, "-d"], want_xts) == data, flags
        assert ok(kcrypt, [*aead("ccm", "-e", key, iv, b"ad"), *flags], data) == want_ccm, flags
        assert ok(kcrypt, [*aead("ccm", "-d", key, iv, b"ad"), *flags], want_ccm) == data, flags
        assert ok(kcrypt, ["cmac", "-k", key.hex(), *flags], data) == want_cmac, flags
        assert ok(kcrypt, ["cbc-mac", "-k", key.hex(), *flags], data[:48]) == want_cbc_mac, flags


def test_xts_on_the_reference_is_refused(kcrypt, impls):
    ref = [i for i in runnable(impls) if i[0] == "reference"]
    assert ref, impls
    proc = sm4(kcrypt, ["xts", "-e", "-k", KEY * 2, "-i", KEY, *impl_flags(*ref[0])], PLAIN)
    assert_clean_error(proc, "xts on the reference")
    assert "SIMD" in proc.stderr.decode()


# --------------------------------------------------------------------------
# Against libgcrypt
# --------------------------------------------------------------------------

LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 64, 255, 4096, 4099]


@pytest.mark.parametrize("tag", [4, 8, 12, 13, 14, 15, 16])
def test_gcm_against_libgcrypt(kcrypt, gcry, tag):
    rng = random.Random(tag)
    for length in LENGTHS:
        key, iv = rng.randbytes(16), rng.randbytes(rng.choice([1, 7, 12, 13, 16, 64]))
        aad, data = rng.randbytes(rng.choice([0, 1, 16, 20, 100])), rng.randbytes(length)
        ct, full_tag = gcry.cipher(Gcrypt.GCM, key, iv, aad, data)
        sealed = ct + full_tag[:tag]
        assert ok(kcrypt, aead("gcm", "-e", key, iv, aad, tag), data) == sealed, (length, len(iv))
        assert ok(kcrypt, aead("gcm", "-d", key, iv, aad, tag), sealed) == data, (length, len(iv))


@pytest.mark.parametrize("tag", [4, 6, 8, 10, 12, 14, 16])
def test_ccm_against_libgcrypt(kcrypt, gcry, tag):
    rng = random.Random(100 + tag)
    for length in LENGTHS:
        nonce = rng.randbytes(rng.randint(7, 13))
        key, aad, data = rng.randbytes(16), rng.randbytes(rng.choice([0, 1, 20, 300])), rng.randbytes(length)
        sealed = b"".join(gcry.cipher(Gcrypt.CCM, key, nonce, aad, data, tag_len=tag))
        assert ok(kcrypt, aead("ccm", "-e", key, nonce, aad, tag), data) == sealed, (length, len(nonce))
        assert ok(kcrypt, aead("ccm", "-d", key, nonce, aad, tag), sealed) == data, (length, len(nonce))


@pytest.mark.parametrize("rule", ["ieee", "gb"])
def test_xts_against_libgcrypt_and_the_oracle(kcrypt, gcry, rule):
    """IEEE: libgcrypt's XTS, and the oracle agrees with it; GB: the oracle."""
    rng = random.Random(rule)
    for length in [16, 17, 31, 32, 33, 47, 48, 100, 4096, 4111]:
        key, tweak, data = rng.randbytes(32), rng.randbytes(16), rng.randbytes(length)
        want = xts_oracle(gcry, key, tweak, data, rule)
        if rule == "ieee":
            assert want == gcry.cipher(Gcrypt.XTS, key, tweak, b"", data)[0], length
        args = ["xts", "-k", key.hex(), "-i", tweak.hex(), "--tweak-rule", rule]
        assert ok(kcrypt, [*args, "-e"], data) == want, length
        assert ok(kcrypt, [*args, "-d"], want) == data, length
    # The rules differ from the second block on (the first uses the encrypted tweak as is).
    args = ["xts", "-e", "-k", KEY * 2, "-i", KEY]
    ieee, gb = (ok(kcrypt, [*args, "--tweak-rule", r], PLAIN) for r in ("ieee", "gb"))
    assert ieee[:16] == gb[:16] and ieee[16:32] != gb[16:32]
    assert ok(kcrypt, args, PLAIN) == ieee  # the default


def test_cmac_and_cbc_mac_against_libgcrypt(kcrypt, gcry):
    rng = random.Random(38)
    for length in LENGTHS:
        key, msg = rng.randbytes(16), rng.randbytes(length)
        tag = gcry.cmac(key, msg)
        for n in (1, 4, 8, 15, 16):
            assert ok(kcrypt, ["cmac", "-k", key.hex(), "--tag-bytes", str(n)], msg) == \
                tag[:n].hex().encode() + b"\n", (length, n)
        if length % 16 == 0 and length:
            chain = bytes(16)
            for j in range(0, length, 16):  # CBC with a zero IV: its last block
                chain = gcry.ecb(key, bytes(a ^ b for a, b in zip(chain, msg[j:j + 16])))
            assert ok(kcrypt, ["cbc-mac", "-k", key.hex()], msg) == chain.hex().encode() + b"\n"
    assert ok(kcrypt, ["cmac", "-k", KEY], b"") == ok(kcrypt, ["cmac", "-k", KEY, "--tag-bytes", "16"], b"")


# --------------------------------------------------------------------------
# Across kcrypt's pieces
# --------------------------------------------------------------------------

@pytest.mark.parametrize("length", [PIECE - 16, PIECE - 1, PIECE, PIECE + 1, PIECE + 15, 2 * PIECE + 7])
def test_across_pieces(kcrypt, gcry, length):
    """gcm holds the tag back across pieces: a tag split between two, or a last piece
    that is only (part of) the tag; ccm and xts gather the pieces; cmac streams."""
    rng = random.Random(length)
    key, iv, aad, data = rng.randbytes(16), rng.randbytes(12), rng.randbytes(5), rng.randbytes(length)
    for tag in (16, 4):
        sealed = b"".join(gcry.cipher(Gcrypt.GCM, key, iv, aad, data))
        sealed = sealed[:length + tag]
        assert ok(kcrypt, aead("gcm", "-e", key, iv, aad, tag), data) == sealed
        assert ok(kcrypt, aead("gcm", "-d", key, iv, aad, tag), sealed) == data
    sealed = b"".join(gcry.cipher(Gcrypt.CCM, key, iv, aad, data))
    assert ok(kcrypt, aead("ccm", "-e", key, iv, aad), data) == sealed
    assert ok(kcrypt, aead("ccm", "-d", key, iv, aad), sealed) == data
    key2 = rng.randbytes(32)
    want = gcry.cipher(Gcrypt.XTS, key2, iv + bytes(4), b"", data)[0]
    assert ok(kcrypt, ["xts", "-e", "-k", key2.hex(), "-i", (iv + bytes(4)).hex()], data) == want
    assert ok(kcrypt, ["cmac", "-k", key.hex()], data) == gcry.cmac(key, data).hex().encode() + b"\n"


@pytest.mark.parametrize("stage", ["gcm -e", "gcm -d", "cmac"])
def test_memory_stays_flat(kcrypt, stage, tmp_path):
    """96 MiB through a pipe (gcm -d: what gcm -e made of it): the largest resident size
    of the kcrypt measured, as /usr/bin/time -v reports it, is within 8 MiB of its
    size on 1 MiB (the program's own pages, more under the sanitizers, are in both)."""
    enc = shlex.join([str(kcrypt), "sm4", *aead("gcm", "-e", bytes(16), bytes(12))])
    args = {"gcm -e": aead("gcm", "-e", bytes(16), bytes(12)),
            "gcm -d": aead("gcm", "-d", bytes(16), bytes(12)), "cmac": ["cmac", "-k", KEY]}[stage]
    before = enc + " | " if stage == "gcm -d" else ""
    env = {"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    small, _ = peak_rss_kib([str(kcrypt), "sm4", *args], PIECE, tmp_path, before, "| sha256sum", env)
    rss, digest = peak_rss_kib([str(kcrypt), "sm4", *args], 96 * PIECE, tmp_path, before, "| sha256sum", env)
    assert rss - small < 8 * 1024, f"max RSS {rss} KiB on 96 MiB, {small} KiB on 1 MiB"
    if stage == "gcm -d":  # the plaintext: 96 MiB of zeros
        zeros = subprocess.run(f"head -c {96 * PIECE} /dev/zero | sha256sum", shell=True, capture_output=True,
                               text=True).stdout
        assert digest == zeros


# --------------------------------------------------------------------------
# Tampering
# --------------------------------------------------------------------------

def tampered(sealed, aad):
    """(what, input, AAD): one bit flipped in the ciphertext's first and last byte, the
    AAD, the tag; the tag cut short; the AAD dropped."""
    def flip(b, i):
        return b[:i] + bytes([b[i] ^ 1]) + b[i + 1:]
    return [("first ciphertext byte", flip(sealed, 0), aad),
            ("last ciphertext byte", flip(sealed, len(sealed) - 17), aad),
            ("aad", sealed, flip(aad, len(aad) - 1)), ("no aad", sealed, b""),
            ("tag", flip(sealed, len(sealed) - 1), aad), ("short", sealed[:-1], aad)]


@pytest.mark.parametrize("mode", ["gcm", "ccm"])
@pytest.mark.parametrize("length", [64, 3 * PIECE + 5])
def test_tampering_is_rejected_with_nothing_written(kcrypt, mode, length, tmp_path):
    rng = random.Random(length)
    key, iv, aad, data = rng.randbytes(16), rng.randbytes(12), rng.randbytes(20), rng.randbytes(length)
    sealed = ok(kcrypt, aead(mode, "-e", key, iv, aad), data)
    temp = tmp_path / "tmp"
    temp.mkdir()
    for what, bad, bad_aad in tampered(sealed, aad):
        out = tmp_path / "out"
        with open(tmp_path / "in", "wb") as f:
            f.write(bad)
        cmd = "exec " + shlex.join([str(kcrypt), "sm4", *aead(mode, "-d", key, iv, bad_aad)])
        proc = subprocess.run(f'{cmd} < "{tmp_path / "in"}" > "{out}"', shell=True, capture_output=True,
                              env={"TMPDIR": str(temp), "PATH": "/usr/bin:/bin"}, timeout=120)
        assert proc.returncode == 2, (what, proc.stderr.decode())
        assert proc.stderr.decode() == "kcrypt: error: authentication failed: the tag does not verify " \
            f"(wrong key, {'IV' if mode == 'gcm' else 'nonce'}, AAD or tag length, or altered input); " \
            "no plaintext was written\n", what
        assert out.stat().st_size == 0, what
        assert list(temp.iterdir()) == [], what
        piped = sm4(kcrypt, aead(mode, "-d", key, iv, bad_aad), bad)
        assert piped.returncode == 2 and piped.stdout == b"", what
    assert ok(kcrypt, aead(mode, "-d", key, iv, aad), sealed, {"TMPDIR": str(temp)}) == data
    assert list(temp.iterdir()) == []


def test_wrong_key_iv_or_tag_length_is_rejected(kcrypt):
    sealed = RFC["gcm"]
    for args in (["-k", "FF" + KEY[2:], "-i", NONCE, "-a", AAD], ["-k", KEY, "-i", NONCE + "00", "-a", AAD],
                 ["-k", KEY, "-i", NONCE, "-a", AAD, "--tag-bytes", "12"]):
        proc = sm4(kcrypt, ["gcm", "-d", *args], sealed)
        assert proc.returncode == 2 and proc.stdout == b"", args
        assert "authentication failed" in proc.stderr.decode(), args


def test_aad_file(kcrypt, tmp_path):
    (tmp_path / "aad").write_bytes(bytes.fromhex(AAD))
    for mode, want in RFC.items():
        args = [mode, "-k", KEY, "-i", NONCE, "--aad-file", str(tmp_path / "aad")]
        assert ok(kcrypt, [args[0], "-e", *args[1:]], PLAIN) == want
        assert ok(kcrypt, [args[0], "-d", *args[1:]], want) == PLAIN


def test_gcm_decryption_with_stdout_closed(kcrypt):
    """The temporary file keeps clear of fd 1 when stdout is closed: the write fails."""
    proc = subprocess.run(f'exec "{kcrypt}" sm4 gcm -d -k {KEY} -i {NONCE} -a {AAD} >&-', shell=True,
                          input=RFC["gcm"], capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.decode() == "kcrypt: error: writing stdout: Bad file descriptor\n"


# --------------------------------------------------------------------------
# Misuse
# --------------------------------------------------------------------------

K, K32, N12, T16 = KEY, KEY * 2, NONCE, "00" * 16
ERRORS = {
    # name: (arguments after "sm4", stdin, a piece of the message)
    "gcm no direction": (["gcm", "-k", K, "-i", N12], PLAIN, "missing -e"),
    "gcm no iv": (["gcm", "-e", "-k", K], PLAIN, "sm4 gcm needs an IV"),
    "gcm empty iv": (["gcm", "-e", "-k", K, "-i", ""], PLAIN, "got 0 bytes"),
    "gcm iv odd hex": (["gcm", "-e", "-k", K, "-i", "abc"], PLAIN, "bad sm4 gcm -i hex"),
    "gcm no key": (["gcm", "-e", "-i", N12], PLAIN, "missing key"),
    "gcm key 15 bytes": (["gcm", "-e", "-k", K[:30], "-i", N12], PLAIN, "sm4 key must be 16 bytes"),
    "gcm tag 5": (["gcm", "-e", "-k", K, "-i", N12, "--tag-bytes", "5"], PLAIN, "4, 8 or 12 to 16, got '5'"),
    "gcm tag 17": (["gcm", "-e", "-k", K, "-i", N12, "--tag-bytes", "17"], PLAIN, "got '17'"),
    "gcm tag 0": (["gcm", "-e", "-k", K, "-i", N12, "--tag-bytes", "0"], PLAIN, "got '0'"),
    "gcm tag word": (["gcm", "-d", "-k", K, "-i", N12, "--tag-bytes", "x"], PLAIN, "got 'x'"),
    "gcm aad odd hex": (["gcm", "-e", "-k", K, "-i", N12, "-a", "f"], PLAIN, "bad sm4 gcm -a hex"),
    "gcm both aads": (["gcm", "-e", "-k", K, "-i", N12, "-a", "", "--aad-file", "/dev/null"], PLAIN,
                      "only one of -a and --aad-file"),
    "gcm missing aad file": (["gcm", "-e", "-k", K, "-i", N12, "--aad-file", "/nonexistent"], PLAIN,
                             "cannot read --aad-file '/nonexistent'"),
    "gcm tweak rule": (["gcm", "-e", "-k", K, "-i", N12, "--tweak-rule", "gb"], PLAIN,
                       "sm4 gcm takes no --tweak-rule"),
    "gcm -d short input": (["gcm", "-d", "-k", K, "-i", N12], bytes(15), "shorter than its 16-byte tag"),
    "gcm -d no tmpdir": (["gcm", "-d", "-k", K, "-i", N12], RFC["gcm"], "temporary file in /nonexistent"),
    "ccm nonce 6": (["ccm", "-e", "-k", K, "-i", N12[:12]], PLAIN, "7 to 13 bytes), got 6 bytes"),
    "ccm nonce 14": (["ccm", "-e", "-k", K, "-i", N12 + "0000"], PLAIN, "got 14 bytes"),
    "ccm no nonce": (["ccm", "-d", "-k", K], PLAIN, "sm4 ccm needs a nonce"),
    "ccm odd tag": (["ccm", "-e", "-k", K, "-i", N12, "--tag-bytes", "7"], PLAIN, "even number"),
    "ccm tag 2": (["ccm", "-e", "-k", K, "-i", N12, "--tag-bytes", "2"], PLAIN, "got '2'"),
    "ccm -d short input": (["ccm", "-d", "-k", K, "-i", N12, "--tag-bytes", "8"], bytes(7),
                           "shorter than its 8-byte tag"),
    "ccm message too long for nonce 13": (["ccm", "-e", "-k", K, "-i", N12 + "00"], bytes(65536),
                                          "at most 65535 bytes"),
    "xts key 16 bytes": (["xts", "-e", "-k", K, "-i", T16], PLAIN, "must be 32 bytes"),
    "xts no key": (["xts", "-e", "-i", T16], PLAIN, "64 hex digits for sm4 xts key"),
    "xts no tweak": (["xts", "-e", "-k", K32], PLAIN, "sm4 xts needs a tweak"),
    "xts tweak 12": (["xts", "-d", "-k", K32, "-i", N12], PLAIN, "16 bytes), got 12 bytes"),
    "xts with aad": (["xts", "-e", "-k", K32, "-i", T16, "-a", AAD], PLAIN, "sm4 xts takes no -a"),
    "xts with tag bytes": (["xts", "-e", "-k", K32, "-i", T16, "--tag-bytes", "16"], PLAIN,
                           "takes no --tag-bytes"),
    "xts bad rule": (["xts", "-e", "-k", K32, "-i", T16, "--tweak-rule", "le"], PLAIN,
                     "--tweak-rule must be ieee or gb, got 'le'"),
    "xts 15 bytes": (["xts", "-e", "-k", K32, "-i", T16], bytes(15), "at least 16 bytes; the input is 15"),
    "xts empty": (["xts", "-d", "-k", K32, "-i", T16], b"", "the input is 0"),
    "cmac with -e": (["cmac", "-e", "-k", K], PLAIN, "sm4 cmac takes no -e/-d"),
    "cmac with iv": (["cmac", "-k", K, "-i", N12], PLAIN, "sm4 cmac takes no IV"),
    "cmac tag 0": (["cmac", "-k", K, "--tag-bytes", "0"], PLAIN, "1 to 16, got '0'"),
    "cmac tag 17": (["cmac", "-k", K, "--tag-bytes", "17"], PLAIN, "got '17'"),
    "cmac with aad": (["cmac", "-k", K, "--aad-file", "/dev/null"], PLAIN, "takes no --aad-file"),
    "cbc-mac with -d": (["cbc-mac", "-d", "-k", K], PLAIN, "sm4 cbc-mac takes no -e/-d"),
    "cbc-mac partial block": (["cbc-mac", "-k", K], bytes(17), "whole 16-byte blocks; the input is 17"),
    "cbc-mac empty": (["cbc-mac", "-k", K], b"", "whole 16-byte blocks; the input is 0"),
    "cbc-mac tag bytes": (["cbc-mac", "-k", K, "--tag-bytes", "8"], PLAIN, "takes no --tag-bytes"),
    "ctr with aad": (["ctr", "-e", "-k", K, "-i", T16, "-a", AAD], PLAIN, "sm4 ctr takes no -a"),
    "ecb with tag bytes": (["ecb", "-e", "-k", K, "--tag-bytes", "4"], PLAIN, "takes no --tag-bytes"),
    "unknown mode": (["ocb", "-e", "-k", K], PLAIN, "known: ecb, cbc, ctr, gcm, ccm, xts, cmac, cbc-mac"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(kcrypt, name):
    args, data, piece = ERRORS[name]
    proc = sm4(kcrypt, args, data, {"TMPDIR": "/nonexistent"} if "tmpdir" in name else None)
    assert_clean_error(proc, name)
    assert proc.returncode == 2, name
    message = proc.stderr.decode()
    assert message.startswith("kcrypt: error: ") and piece in message, (name, message)


def test_other_ciphers_refuse_the_new_options(kcrypt):
    for args in (["zuc128", "enc", "-k", K, "-i", K, "-a", AAD],
                 ["ublock128_128", "ctr", "-e", "-k", K, "-i", K, "--tweak-rule", "gb"]):
        proc = run(kcrypt, args, PLAIN)
        assert_clean_error(proc, args[0])
        assert "takes no" in proc.stderr.decode()


def test_help_names_the_modes(kcrypt):
    text = run(kcrypt, ["--help"]).stdout.decode()
    assert "sm4 ecb|cbc|ctr|gcm|ccm|xts|cmac|cbc-mac" in text
    for option in ("--aad-file", "--tag-bytes", "--tweak-rule", "authentication failed"):
        assert option in text, option
