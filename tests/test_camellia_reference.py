"""Camellia's Python reference (gen/kernels/camellia_reference.py) against
RFC 3713 (and the Camellia specification v2.0 it cites): its three known
answers, SBOX1 of its section 2.4.1 (a published table, compared here only: the
reference derives s1 from f, h and the tower-field inversion), the relations
of SBOX2..4 to it, and Sigma1..Sigma6.  Camellia joins the library and the
harness in a later step; its vectors move to tests/vectors/camellia.json then."""

import pytest

from gen.kernels import camellia_reference as ref
from gen.specs import camellia
from gen.specs.validate import SpecError

RFC_PLAINTEXT = "0123456789abcdeffedcba9876543210"
# RFC 3713 Appendix A: key, ciphertext.
RFC_VECTORS = (
    ("0123456789abcdeffedcba9876543210", "67673138549669730857065648eabe43"),
    ("0123456789abcdeffedcba98765432100011223344556677", "b4993401b3e996f84ee5cee7d79b09b9"),
    ("0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff", "9acc237dff16d76c20ef7c919e3a7509"),
)
# RFC 3713 section 2.4.1, SBOX1 (printed there in decimal).
RFC_SBOX1 = bytes.fromhex(
    "70822cecb327c0e5e4855735ea0cae4123ef6b934519a521ed0e4f4e1d6592bd"
    "86b8af8f7ceb1fce3e30dc5f5ec50b1aa6e139cad5475d3dd9015ad651566c4d"
    "8b0d9a66fbccb02d74122b20f0b18499df4ccbc2347e76056db7a931d11704d7"
    "14583a61de1b111c320f9c165318f222fe44cfb2c3b57a912408e8a860fc6950"
    "aad0a07da1896297545b1e95e0ff64d210c40048a3f775db8a03e6da093fdd94"
    "875c8302cd4a90337367f6f39d7fbfe2529bd826c837c63b81966f4b13be632e"
    "e979a78c9f6ebc8e29f5f9b62ffdb4597898066ae74671bad425ab4288a28dfa"
    "7207b955f8eeac0a36492a683c38f1a44028d37bbbc943c115e3adf477c7809e"
)
# RFC 3713 section 2.2: Sigma1..Sigma6.
RFC_SIGMA = (0xA09E667F3BCC908B, 0xB67AE8584CAA73B2, 0xC6EF372FE94F82BE, 0x54FF53A5F1D36F1C,
             0x10E527FADE682D1D, 0xB05688C2B3E6C1FD)


@pytest.mark.parametrize("key, ciphertext", RFC_VECTORS)
def test_rfc_3713_vectors(key, ciphertext):
    key, pt = bytes.fromhex(key), bytes.fromhex(RFC_PLAINTEXT)
    assert ref.encrypt_block(key, pt).hex() == ciphertext
    assert ref.decrypt_block(key, bytes.fromhex(ciphertext)) == pt


def test_s1_is_the_published_sbox1():
    assert bytes(ref.s1_table()) == RFC_SBOX1


def test_other_sboxes_are_rotations_of_s1():
    """RFC 3713 section 2.4.1: SBOX2[x] = SBOX1[x] <<< 1, SBOX3[x] = SBOX1[x] <<< 7,
    SBOX4[x] = SBOX1[x <<< 1]."""
    def rotl8(v, r):
        return (v << r | v >> (8 - r)) & 0xFF
    for x in range(256):
        assert ref.sbox(2, x) == rotl8(RFC_SBOX1[x], 1)
        assert ref.sbox(3, x) == rotl8(RFC_SBOX1[x], 7)
        assert ref.sbox(4, x) == RFC_SBOX1[rotl8(x, 1)]


def test_sigmas_are_square_roots_of_primes():
    assert tuple(camellia.sigma(i) for i in range(1, 7)) == RFC_SIGMA


def test_tower_basis_spans_the_field():
    basis = ref.tower_basis()
    assert basis[0] == 1 and basis[4] == 0b10   # 1 and b
    spans = {0}
    for v in basis:
        spans |= {s ^ v for s in spans}
    assert len(spans) == 256


def test_fl_inverts():
    for x, k in ((0x0123456789ABCDEF, 0xFEDCBA9876543210), (2**64 - 1, 0), (0, 2**64 - 1)):
        assert ref.fl_inverse(ref.fl(x, k), k) == x


def test_errors():
    with pytest.raises(SpecError, match="Camellia key"):
        ref.encrypt_block(bytes(20), bytes(16))
    with pytest.raises(SpecError, match="Camellia block"):
        ref.encrypt_block(bytes(16), bytes(17))
    with pytest.raises(SpecError, match="Sigma7"):
        camellia.sigma(7)
