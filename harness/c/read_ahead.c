/* Read-ahead on a second thread: see read_ahead.h. */
#define _DEFAULT_SOURCE /* explicit_bzero */

#include "read_ahead.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* The eventfd that stop signals, numbered above stdin, stdout and stderr:
 * when one of those is closed, a new descriptor takes its number, and
 * kcrypt would read its input from, or write its output to, the eventfd.
 * Returns it, or -1 with errno set. */
static int open_wake(void) {
  int fd = eventfd(0, EFD_CLOEXEC);
  if (fd < 0 || fd > STDERR_FILENO) return fd;
  int above = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  int error = errno;
  close(fd);
  errno = error;
  return above;
}

/* sem_wait, resumed after a signal. */
static void take(sem_t *s) {
  while (sem_wait(s) != 0 && errno == EINTR) {
  }
}

/* Reads from fd until `want` bytes are at buf, the input ends, or stop
 * signals the wake eventfd.  Each read waits in poll for input or that
 * signal first, so the reader never blocks in read() and a pipe whose
 * writer stays open and silent cannot hold stop up.  Sets *got; returns 0,
 * an errno value, or -1 when stop signalled. */
static int read_full(const kc_read_ahead *ra, uint8_t *buf, size_t want, size_t *got) {
  struct pollfd fds[2] = {{.fd = ra->fd, .events = POLLIN}, {.fd = ra->wake, .events = POLLIN}};
  *got = 0;
  while (*got < want) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (fds[1].revents) return -1;
    /* fd has input, its end, or an error (POLLHUP, POLLERR, POLLNVAL): read says which. */
    ssize_t n = read(ra->fd, buf + *got, want - *got);
    if (n > 0)
      *got += (size_t)n;
    else if (n == 0)
      break; /* end of input */
    else if (errno != EINTR)
      return errno;
  }
  return 0;
}

/* The reader: fills the buffers in turn, each once the caller has handed it
 * back, until a piece is the last, a read fails, or stop asks it to end. */
static void *reader(void *arg) {
  kc_read_ahead *ra = arg;
  uint64_t taken = 0;
  for (unsigned i = 0;; i ^= 1) {
    take(&ra->empty);
    size_t want = ra->limit - taken < ra->piece ? (size_t)(ra->limit - taken) : ra->piece;
    size_t got;
    int error = read_full(ra, ra->buf[i], want, &got);
    if (error < 0) return NULL; /* stopped */
    taken += got;
    kc_read_piece p = {ra->buf[i], got, got < want || taken == ra->limit, error};
    ra->filled[i] = p;
    sem_post(&ra->full); /* publishes filled[i] to the caller */
    if (p.last || p.error) return NULL;
  }
}

int kc_read_ahead_start(kc_read_ahead *ra, int fd, size_t piece, uint64_t limit) {
  memset(ra, 0, sizeof *ra);
  ra->fd = fd;
  ra->piece = piece;
  ra->limit = limit;
  ra->buf[0] = malloc(piece);
  ra->buf[1] = malloc(piece);
  int status = ENOMEM;
  if (ra->buf[0] && ra->buf[1]) {
    ra->wake = open_wake();
    status = ra->wake < 0 ? errno : 0;
  }
  if (status == 0) {
    sem_init(&ra->empty, 0, 2);
    sem_init(&ra->full, 0, 0);
    status = pthread_create(&ra->thread, NULL, reader, ra);
    if (status == 0) return 0;
    sem_destroy(&ra->empty);
    sem_destroy(&ra->full);
    close(ra->wake);
  }
  free(ra->buf[0]);
  free(ra->buf[1]);
  ra->buf[0] = ra->buf[1] = NULL;
  errno = status;
  return -1;
}

kc_read_piece kc_read_ahead_next(kc_read_ahead *ra) {
  take(&ra->full);
  return ra->filled[ra->next];
}

void kc_read_ahead_done(kc_read_ahead *ra) {
  ra->next ^= 1;
  sem_post(&ra->empty);
}

void kc_read_ahead_stop(kc_read_ahead *ra) {
  if (!ra->buf[0]) return;
  /* The eventfd first, which stays readable: a reader waiting in poll for
   * input (a pipe whose writer pauses) sees it, and so does one that the
   * post below wakes where it waits for a buffer.  Writing 1 to a fresh
   * eventfd cannot fail (only a counter near 2^64 would). */
  eventfd_write(ra->wake, 1);
  sem_post(&ra->empty);
  pthread_join(ra->thread, NULL);
  close(ra->wake);
  sem_destroy(&ra->empty);
  sem_destroy(&ra->full);
  for (int i = 0; i < 2; i++) { /* plain text: wiped before it goes back to the allocator */
    explicit_bzero(ra->buf[i], ra->piece);
    free(ra->buf[i]);
    ra->buf[i] = NULL;
  }
}
