/*
 * ZUC-128, ZUC-256 (2018) and ZUC-NEA6 as the harness sees them.  ZUC is a stream cipher
 * with MACs, driven through its many-streams API, so each tool has its own
 * hook: kcrypt_zuc.c (enc and mac on stdin), verify_zuc.c, bench_zuc.c and
 * ctcheck_zuc.c, which share zuc_lanes.c.
 */
#include "bench.h"
#include "cipher.h"
#include "ctcheck.h"
#include "kcrypt.h"
#include "verify.h"
#include "zuc.h"

extern const kc_cli kc_zuc_cli;
extern const verify_hooks kc_zuc_verify;
extern const bench_hooks kc_zuc_bench;
extern const ct_hooks kc_zuc_ct;

KC_LIBRARY_LOOKUPS(zuc)
static const void *dispatch(int role, int variant, kc_dispatch_why *why) {
  (void)variant;
  return zuc_impl_dispatch((kc_dispatch_role)role, why);
}

static const kc_variant VARIANTS[] = {
    {"zuc128", ZUC_128, 16, 0}, {"zuc256", ZUC_256, 32, 0}, {"zuc_nea6", ZUC_NEA6, 32, 0}};

const kc_desc kc_zuc = {
    .name = "zuc",
    .label = "zuc ",
    .variants = VARIANTS,
    .n_variants = sizeof VARIANTS / sizeof VARIANTS[0],
    .views = views,
    .find = find,
    .best = best,
    .serial = best,
    .dispatch = dispatch,
    .cli = &kc_zuc_cli,
    .verify = &kc_zuc_verify,
    .bench = &kc_zuc_bench,
    .ct = &kc_zuc_ct,
};
