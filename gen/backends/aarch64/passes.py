"""The pass lists AArch64 targets share."""

from .. import rules
from . import rules as aarch64_rules

# SLI for every rotation and double shift that is no byte move; TRN for the
# selections that interleave elements, BSL for the others.
LOWERING_PASS = (rules.fuse_affine_chain, rules.drop_identity_affine, aarch64_rules.bit_reversal_by_rbit,
                 rules.rotate_bytes_by_shuffle,
                 aarch64_rules.rotate_by_shift_insert, aarch64_rules.shld_by_shift_insert,
                 aarch64_rules.select_as_trn, aarch64_rules.select_by_bsl, aarch64_rules.clmul_by_pmull)
INVERSION_PASS = (rules.fuse_affine_chain, rules.drop_identity_affine, aarch64_rules.affine_inv_via_aese)
NIBBLE_PASS = (rules.affine_via_nibble_tables,)
# Last: the nibble tables' masks that USHR on bytes makes unnecessary, the
# byte moves that are a REV, and the XOR of the nibble tables before AESE,
# which its key takes.
BYTE_SHIFT_PASS = (aarch64_rules.mask_after_byte_shift, aarch64_rules.lookup_as_rev, aarch64_rules.aese_takes_xor)
