/*
 * kcrypt's generated SM4 kernels as a further bulk path of libgcrypt 1.10's
 * cipher/sm4.c (harness/consumers/libgcrypt_rebuild.py copies this file into
 * the libgcrypt tree and includes it from sm4.c, after the SM4 context).
 *
 * libgcrypt's AVX2 entry points take 16 blocks and its own key layout; ours
 * (generated/asm/libgcrypt/x86_64/sm4_wordslice_avx2_*.S, assembled as part
 * of sm4-aesni-avx2-amd64.S) take a whole batch of 64 blocks and the plain
 * round keys, which are libgcrypt's rkey_enc and rkey_dec as they are.  So
 * each bulk function runs its whole batches of 64 here first, through the
 * kernel's fused pass out = E(in) ^ src, and leaves the rest to libgcrypt's
 * own paths.  The fused pass may not read `in` where it writes (src may be
 * out), so the blocks it reads as `in` go through a buffer of our own.
 *
 * Kernels: wordslice_avx2_vaes where the CPU has AVX2 and VAES, else
 * wordslice_avx2_aesni with AVX2 and AES-NI (libgcrypt 1.10 knows no GFNI
 * or AVX-512 feature flags).
 */

#define KCRYPT_BATCH 64 /* blocks a pass of either kernel (SM4_WORDSLICE_AVX2_*_BATCH_BLOCKS) */

extern void _gcry_sm4_wordslice_avx2_vaes_batch_xor(const u32 *rk, const byte *in, byte *out,
                                                    const byte *src) ASM_FUNC_ABI;
extern void _gcry_sm4_wordslice_avx2_aesni_batch_xor(const u32 *rk, const byte *in, byte *out,
                                                     const byte *src) ASM_FUNC_ABI;

typedef void (*kcrypt_batch_xor_fn)(const u32 *rk, const byte *in, byte *out, const byte *src) ASM_FUNC_ABI;

enum { KCRYPT_NONE = 0, KCRYPT_AVX2_AESNI = 1, KCRYPT_AVX2_VAES = 2 };

static unsigned int
kcrypt_select (unsigned int hwf)
{
  if (!(hwf & HWF_INTEL_AVX2))
    return KCRYPT_NONE;
  if (hwf & HWF_INTEL_VAES_VPCLMUL)
    return KCRYPT_AVX2_VAES;
  return (hwf & HWF_INTEL_AESNI) ? KCRYPT_AVX2_AESNI : KCRYPT_NONE;
}

static kcrypt_batch_xor_fn
kcrypt_kernel (unsigned int which)
{
  return which == KCRYPT_AVX2_VAES ? _gcry_sm4_wordslice_avx2_vaes_batch_xor
                                   : _gcry_sm4_wordslice_avx2_aesni_batch_xor;
}

/* CTR: the batch's counter blocks, then out = E(counters) ^ in.  Returns
 * the blocks done (whole batches); ctr is advanced past them. */
static size_t
kcrypt_ctr_enc (unsigned int which, const u32 *rk_enc, byte *out, const byte *in, byte *ctr, size_t nblocks)
{
  byte counters[KCRYPT_BATCH * 16] ATTR_ALIGNED_64;
  kcrypt_batch_xor_fn batch = kcrypt_kernel (which);
  size_t done = 0;
  for (; nblocks - done >= KCRYPT_BATCH; done += KCRYPT_BATCH)
    {
      u64 hi = buf_get_be64 (ctr), lo = buf_get_be64 (ctr + 8);
      for (unsigned int i = 0; i < KCRYPT_BATCH; i++)
        {
          buf_put_be64 (counters + 16 * i, hi);
          buf_put_be64 (counters + 16 * i + 8, lo);
          hi += ++lo == 0;
        }
      buf_put_be64 (ctr, hi);
      buf_put_be64 (ctr + 8, lo);
      batch (rk_enc, counters, out + 16 * done, in + 16 * done);
    }
  return done;
}

/* CBC and CFB decryption, which share their chain c_(i-1) (the IV first):
 * CBC out_i = D(c_i) ^ c_(i-1), CFB out_i = c_i ^ E(c_(i-1)); iv becomes the
 * last ciphertext block done.  Returns the blocks done (whole batches). */
static size_t
kcrypt_chained_dec (unsigned int which, const u32 *rk, byte *out, const byte *in, byte *iv, size_t nblocks,
                    int cfb)
{
  byte chain[KCRYPT_BATCH * 16] ATTR_ALIGNED_64, blocks[KCRYPT_BATCH * 16] ATTR_ALIGNED_64;
  kcrypt_batch_xor_fn batch = kcrypt_kernel (which);
  size_t done = 0;
  for (; nblocks - done >= KCRYPT_BATCH; done += KCRYPT_BATCH)
    {
      const byte *c = in + 16 * done;
      memcpy (chain, iv, 16);
      memcpy (chain + 16, c, sizeof chain - 16);
      memcpy (iv, c + sizeof chain - 16, 16);
      if (cfb)
        batch (rk, chain, out + 16 * done, c); /* src c may be out: each block is read before written */
      else
        {
          memcpy (blocks, c, sizeof blocks);
          batch (rk, blocks, out + 16 * done, chain);
        }
    }
  return done;
}

static size_t
kcrypt_cbc_dec (unsigned int which, const u32 *rk_dec, byte *out, const byte *in, byte *iv, size_t nblocks)
{
  return kcrypt_chained_dec (which, rk_dec, out, in, iv, nblocks, 0);
}

static size_t
kcrypt_cfb_dec (unsigned int which, const u32 *rk_enc, byte *out, const byte *in, byte *iv, size_t nblocks)
{
  return kcrypt_chained_dec (which, rk_enc, out, in, iv, nblocks, 1);
}
