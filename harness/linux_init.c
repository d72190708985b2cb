/*
 * The init of harness/linux_module.py's initramfs, built static for the
 * guest's architecture (no shell or busybox needed): loads the modules that
 * /modules lists, one a line ("name.ko [parameters]", in order), prints the
 * SM4 entries of /proc/crypto, then the kernel log, and powers the guest off.
 * Each step prints a "kcrypt-boot:" line that the harness reads.
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
#include <unistd.h>

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
    if (strstr(line, "tcrypt")) show_crypto(); /* before tcrypt adds its own instances */
    load(line, params ? params : "");
  }
  if (list) fclose(list);
  static char log[1 << 20];
  int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof log);
  printf("kcrypt-boot: dmesg\n%.*s\n", n > 0 ? n : 0, log);
  printf("kcrypt-boot: done\n");
  fflush(stdout);
  sync();
  reboot(RB_POWER_OFF);
  return 0;
}
