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

/* Reads from fd until `want` bytes are at buf, the input ends, or stop
 * signals the wake eventfd (then *stopped = 1).  Each read waits in poll
 * for input or that signal first, so the reader never blocks in read() and
 * a pipe whose writer stays open and silent cannot hold stop up.  Sets
 * *got; returns 0, or an errno value. */
static int read_full(const kc_read_ahead *ra, uint8_t *buf, size_t want, size_t *got, int *stopped) {
  struct pollfd fds[2] = {{.fd = ra->fd, .events = POLLIN}, {.fd = ra->wake, .events = POLLIN}};
  *got = 0;
  *stopped = 0;
  while (*got < want) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (fds[1].revents) {
      *stopped = 1;
      return 0;
    }
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
    pthread_mutex_lock(&ra->lock);
    while (ra->full[i] && !ra->stopping) pthread_cond_wait(&ra->changed, &ra->lock);
    int stopping = ra->stopping;
    pthread_mutex_unlock(&ra->lock);
    if (stopping) return NULL;

    size_t want = ra->limit - taken < ra->piece ? (size_t)(ra->limit - taken) : ra->piece;
    size_t got;
    int error = read_full(ra, ra->buf[i], want, &got, &stopping);
    if (stopping) return NULL;
    taken += got;
    kc_read_piece p = {ra->buf[i], got, got < want || taken == ra->limit, error};

    pthread_mutex_lock(&ra->lock);
    ra->filled[i] = p;
    ra->full[i] = 1;
    pthread_cond_broadcast(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
    if (p.last || p.error) return NULL;
  }
}

int kc_read_ahead_start(kc_read_ahead *ra, int fd, size_t piece, uint64_t limit) {
  memset(ra, 0, sizeof *ra);
  ra->fd = fd, ra->piece = piece, ra->limit = limit;
  ra->buf[0] = malloc(piece);
  ra->buf[1] = malloc(piece);
  int status = ENOMEM;
  if (ra->buf[0] && ra->buf[1]) {
    ra->wake = open_wake();
    status = ra->wake < 0 ? errno : 0;
  }
  if (status == 0) {
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    status = pthread_create(&ra->thread, NULL, reader, ra);
    if (status == 0) return 0;
    pthread_cond_destroy(&ra->changed);
    pthread_mutex_destroy(&ra->lock);
    close(ra->wake);
  }
  free(ra->buf[0]);
  free(ra->buf[1]);
  ra->buf[0] = ra->buf[1] = NULL;
  errno = status;
  return -1;
}

kc_read_piece kc_read_ahead_next(kc_read_ahead *ra) {
  pthread_mutex_lock(&ra->lock);
  while (!ra->full[ra->next]) pthread_cond_wait(&ra->changed, &ra->lock);
  kc_read_piece p = ra->filled[ra->next];
  pthread_mutex_unlock(&ra->lock);
  return p;
}

void kc_read_ahead_done(kc_read_ahead *ra) {
  pthread_mutex_lock(&ra->lock);
  ra->full[ra->next] = 0;
  ra->next ^= 1;
  pthread_cond_broadcast(&ra->changed);
  pthread_mutex_unlock(&ra->lock);
}

void kc_read_ahead_stop(kc_read_ahead *ra) {
  if (!ra->buf[0]) return;
  /* A reader waiting for a buffer sees the flag; one waiting in poll for
   * input (a pipe whose writer pauses) sees the eventfd, which stays
   * readable, so a reader on its way to poll sees it there too.  Writing 1
   * to a fresh eventfd cannot fail (only a counter near 2^64 would). */
  pthread_mutex_lock(&ra->lock);
  ra->stopping = 1;
  pthread_cond_broadcast(&ra->changed);
  pthread_mutex_unlock(&ra->lock);
  eventfd_write(ra->wake, 1);
  pthread_join(ra->thread, NULL);
  close(ra->wake);
  pthread_cond_destroy(&ra->changed);
  pthread_mutex_destroy(&ra->lock);
  for (int i = 0; i < 2; i++) { /* plain text: wiped before it goes back to the allocator */
    explicit_bzero(ra->buf[i], ra->piece);
    free(ra->buf[i]);
    ra->buf[i] = NULL;
  }
}
