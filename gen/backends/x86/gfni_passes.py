"""The pass list shared by targets with GFNI: every affine map, with or
without the inversion before it, is one GF2P8AFFINE(INV)QB."""

from .. import rules

FUSION_PASS = (rules.fuse_affine_after_inverse, rules.fuse_affine_chain, rules.drop_identity_affine,
               rules.rotate_bytes_as_affine)
