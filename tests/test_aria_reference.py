"""ARIA's Python reference (gen/kernels/aria_reference.py) against RFC 5794:
its three known answers and the intermediate values of its Appendix A.1, the
S-box tables of its section 2.4.2 (published tables, compared here only: the
reference derives its own from the spec's field maps), and the constants of
1/pi.  ARIA joins the library and the harness in a later step; its vectors
move to tests/vectors/aria.json then."""

import pytest

from gen.kernels import aria_reference as ref
from gen.specs import aria
from gen.specs.validate import SpecError

RFC_PLAINTEXT = "00112233445566778899aabbccddeeff"
# RFC 5794 Appendix A.1-A.3: key, ciphertext.
RFC_VECTORS = (
    ("000102030405060708090a0b0c0d0e0f", "d718fbd6ab644c739da95f3be6451778"),
    ("000102030405060708090a0b0c0d0e0f1011121314151617", "26449c1805dbe7aa25a468ce263a9e79"),
    ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "f92bd7c79fb72e2f2b8f80c1972d24fc"),
)
# RFC 5794 section 2.4.2, SB1..SB4, rows of 16 bytes run together.
RFC_SBOXES = (
    bytes.fromhex(
        "637c777bf26b6fc53001672bfed7ab76ca82c97dfa5947f0add4a2af9ca472c0"
        "b7fd9326363ff7cc34a5e5f171d8311504c723c31896059a071280e2eb27b275"
        "09832c1a1b6e5aa0523bd6b329e32f8453d100ed20fcb15b6acbbe394a4c58cf"
        "d0efaafb434d338545f9027f503c9fa851a3408f929d38f5bcb6da2110fff3d2"
        "cd0c13ec5f974417c4a77e3d645d197360814fdc222a908846eeb814de5e0bdb"
        "e0323a0a4906245cc2d3ac629195e479e7c8376d8dd54ea96c56f4ea657aae08"
        "ba78252e1ca6b4c6e8dd741f4bbd8b8a703eb5664803f60e613557b986c11d9e"
        "e1f8981169d98e949b1e87e9ce5528df8ca1890dbfe6426841992d0fb054bb16"
    ),
    bytes.fromhex(
        "e24e54fc94c24acc620d6a463c4d8bd15efa64cbb497be2bbc772e03d31959c1"
        "1d06416b55f09969ea9c18ae63dfe7bb007366fb964c85e43a0945aa0fee10eb"
        "2d7ff429accfad918d78c895f92fcecd087a88385c832a2847dbb8c793a41253"
        "ff870e3136215848018e377432cae9b1b7ab0cd7c4564226079860d9b6b91140"
        "ec208cbda0c984044923f14f501f13dcd8c09e57e3c37b653b028f3ee82592e5"
        "15ddfd17a9bfd49a7ec53967fe769d43a7e1d0f568f21b347005a38ad57986a8"
        "30c6514b1ea627f635d26e2416825fdae675a2ef2cb21c9f5d6f800a72449b6c"
        "900b5b337d5a52f361a1f7b0d63f7c6ded14e0a53d22b3f889de711aafbab581"
    ),
    bytes.fromhex(
        "52096ad53036a538bf40a39e81f3d7fb7ce339829b2fff87348e4344c4dee9cb"
        "547b9432a6c2233dee4c950b42fac34e082ea16628d924b2765ba2496d8bd125"
        "72f8f66486689816d4a45ccc5d65b6926c704850fdedb9da5e154657a78d9d84"
        "90d8ab008cbcd30af7e45805b8b34506d02c1e8fca3f0f02c1afbd0301138a6b"
        "3a9111414f67dcea97f2cfcef0b4e67396ac7422e7ad3585e2f937e81c75df6e"
        "47f11a711d29c5896fb7620eaa18be1bfc563e4bc6d279209adbc0fe78cd5af4"
        "1fdda8338807c731b11210592780ec5f60517fa919b54a0d2de57a9f93c99cef"
        "a0e03b4dae2af5b0c8ebbb3c83539961172b047eba77d626e169146355210c7d"
    ),
    bytes.fromhex(
        "3068991b87b921785039dbe17209623c3e7e5e8ef1a0cca32a1dfbb6d620c48d"
        "8165f589cb9d77c657435617d4401a4dc0636ce3b7c8646a53aa38980cf49bed"
        "7f2276afdd3a0b58678806c3350d018b8cc2e65f02247593661ee5e254d810ce"
        "7ae8082c129732abb4270a23dfefcad9b8fadc316bd1ad1949bd5196eee4a841"
        "daffcd558636be6152f8bb0e8248699ae0479e5c044b34157926a7de29ae92d7"
        "84e9d2ba5df3c5b0bfa43b7144462bfceb6fd5f614fe7c705a7dfd2f188316a5"
        "911f059574a9c15b4a856d13074f4e45b20fc91ca6bcec73907bcf598fa1f92d"
        "f2b10094379fd02e9c6e283f80f03dd3258ab5e742b3c7eaf74c113303a2ac60"
    ),
)


@pytest.mark.parametrize("key, ciphertext", RFC_VECTORS)
def test_rfc_5794_vectors(key, ciphertext):
    key, pt = bytes.fromhex(key), bytes.fromhex(RFC_PLAINTEXT)
    assert ref.encrypt_block(key, pt).hex() == ciphertext
    assert ref.decrypt_block(key, bytes.fromhex(ciphertext)) == pt


def test_rfc_5794_intermediate_values():
    """Appendix A.1's key schedule and first rounds (128-bit key)."""
    key = bytes.fromhex(RFC_VECTORS[0][0])
    ek = ref.encryption_keys(key)
    assert len(ek) == 13
    assert ek[0].hex() == "d415a75c794b85c5e0d2a0b3cb793bf6"
    assert ek[12].hex() == "0f0aa16daee61bd7dfee5a599970fb35"
    p1 = ref.fo(bytes.fromhex(RFC_PLAINTEXT), ek[0])
    assert p1.hex() == "7fc7f12befd0a0791de87fa96b469f52"


def test_sboxes_are_the_published_tables():
    assert tuple(bytes(t) for t in ref.sboxes()) == RFC_SBOXES


def test_constants_are_one_over_pi():
    """C1..C3 (RFC 5794 section 2.2) from 1/pi's fraction, and the order for each key."""
    c = (0x517CC1B727220A94FE13ABE8FA9A6EE0, 0x6DB14ACC9E21C820FF28B1D5EF5DE2B0, 0xDB92371D2126E9700324977504E8C90E)
    assert aria.constants() == c
    assert aria.key_constants(16) == c and aria.key_constants(24) == c[1:] + c[:1]
    assert aria.key_constants(32) == c[2:] + c[:2]
    assert aria.one_over_pi_fraction(8) == 0x51  # 1/pi = 0.318309886... = 0x0.517cc1b7...


def test_diffusion_is_an_involution_of_seven_bytes_a_row():
    assert all(len(set(row)) == 7 for row in aria.DIFFUSION)
    block = bytes(range(1, 17))
    assert ref.diffuse(ref.diffuse(block)) == block
    for i in range(16):
        unit = bytes(16 if j == i else 0 for j in range(16))
        assert sum(b != 0 for b in ref.diffuse(unit)) == 7


def test_substitution_layers_undo_each_other():
    block = bytes(range(0, 256, 16))
    assert ref.substitute(ref.substitute(block, aria.SL1), aria.SL2) == block


def test_errors():
    with pytest.raises(SpecError, match="ARIA key"):
        ref.encrypt_block(bytes(20), bytes(16))
    with pytest.raises(SpecError, match="ARIA block"):
        ref.encrypt_block(bytes(16), bytes(15))
    with pytest.raises(SpecError, match="ARIA key"):
        aria.key_constants(17)
