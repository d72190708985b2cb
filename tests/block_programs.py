"""What the byte-sliced block-cipher program tests share: a batch through a
program (params rk, in, out) in both directions against a reference's
one-block encryption."""

import random

from gen.ir import run

BLOCK_BYTES = 16


def check_both_directions(program, encryption_keys, decryption_keys, encrypt_block, seed):
    """The program's batch of random blocks with encryption_keys (its rk bytes)
    equals encrypt_block on each block, and with decryption_keys gives them back."""
    n = program.info["batch_blocks"] * BLOCK_BYTES
    data = random.Random(seed).randbytes(n)
    memory = {"rk": encryption_keys, "in": bytearray(data), "out": bytearray(n)}
    run(program, memory)
    want = b"".join(encrypt_block(data[i:i + BLOCK_BYTES]) for i in range(0, n, BLOCK_BYTES))
    assert bytes(memory["out"]) == want
    back = {"rk": decryption_keys, "in": bytearray(want), "out": bytearray(n)}
    run(program, back)
    assert bytes(back["out"]) == data
