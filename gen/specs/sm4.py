"""SM4 (GB/T 32907-2016): what the cipher is.

Blocks and keys are 16 bytes read as four big-endian 32-bit words.  The round
function is X[i+4] = X[i] ^ L(tau(X[i+1] ^ X[i+2] ^ X[i+3] ^ rk[i])), where tau
applies the S-box to each byte of a word; the output block is
(X35, X34, X33, X32).  The key schedule runs the same recurrence on
K = MK ^ FK with L' in place of L and CK[i] in place of rk[i].  Decryption is
encryption with the round keys in reverse order.
"""

from .validate import check_bijection, check_rotation

BLOCK_BYTES = 16
KEY_BYTES = 16
ROUNDS = 32
WORD_BITS = 32

SBOX = check_bijection(bytes.fromhex(
    "d690e9fecce13db716b614c228fb2c05"
    "2b679a762abe04c3aa44132649860699"
    "9c4250f491ef987a33540b43edcfac62"
    "e4b31ca9c908e89580df94fa758f3fa6"
    "4707a7fcf37317ba83593c19e6854fa8"
    "686b81b27164da8bf8eb0f4b70569d35"
    "1e240e5e6358d1a225227c3b01217887"
    "d40046579fd327524c3602e7a0c4c89e"
    "eabf8ad240c738b5a3f7f2cef96115a1"
    "e0ae5da49b341a55ad933230f58cb1e3"
    "1df6e22e8266ca60c02923ab0d534e6f"
    "d5db3745defd8e2f03ff6a726d6c5b51"
    "8d1baf92bbddbc7f11d95c411f105ad8"
    "0ac13188a5cd7bbd2d74d012b8e5b4b0"
    "8969974a0c96777e65b9f109c56ec684"
    "18f07dec3adc4d2079ee5f3ed7cb3948"
), 8, "SM4 S-box")

# L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24) on 32-bit words.
L_ROTATIONS = tuple(check_rotation(r, WORD_BITS, "SM4 L") for r in (2, 10, 18, 24))
# L'(B) = B ^ (B <<< 13) ^ (B <<< 23), used by the key schedule.
L_KEY_ROTATIONS = tuple(check_rotation(r, WORD_BITS, "SM4 L'") for r in (13, 23))

FK = (0xA3B1BAC6, 0x56AA3350, 0x677D9197, 0xB27022DC)


def ck(i):
    """Round constant CK[i]: byte j (big-endian) is (4*i + j) * 7 mod 256."""
    return int.from_bytes(bytes(((4 * i + j) * 7) & 0xFF for j in range(4)), "big")


CK = tuple(ck(i) for i in range(ROUNDS))
