/*
 * bench's cells of SM4's GF(2^128) modes (bench_sm4_modes.c): GCM, XTS and
 * CMAC per kernel (bench_hooks.add_kernel) and libgcrypt's (add_peers).
 */
#ifndef KC_BENCH_SM4_MODES_H
#define KC_BENCH_SM4_MODES_H

#include "bench.h"

/* The modes' names for --mode, after the block modes. */
#define SM4_MODES_OP_NAMES "gcm-enc,gcm-dec,xts-enc,xts-dec,cmac"

int sm4_modes_add_kernel(bench_set *set, const bench_select *sel, const bench_block_io *io,
                         const kc_impl_view *v);
int sm4_modes_add_peers(bench_set *set, const bench_select *sel, const bench_block_io *io);

#endif /* KC_BENCH_SM4_MODES_H */
