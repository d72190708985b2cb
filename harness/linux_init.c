/*
 * The init of harness/linux_module.py's initramfs, built static for the
 * guest's architecture (no shell or busybox needed): loads the modules that
 * /modules lists, one a line ("name.ko [parameters]", in order), prints the
 * SM4 entries of /proc/crypto, runs /vectors through the kernel's drivers by
 * AF_ALG (one a line: "DRIVER enc|dec KEY IV IN OUT", hex, IV "-" for none),
 * prints the kernel log, and powers the guest off.  Each step prints a
 * "kcrypt-boot:" line that the harness reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_alg.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

static void load(const char *name, const char *params)
{
  char path[4200];
  snprintf(path, sizeof path, "/%s", name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  long rc = fd < 0 ? -1 : syscall(SYS_finit_module, fd, params, 0);
  printf("kcrypt-boot: insmod %s%s%s: %ld%s%s\n", name, *params ? " " : "", params, rc < 0 ? (long)errno : 0L,
         rc < 0 ? " " : "", rc < 0 ? strerror(errno) : "");
  if (fd >= 0) close(fd);
}

/* /proc/crypto's entries whose name is one of the SM4 modes (internal "__" forms too). */
static void show_crypto(void)
{
  FILE *f = fopen("/proc/crypto", "r");
  char line[256];
  int keep = 0;
  printf("kcrypt-boot: /proc/crypto\n");
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "name", 4) == 0) keep = strstr(line, "(sm4)") != NULL;
    if (keep) fputs(line, stdout);
  }
  if (f) fclose(f);
}

static size_t unhex(const char *s, unsigned char *out, size_t cap)
{
  size_t n = 0;
  for (; s[0] && s[1] && s[0] != '-' && n < cap; s += 2) {
    unsigned v;
    if (sscanf(s, "%2x", &v) != 1) break;
    out[n++] = (unsigned char)v;
  }
  return n;
}

/* in -> out through skcipher `driver` by AF_ALG; 0, or an errno. */
static int af_alg(const char *driver, int encrypt, const unsigned char *key, size_t key_len, const unsigned char *iv,
                  size_t iv_len, const unsigned char *in, unsigned char *out, size_t len)
{
  struct sockaddr_alg sa = {.salg_family = AF_ALG, .salg_type = "skcipher"};
  snprintf((char *)sa.salg_name, sizeof sa.salg_name, "%s", driver);
  int tfm = socket(AF_ALG, SOCK_SEQPACKET, 0), op = -1, err = 0;
  if (tfm < 0 || bind(tfm, (struct sockaddr *)&sa, sizeof sa) || setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, key_len) ||
      (op = accept(tfm, NULL, 0)) < 0)
    err = errno;
  char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 64)] = {0};
  struct iovec iov = {(void *)in, len};
  struct msghdr msg = {.msg_control = control, .msg_controllen = sizeof control, .msg_iov = &iov, .msg_iovlen = 1};
  if (!err) {
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_ALG;
    c->cmsg_type = ALG_SET_OP;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    *(int *)CMSG_DATA(c) = encrypt ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
    size_t used = CMSG_SPACE(sizeof(int));
    if (iv_len) {
      c = CMSG_NXTHDR(&msg, c);
      c->cmsg_level = SOL_ALG;
      c->cmsg_type = ALG_SET_IV;
      c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + iv_len);
      struct af_alg_iv *alg_iv = (struct af_alg_iv *)CMSG_DATA(c);
      alg_iv->ivlen = (unsigned)iv_len;
      memcpy(alg_iv->iv, iv, iv_len);
      used += CMSG_SPACE(sizeof(struct af_alg_iv) + iv_len);
    }
    msg.msg_controllen = used; /* exactly what is filled in: the kernel reads all of it */
    if (sendmsg(op, &msg, 0) != (ssize_t)len || read(op, out, len) != (ssize_t)len) err = errno ? errno : EIO;
  }
  if (op >= 0) close(op);
  if (tfm >= 0) close(tfm);
  return err;
}

/* Each line of /vectors through AF_ALG: prints one line a vector, "ok" or why not. */
static void run_vectors(void)
{
  FILE *f = fopen("/vectors", "r");
  static char line[65536], driver[64], dir[8], key[200], iv[200], in[20000], want[20000];
  static unsigned char k[64], v[64], msg[10000], expect[10000], got[10000];
  while (f && fgets(line, sizeof line, f)) {
    if (sscanf(line, "%63s %7s %199s %199s %19999s %19999s", driver, dir, key, iv, in, want) != 6) continue;
    size_t kl = unhex(key, k, sizeof k), vl = unhex(iv, v, sizeof v), n = unhex(in, msg, sizeof msg);
    unhex(want, expect, sizeof expect);
    int err = af_alg(driver, strcmp(dir, "enc") == 0, k, kl, v, vl, msg, got, n);
    printf("kcrypt-boot: af_alg %s %s %zu bytes: %s%s\n", driver, dir, n,
           err ? "error " : memcmp(got, expect, n) ? "MISMATCH" : "ok", err ? strerror(err) : "");
  }
  if (f) fclose(f);
}

int main(void)
{
  mount("proc", "/proc", "proc", 0, NULL);
  mount("sysfs", "/sys", "sysfs", 0, NULL);
  setvbuf(stdout, NULL, _IOLBF, 0);
  FILE *cpu = fopen("/proc/cpuinfo", "r");
  char line[4096];
  while (cpu && fgets(line, sizeof line, cpu))
    if (strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0) {
      printf("kcrypt-boot: guest CPU %s", line);
      break;
    }
  if (cpu) fclose(cpu);
  FILE *list = fopen("/modules", "r");
  while (list && fgets(line, sizeof line, list)) {
    line[strcspn(line, "\n")] = 0;
    char *params = strchr(line, ' ');
    if (params) *params++ = 0;
    static int shown;
    if (strstr(line, "tcrypt") && !shown++) show_crypto(); /* before tcrypt adds its own instances */
    load(line, params ? params : "");
  }
  if (list) fclose(list);
  run_vectors();
  static char log[1 << 20];
  int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof log);
  printf("kcrypt-boot: dmesg\n%.*s\n", n > 0 ? n : 0, log);
  printf("kcrypt-boot: done\n");
  fflush(stdout);
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
