"""GF(2) algebra for the generator, with no cipher in it.

Bit order: an int ``x`` is the vector with component ``i = (x >> i) & 1``
(defined in ``bits``).  Modules: ``bits`` (BitMatrix, AffineMap), ``gf2n``
(fields and isomorphisms), ``sbox_decompose`` (A2·inv(A1·x ⊕ c1) ⊕ c2),
``nibble`` (two 16-entry tables), ``gfni`` (qword layout and instruction
models), ``aesni_form`` (AESENCLAST as inversion), ``fusion`` (composition and
byte blocks of word maps), ``shuffle`` (byte-shuffle masks, index 0x80 the
neutral zero, and the exact pshufb model).
"""

from .aesni_form import AesniForm, aesenclast, aesni_form
from .bits import AffineMap, BitMatrix, bit_reversal, parity
from .fusion import (block_diagonal, byte_blocks, circulant_blocks, fuse, fused_round_linear,
                     matrix_from_byte_blocks, rotl, word_linear_matrix)
from .gf2n import Field, carryless_product, field_isomorphisms, is_irreducible
from .gfni import (GFNI_POLY, IDENTITY_QWORD, gf2p8affineinvqb, gf2p8affineqb, gf2p8mul,
                   gfni_qword, matrix_from_gfni_qword)
from .nibble import affine_from_nibble_tables, nibble_tables
from .sbox_decompose import Decomposition, affine_decompositions, preferred_decomposition
from .shuffle import (ZERO_INDEX, byteswap_mask, check_permutation, compose_masks, inverse_permutation,
                      is_permutation, permutation_mask, pshufb, rotate_words_mask)

__all__ = [
    "AesniForm", "aesenclast", "aesni_form",
    "AffineMap", "BitMatrix", "bit_reversal", "parity",
    "block_diagonal", "byte_blocks", "circulant_blocks", "fuse", "fused_round_linear",
    "matrix_from_byte_blocks", "rotl", "word_linear_matrix",
    "Field", "carryless_product", "field_isomorphisms", "is_irreducible",
    "GFNI_POLY", "IDENTITY_QWORD", "gf2p8affineinvqb", "gf2p8affineqb", "gf2p8mul",
    "gfni_qword", "matrix_from_gfni_qword",
    "affine_from_nibble_tables", "nibble_tables",
    "Decomposition", "affine_decompositions", "preferred_decomposition",
    "ZERO_INDEX", "byteswap_mask", "check_permutation", "compose_masks", "inverse_permutation",
    "is_permutation", "permutation_mask", "pshufb", "rotate_words_mask",
]
