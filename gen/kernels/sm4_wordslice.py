"""SM4 word-sliced: the comparison strategy (the layout of libgcrypt's and
Linux's AES-NI SM4).

Register w holds 32-bit word w of 4 blocks per 128-bit lane, byte-swapped to
native order so that L's rotations are element rotations.  The S-box is the
decomposition A2·inv(A1·x ^ c1) ^ c2 applied to every byte, L is computed from
its rotations; `groups` independent sets of 4 registers are interleaved to hide
the S-box's latency.
"""

from ..ir import Builder, Index
from ..linalg import AffineMap, byteswap_mask
from ..specs import sm4
from .rotations import linear_layer
from .sm4_constants import decomposition, round_loop_count
from .transpose import transpose


def program(bits, groups=2, decomposition_index=None, rounds_per_iteration=4, keys_per_block=False,
            layer="plan"):
    """`groups` independent sets of 4 registers interleaved; the round loop
    writes `rounds_per_iteration` rounds out (a multiple of 4: every iteration
    starts at slot 0).  keys_per_block: every block with round keys of its own
    (many streams under many keys side by side, multi_key_order), else one
    key for the batch.  layer: L as LAYERS names it, "plan" (fewest
    operations) or "flat" (shortest chain, for a pass bound by its chain)."""
    dec = decomposition(decomposition_index)
    lanes = bits // 128
    blocks = 4 * lanes * groups
    b = Builder(f"wordslice{bits}{'_multi_key' if keys_per_block else ''}", bits, ("rk", "in", "out"))
    bswap = b.const(byteswap_mask(4), "bswap32", "byte order reversal in each 32-bit word")
    b.comment(f"Load {blocks} blocks ({groups} groups), big-endian words to native, transpose 4x4 words.")
    x = []
    for g in range(groups):
        rows = [b.lookup16(b.load("in", (4 * g + k) * bits // 8, "row"), bswap, "rowle") for k in range(4)]
        cols = transpose(b, rows, 32, "tr")
        words = [b.var(f"g{g}x{w}") for w in range(4)]
        for w in range(4):
            b.assign(words[w], cols[w])
        x.append(words)

    if keys_per_block:
        step = groups * bits // 8  # one round's keys: a register of words per group

        def round_key(k, g):
            return b.load("rk", Index((k * groups + g) * bits // 8, (("r", rounds_per_iteration * step),)), "rkv")
    else:
        round_key = broadcast_key(b, rounds_per_iteration)
    rounds(b, x, dec, rounds_per_iteration, LAYERS[layer], round_key)

    b.comment("Output (X35, X34, X33, X32): slots 3, 2, 1, 0; transpose back, native words to big-endian.")
    for g in range(groups):
        rows = transpose(b, [x[g][slot] for slot in (3, 2, 1, 0)], 32, "tro")
        for k in range(4):
            b.store("out", (4 * g + k) * bits // 8, b.lookup16(rows[k], bswap, "outbe"))
    keys = dict(key_form="words_per_block", key_order=multi_key_order(bits, groups)) if keys_per_block \
        else dict(key_form="words")
    return b.finish(batch_blocks=blocks, rounds_per_iteration=rounds_per_iteration, strategy="wordslice", **keys)


def multi_key_order(bits, groups):
    """Which block's key word each 32-bit place of a round's keys holds, in
    the multi-key form: per round, per group, a register of words in which
    element e of 128-bit lane L is word e of the transposed rows, block
    4·lanes·g + lanes·e + L (the load order puts block lanes·k + L in lane L of
    row k)."""
    lanes = bits // 128
    return tuple(4 * lanes * g + lanes * e + lane for g in range(groups) for lane in range(lanes) for e in range(4))


def layer_with_plan(b, x0, s, hint):
    """X0 ^ L(s), L's rotations grouped by rotations.rotation_plan (fewest
    bit rotations: the throughput form); no parts to join (rounds)."""
    return b.xor(x0, linear_layer(b, s, sm4.L_ROTATIONS, f"{hint}l"), f"{hint}x"), None


def layer_flat(b, x0, s, hint):
    """X0 ^ L(s), every rotation taken from s at once: the shortest chain, for
    the one-block form, whose time is its chain.  The six terms are grouped
    (X0 ^ s ^ the byte rotation) ^ (the three bit rotations), two three-input
    XORs side by side; with the next round's other words the two parts join
    that round's S-box input in one three-input XOR (rounds, join), one XOR
    less on the chain than joining X0 ^ L(s) itself."""
    rotated = {r: b.rotl(s, r, 32, f"{hint}r{r}") for r in sm4.L_ROTATIONS}
    bytewise = [r for r in sm4.L_ROTATIONS if r % 8 == 0]
    near = b.xor_all([x0, s] + [rotated[r] for r in bytewise], f"{hint}n")
    far = b.xor_all([rotated[r] for r in sm4.L_ROTATIONS if r not in bytewise], f"{hint}f")
    return b.xor(near, far, f"{hint}x"), (near, far)


LAYERS = {"plan": layer_with_plan, "flat": layer_flat}


def broadcast_key(b, rounds_per_iteration):
    """round_key for one key over every block: round k's word in every lane."""
    return lambda k, g: b.bcast32("rk", Index(4 * k, (("r", 4 * rounds_per_iteration),)), "rkw")


def rounds(b, x, dec, rounds_per_iteration, layer, round_key):
    """The 32 rounds on the groups x (4 word registers each), a loop of
    `rounds_per_iteration` rounds: X0 ^= L(S(X1 ^ X2 ^ X3 ^ rk)), the slots
    renamed mod 4, group g's round key k from round_key(k, g), X0 ^ L by `layer`,
    which returns the new word and, optionally, two parts whose XOR it is: the
    next round in the same loop body then joins those parts to its S-box input
    instead of the word (the word is still kept for the rounds after)."""
    inner = AffineMap(dec.A1, dec.c1)
    outer = AffineMap(dec.A2, dec.c2)
    with b.loop("r", round_loop_count(rounds_per_iteration)):
        parts = {}  # group -> the newest word's parts, within this loop body
        for k in range(rounds_per_iteration):
            b.comment(f"Round {rounds_per_iteration}r+{k}: X{k} ^= L(S(X{k + 1} ^ X{k + 2} ^ X{k + 3} ^ rk)) (slots mod 4).")
            for g, words in enumerate(x):
                key = round_key(k, g)
                word = [words[(k + w) % 4] for w in range(4)]
                newest = list(parts[g]) if parts.get(g) else [word[3]]  # the newest joins last
                t = b.xor_all([b.xor_all([word[1], word[2], key], f"g{g}k")] + newest, f"g{g}t")
                s = b.affine_inv8(b.affine8(t, inner, f"g{g}a", note="A1, c1: S-box inner affine"),
                                  outer, f"g{g}s", note="A2·inv(.) ^ c2: S-box outer affine")
                value, parts[g] = layer(b, word[0], s, f"g{g}")
                b.assign(word[0], value)


ONE_BLOCK_BITS = 128


def one_block_program(decomposition_index=None, rounds_per_iteration=4, layer="flat"):
    """One block in 128-bit registers, for chains whose next block waits on
    this one (CBC encryption, CBC-MAC, CMAC, CCM's MAC) and single-block
    calls: a padded batch would cost a whole batch's time for one block.
    Register w holds word w of the block in every 32-bit lane, so the rounds
    are the word-sliced ones unchanged (every lane computes the same block);
    L as LAYERS names it (sm4.one_block_layer; "flat" by default, since here
    a round's cost is its chain: XOR, affine, affine-inverse, L)."""
    dec = decomposition(decomposition_index)
    b = Builder("wordslice_one_block", ONE_BLOCK_BITS, ("rk", "in", "out"))
    b.comment("Load the block; word w, big-endian to native, into every lane of register w.")
    block = b.load("in", 0, "blk")
    x = [b.var(f"x{w}") for w in range(4)]
    for w, var in enumerate(x):
        spread = b.const(bytes(4 * w + 3 - i for i in range(4)) * 4, f"word{w}_le",
                         f"word {w} to native order, in every 32-bit lane")
        b.assign(var, b.lookup16(block, spread, f"w{w}"))
    rounds(b, [x], dec, rounds_per_iteration, LAYERS[layer], broadcast_key(b, rounds_per_iteration))
    b.comment("Output (X35, X34, X33, X32) = slots 3, 2, 1, 0: lane 0 of each into lanes 0-3, native words to big-endian.")
    high = b.unpacklo(x[3], x[2], 32, "x35x34")
    low = b.unpacklo(x[1], x[0], 32, "x33x32")
    bswap = b.const(byteswap_mask(4), "bswap32", "byte order reversal in each 32-bit word")
    b.store("out", 0, b.lookup16(b.unpacklo(high, low, 64, "out"), bswap, "outbe"))
    return b.finish(batch_blocks=1, key_form="words", rounds_per_iteration=rounds_per_iteration,
                    strategy="wordslice")
