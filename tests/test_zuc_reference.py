"""The Python ZUC reference against the official vectors, its properties, and its
model of the kernel ABI (lanes state layout, init_rounds, keystream_block)."""

import pytest
from hypothesis import given, settings, strategies as st

from gen.kernels import zuc_reference as ref
from gen.specs import zuc
from gen.specs.validate import SpecError


def iv_forms(v):
    return [bytes.fromhex(v[k]) for k in ("iv", "iv25", "iv23") if k in v]


def test_zuc128_keystream_vectors(zuc_vectors):
    for v in zuc_vectors["zuc128_keystream"]:
        key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"])
        words = ref.keystream_words(128, key, iv, len(v["keystream"]))
        assert [f"{w:08x}" for w in words] == v["keystream"]


def test_zuc256_keystream_vectors_in_both_iv_forms(zuc_vectors):
    checked = 0
    for v in zuc_vectors["zuc256_keystream"]:
        key = bytes.fromhex(v["key"])
        for iv in iv_forms(v):
            words = ref.keystream_words(256, key, iv, len(v["keystream"]))
            assert [f"{w:08x}" for w in words] == v["keystream"]
            checked += 1
    assert checked == 3


@pytest.mark.parametrize("tag_bits", [32, 64, 128])
def test_zuc256_mac_vectors(zuc_vectors, tag_bits):
    for v in zuc_vectors["zuc256_mac"]:
        key, iv, msg = bytes.fromhex(v["key"]), bytes.fromhex(v["iv25"]), bytes.fromhex(v["message"])
        assert ref.mac(256, key, iv, msg, v["bits"], tag_bits).hex() == v[f"tag{tag_bits}"]


def test_zuc128_eia3_vectors(zuc_vectors):
    for v in zuc_vectors["zuc128_mac"]:
        key, iv, msg = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"]), bytes.fromhex(v["message"])
        assert ref.mac(128, key, iv, msg, v["bits"], 32).hex() == v["tag32"]


def test_mac_depends_on_the_tag_constants(zuc_vectors):
    """The MAC loads with its own d constants: the first keystream words differ."""
    v = zuc_vectors["zuc256_mac"][0]
    key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv25"])
    firsts = {tag: ref.keystream_words(256, key, iv, 1, tag)[0] for tag in (0, 32, 64, 128)}
    assert len(set(firsts.values())) == 4


def test_keystream_bytes_are_the_words_big_endian(zuc_vectors):
    v = zuc_vectors["zuc256_keystream"][1]
    key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv25"])
    data = bytes(80)
    assert ref.encrypt(256, key, iv, data, 640).hex() == "".join(v["keystream"])


keys128 = st.binary(min_size=16, max_size=16)
keys256 = st.binary(min_size=32, max_size=32)
ivs25 = st.tuples(st.binary(min_size=17, max_size=17),
                  st.lists(st.integers(0, 63), min_size=8, max_size=8)).map(lambda t: t[0] + bytes(t[1]))
variant_key_iv = st.one_of(
    st.tuples(st.just(128), keys128, st.binary(min_size=16, max_size=16)),
    st.tuples(st.just(256), keys256, ivs25))


@settings(max_examples=15, deadline=None)
@given(variant_key_iv, st.binary(min_size=1, max_size=40), st.integers(0, 7))
def test_encrypt_twice_is_identity_and_clears_unused_bits(vki, data, drop):
    variant, key, iv = vki
    bits = 8 * len(data) - drop
    once = ref.encrypt(variant, key, iv, data, bits)
    assert len(once) == len(data)
    assert once[-1] & ((1 << drop) - 1) == 0
    twice = ref.encrypt(variant, key, iv, once, bits)
    mask = (0xFF << drop) & 0xFF
    assert twice[:-1] == data[:-1] and twice[-1] == data[-1] & mask


@settings(max_examples=10, deadline=None)
@given(keys256, st.binary(min_size=17, max_size=17), st.binary(min_size=6, max_size=6))
def test_iv23_and_iv25_forms_give_the_same_keystream(key, head, packed):
    iv23 = head + packed
    iv25 = zuc.expand_iv256(iv23)
    assert ref.keystream_words(256, key, iv23, 3) == ref.keystream_words(256, key, iv25, 3)


@settings(max_examples=8, deadline=None)
@given(variant_key_iv, st.sampled_from([32, 64, 128]), st.integers(1, 100), st.data())
def test_mac_is_affine_in_the_message(vki, tag_bits, bits, data):
    """tag(m) = c ^ XOR of the windows of set bits, so tag(a) ^ tag(b) = tag(a ^ b) ^ tag(0)."""
    variant, key, iv = vki
    if variant == 128:
        tag_bits = 32
    nbytes = (bits + 7) // 8
    a = data.draw(st.binary(min_size=nbytes, max_size=nbytes))
    b = data.draw(st.binary(min_size=nbytes, max_size=nbytes))

    def tag(m):
        return int.from_bytes(ref.mac(variant, key, iv, m, bits, tag_bits), "big")

    assert tag(a) ^ tag(b) == tag(bytes(x ^ y for x, y in zip(a, b))) ^ tag(bytes(nbytes))


def test_mac_ignores_bits_past_the_length():
    key, iv = bytes(range(32)), bytes(25)
    assert ref.mac(256, key, iv, b"\xa0", 3, 64) == ref.mac(256, key, iv, b"\xbf", 3, 64)
    assert ref.mac(256, key, iv, b"\xa0", 3, 64) != ref.mac(256, key, iv, b"\x80", 3, 64)


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([128, 256]), st.integers(1, 4), st.data())
def test_lanes_abi_equals_the_one_stream_keystream(variant, lanes, data):
    tag_bits = data.draw(st.sampled_from([0] + list(zuc.TAG_BITS_128 if variant == 128 else zuc.TAG_BITS_256)))
    keys = [data.draw(keys128 if variant == 128 else keys256) for _ in range(lanes)]
    ivs = [data.draw(st.binary(min_size=16, max_size=16) if variant == 128 else ivs25) for _ in range(lanes)]
    state = ref.lanes_state(variant, keys, ivs, tag_bits)
    assert len(state) == 18 * lanes
    for j, (k, iv) in enumerate(zip(keys, ivs)):
        assert state[j::lanes][:16] == zuc.load_key(variant, k, iv, tag_bits)
        assert state[16 * lanes + j] == state[17 * lanes + j] == 0
    ref.init_rounds(state, lanes)
    blocks = ref.keystream_block(state, lanes) + ref.keystream_block(state, lanes)
    assert len(blocks) == 128 * lanes
    for j, (k, iv) in enumerate(zip(keys, ivs)):
        words = ref.keystream_words(variant, k, iv, 32, tag_bits)
        expect = b"".join(w.to_bytes(4, "big") for w in words)
        got = blocks[64 * j:64 * j + 64] + blocks[64 * (lanes + j):64 * (lanes + j) + 64]
        assert got == expect


def test_lanes_abi_on_a_vector(zuc_vectors):
    """Lane 1 of 2 carries the official ZUC-256 vector: the layout is not transposed."""
    v = zuc_vectors["zuc256_keystream"][1]
    key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv25"])
    state = ref.lanes_state(256, [bytes(32), key], [bytes(25), iv])
    ref.init_rounds(state, 2)
    ks = ref.keystream_block(state, 2)
    assert ks[64:128].hex() == "".join(v["keystream"][:16])
    assert ks[:64].hex() == "".join(zuc_vectors["zuc256_keystream"][0]["keystream"][:16])


def test_reference_errors():
    with pytest.raises(SpecError, match="tag length"):
        ref.mac(256, bytes(32), bytes(25), b"", 0, 0)
    with pytest.raises(SpecError, match="tag length must be one of"):
        ref.mac(128, bytes(16), bytes(16), b"", 0, 64)
    with pytest.raises(ValueError, match="need 2 bytes"):
        ref.encrypt(128, bytes(16), bytes(16), b"\x00", 9)
    with pytest.raises(ValueError, match="need 36 state words"):
        ref.init_rounds([0] * 35, 2)
    with pytest.raises(ValueError, match="2 keys but 1 IVs"):
        ref.lanes_state(128, [bytes(16)] * 2, [bytes(16)])


def test_zuc256_key_loading_places_every_byte_as_ipsec_mb_does():
    """The published vectors use all-zero and all-ones keys, which cannot tell
    a byte permutation in the key loading apart.  Test data from Intel
    ipsec-mb 1.3 (job API, IMB_CIPHER_ZUC_EEA3 / IMB_AUTH_ZUC256_EIA3_BITLEN)
    for a key and IV with distinct bytes."""
    key = bytes(range(32))
    iv = bytes.fromhex("a0a1a2a3a4a5a6a7a8a9aaabacadaeafb00102030405060708")
    words = ref.keystream_words(256, key, iv, 4)
    assert b"".join(w.to_bytes(4, "big") for w in words).hex() == "be52c0fc1b00a01c6c30800f7954542a"
    msg = bytes.fromhex("0123456789abcdef0123")
    assert ref.mac(256, key, iv, msg, 77, 32).hex() == "f36eeec9"
    assert ref.mac(256, key, iv, msg, 77, 128).hex() == "ff0b7b66a952e09cbd168281e39d8a6b"


def test_nea6_encryption_vectors(zuc_vectors):
    """3GPP's ZUC-NEA6 vectors (a 7-bit one among them), and their keys and
    IVs with distinct bytes: any exchange of bytes in the loading changes them."""
    vectors = zuc_vectors["nea6_encrypt"]
    assert len(vectors) == 18 and any(v["bits"] % 8 for v in vectors)
    for v in vectors:
        key, iv, pt = (bytes.fromhex(v[k]) for k in ("key", "iv", "plaintext"))
        assert ref.encrypt(zuc.NEA6, key, iv, pt, v["bits"]).hex() == v["ciphertext"]
    assert any(len(set(bytes.fromhex(v["key"]))) == 32 for v in vectors)


def test_nea6_runs_48_rounds_and_its_own_loading(zuc_vectors):
    """The same key and IV bytes with ZUC-256's 32 rounds, or NEA6's loading
    with 32 rounds, give other keystreams: the vectors pin both."""
    v = zuc_vectors["nea6_encrypt"][1]
    key, iv = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"])
    want = ref.keystream_words(zuc.NEA6, key, iv, 4)
    assert zuc.init_rounds(zuc.NEA6) == 48 == zuc.INIT_ROUNDS + ref.INIT_MORE_ROUNDS
    state = ref.ZucState.loaded(zuc.NEA6, key, iv)
    state.initialise(zuc.INIT_ROUNDS)
    assert state.words(4) != want
    state = ref.ZucState.loaded(zuc.NEA6, key, iv)
    state.initialise(48)
    assert state.words(4) == want
    assert ref.encrypt(zuc.NEA6, key, iv, bytes(16), 128) == b"".join(w.to_bytes(4, "big") for w in want)


def test_nea6_loading_uses_every_key_and_iv_byte_once():
    cells = zuc.load_key(zuc.NEA6, bytes(32), bytes(16))
    assert [c >> 16 & 0x7F for c in cells] == list(zuc.D_NEA6)
    names = [n for row in zuc.KEY_LOADING_NEA6 for n in row if n]
    assert sorted(names) == sorted([f"K{i}" for i in range(32)] + [f"IV{i}" for i in range(16)])
    for i in range(32):
        key = bytes(32 if j == i else 0 for j in range(32))
        assert zuc.load_key(zuc.NEA6, key, bytes(16)) != cells


def test_nea6_errors():
    with pytest.raises(SpecError, match="ZUC-NEA6 IV must be 16 bytes"):
        ref.encrypt(zuc.NEA6, bytes(32), bytes(25), b"", 0)
    with pytest.raises(SpecError, match="ZUC-NEA6 key must be 32 bytes"):
        ref.encrypt(zuc.NEA6, bytes(16), bytes(16), b"", 0)
    with pytest.raises(SpecError, match="one set of constants"):
        ref.keystream_words(zuc.NEA6, bytes(32), bytes(16), 1, tag_bits=32)


def test_nia6_and_nca6_vectors(zuc_vectors):
    """3GPP's NIA6 (17) and NCA6 (20) vectors through the POLYVAL reference:
    tags of 4..16 bytes, empty messages and AAD among them; NCA6 decrypts
    back and refuses a changed tag, AAD or ciphertext."""
    from gen.kernels import zuc_nxa6_reference as nxa6
    nia, nca = zuc_vectors["nia6_mac"], zuc_vectors["nca6"]
    assert (len(nia), len(nca)) == (17, 20)
    for v in nia:
        key, iv, msg, tag = (bytes.fromhex(v[k]) for k in ("key", "iv", "message", "tag"))
        assert nxa6.nia6(key, iv, msg, len(tag)) == tag
        assert iv[0] == 8 * len(tag)
    assert {len(v["tag"]) // 2 for v in nia + nca} >= {4, 16}
    assert any(not v["plaintext"] for v in nca) and any(not v["aad"] for v in nca)
    for v in nca:
        key, iv, aad, pt, ct, tag = (bytes.fromhex(v[k]) for k in ("key", "iv", "aad", "plaintext", "ciphertext", "tag"))
        assert nxa6.nca6_encrypt(key, iv, aad, pt, len(tag)) == (ct, tag)
        assert iv[0] == 8 * len(tag) + 4
        assert nxa6.nca6_decrypt(key, iv, aad, ct, tag) == pt
        assert nxa6.nca6_decrypt(key, iv, aad + b"\x00", ct, tag) is None
        assert nxa6.nca6_decrypt(key, iv, aad, ct, bytes([tag[0] ^ 1]) + tag[1:]) is None
        if ct:
            assert nxa6.nca6_decrypt(key, iv, aad, bytes([ct[0] ^ 0x80]) + ct[1:], tag) is None


def test_polyval_is_rfc_8452s():
    """RFC 8452 Appendix A's POLYVAL example, and dot's identity element x^128."""
    from gen.kernels import zuc_nxa6_reference as nxa6
    h = bytes.fromhex("25629347589242761d31f826ba4b757b")
    blocks = bytes.fromhex("4f4f95668c83dfb6401762bb2d01a262" "d1a24ddd2721d006bbe45f20d3c9f362")
    assert nxa6.polyval(h, blocks) == bytes.fromhex("f7a3b47b846119fae5b7866cf5e5b77e")
    x128 = (1 << 127) | (1 << 126) | (1 << 121) | 1  # x^128 reduced by x^128 + x^127 + x^126 + x^121 + 1
    assert nxa6.polyval(x128.to_bytes(16, "little"), h) == h
    with pytest.raises(SpecError, match="4..16 bytes"):
        nxa6.nia6(bytes(32), bytes(16), b"", 3)
