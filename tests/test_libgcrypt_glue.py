"""harness/consumers/libgcrypt/sm4-kcrypt.c, the glue that libgcrypt_rebuild.py
puts into libgcrypt 1.10's SM4, run without libgcrypt: the glue and
generated/asm/libgcrypt/x86_64's two kernels it calls, built with stand-ins
for the few libgcrypt macros and helpers they use, against the library's own
SM4 CTR, CBC and CFB (CFB from its ECB) on random keys, lengths and offsets,
in place too.  The whole libgcrypt build, its make check and bench-slope are
`make libgcrypt-check` (not in CI: about 15 minutes)."""

import platform
import subprocess

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 assembly")

# What the glue and the libgcrypt dialect take from libgcrypt (g10lib.h, bufhelp.h,
# asm-common-amd64.h), as small as they can be.
ASM_COMMON = """#define ELF(...) __VA_ARGS__
#define CFI_STARTPROC()
#define CFI_ENDPROC()
#define CFI_PUSH(reg)
#define CFI_LEAVE()
#define CFI_DEF_CFA_REGISTER(reg)
#define ret_spec_stop ret; int3
#define SECTION_RODATA .section .rodata
"""

PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sm4.h"

typedef uint8_t byte;
typedef uint32_t u32;
typedef uint64_t u64;
#define ASM_FUNC_ABI
#define ATTR_ALIGNED_64 __attribute__((aligned(64)))
#define HWF_INTEL_AESNI (1 << 10)
#define HWF_INTEL_AVX2 (1 << 13)
#define HWF_INTEL_VAES_VPCLMUL (1 << 17)
#define wipememory(p, n) memset((p), 0, (n))
static u64 buf_get_be64(const void *p) { const byte *b = p; u64 v = 0; for (int i = 0; i < 8; i++) v = v << 8 | b[i]; return v; }
static void buf_put_be64(void *p, u64 v) { byte *b = p; for (int i = 7; i >= 0; i--, v >>= 8) b[i] = (byte)v; }
#include "sm4-kcrypt.c"

static unsigned rnd(void) { static unsigned long long s = 88172645463325252ull; s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)s; }

int main(void)
{
  enum { MAX = 200 * 16 };
  static byte key_bytes[16], iv0[16], msg[MAX + 16], want[MAX], got[MAX + 16], tmp[MAX];
  int failures = 0, cases = 0;
  for (unsigned which = KCRYPT_AVX2_AESNI; which <= KCRYPT_AVX2_VAES; which++) {
    unsigned hwf = HWF_INTEL_AVX2 | HWF_INTEL_AESNI | (which == KCRYPT_AVX2_VAES ? HWF_INTEL_VAES_VPCLMUL : 0);
    if (kcrypt_select(hwf) != which) { printf("FAIL select %u\n", which); return 1; }
    const sm4_impl *impl = sm4_impl_find("wordslice", which == KCRYPT_AVX2_VAES ? "avx2_vaes" : "avx2_aesni", 0);
    if (!impl || !impl->cpu_supported()) { printf("SKIP %u: CPU\n", which); continue; }
    for (int i = 0; i < 60; i++, cases++) {
      for (int j = 0; j < 16; j++) key_bytes[j] = rnd(), iv0[j] = rnd();
      if (i % 7 == 0) memset(iv0 + 8, 0xff, 8); /* counters that carry into the high half */
      size_t nblocks = rnd() % 200, offset = rnd() % 16, done;
      for (size_t j = 0; j < nblocks * 16; j++) msg[offset + j] = rnd();
      const byte *in = msg + offset;
      int in_place = i % 2;
      sm4_key key;
      sm4_set_key(&key, key_bytes);
      const u32 *rk_enc = key.rk[SM4_ENCRYPT], *rk_dec = key.rk[SM4_DECRYPT];
      byte iv[16], want_iv[16];
      /* CTR */
      sm4_ctr_crypt(&key, iv0, in, want, nblocks * 16);
      memcpy(iv, iv0, 16);
      byte *out = in_place ? memcpy(tmp, in, nblocks * 16) : got + offset;
      done = kcrypt_ctr_enc(which, rk_enc, out, in_place ? out : in, iv, nblocks);
      memcpy(want_iv, iv0, 16);
      for (size_t b = 0; b < done; b++) for (int k = 15; k >= 0 && ++want_iv[k] == 0; k--) ;
      if (done != nblocks - nblocks % 64 || memcmp(out, want, done * 16) || memcmp(iv, want_iv, 16))
        printf("FAIL ctr kernel %u, %zu blocks\n", which, nblocks), failures++;
      /* CBC decryption */
      sm4_cbc_decrypt(&key, iv0, in, want, nblocks * 16);
      memcpy(iv, iv0, 16);
      out = in_place ? memcpy(tmp, in, nblocks * 16) : got + offset;
      done = kcrypt_cbc_dec(which, rk_dec, out, in_place ? out : in, iv, nblocks);
      if (memcmp(out, want, done * 16) || (done && memcmp(iv, in + 16 * (done - 1), 16)))
        printf("FAIL cbc kernel %u, %zu blocks\n", which, nblocks), failures++;
      /* CFB decryption: p_i = c_i ^ E(c_(i-1)) */
      for (size_t b = 0; b < nblocks; b++) {
        byte e[16];
        sm4_ecb_encrypt(&key, b ? in + 16 * (b - 1) : iv0, e, 16);
        for (int k = 0; k < 16; k++) want[16 * b + k] = in[16 * b + k] ^ e[k];
      }
      memcpy(iv, iv0, 16);
      out = in_place ? memcpy(tmp, in, nblocks * 16) : got + offset;
      done = kcrypt_cfb_dec(which, rk_enc, out, in_place ? out : in, iv, nblocks);
      if (memcmp(out, want, done * 16) || (done && memcmp(iv, in + 16 * (done - 1), 16)))
        printf("FAIL cfb kernel %u, %zu blocks\n", which, nblocks), failures++;
    }
  }
  printf("%d cases, %d failed\n", cases, failures);
  return failures != 0;
}
"""


def test_glue_against_the_library(tmp_path, harness_build):
    (tmp_path / "config.h").write_text("")
    (tmp_path / "asm-common-amd64.h").write_text(ASM_COMMON)
    (tmp_path / "main.c").write_text(PROGRAM)
    asm = ROOT / "generated" / "asm" / "libgcrypt" / "x86_64"
    exe = tmp_path / "glue"
    subprocess.run(["cc", "-O2", "-std=gnu11", "-Wall", "-Werror", "-Wa,--noexecstack", f"-I{tmp_path}", f"-I{ROOT / 'generated' / 'include'}",
                    f"-I{ROOT / 'harness' / 'consumers' / 'libgcrypt'}", "-o", str(exe), str(tmp_path / "main.c"),
                    str(asm / "sm4_wordslice_avx2_aesni.S"), str(asm / "sm4_wordslice_avx2_vaes.S"),
                    str(harness_build / "lib" / "libkcrypt.a")], check=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout and " 0 failed" in proc.stdout
    assert "120 cases" in proc.stdout or "SKIP" in proc.stdout
