"""The pass list shared by targets whose inversion is AESENCLAST."""

from .. import rules
from . import rules as x86_rules

INVERSION_PASS = (rules.fuse_affine_chain, rules.drop_identity_affine, x86_rules.affine_inv_via_aesenclast)
# Where PBLENDVB exists, a 16-bit double shift is two byte rotations and a blend.
INVERSION_PASS_AVX2 = INVERSION_PASS + (rules.shld_half_by_rotations,)
LOWERING_PASS = (rules.fuse_affine_chain, rules.drop_identity_affine, rules.rotate_bytes_by_shuffle,
                 rules.rotate_by_shifts, rules.shld_by_shifts)
# AVX2 has PBLENDVB for whole-byte selections; SSSE3 does not.
SELECT_AVX2 = (x86_rules.select_by_blendv, rules.select_by_masks)
SELECT_SSSE3 = (rules.select_by_masks,)
NIBBLE_PASS = (rules.affine_via_nibble_tables,)
