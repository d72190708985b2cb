/* Read-ahead on a second thread: see read_ahead.h. */
#define _DEFAULT_SOURCE /* explicit_bzero */

#include "read_ahead.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads from fd until `want` bytes are at buf or the input ends.  Sets
 * *got; returns 0, or an errno value.  The only point where the reader may
 * be cancelled: it holds no lock here. */
static int read_full(int fd, uint8_t *buf, size_t want, size_t *got) {
  int old;
  *got = 0;
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
  int status = 0;
  while (*got < want) {
    ssize_t n = read(fd, buf + *got, want - *got);
    if (n > 0)
      *got += (size_t)n;
    else if (n == 0)
      break; /* end of input */
    else if (errno != EINTR) {
      status = errno;
      break;
    }
  }
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  return status;
}

/* The reader: fills the buffers in turn, each once the caller has handed it
 * back, until a piece is the last or a read fails. */
static void *reader(void *arg) {
  kc_read_ahead *ra = arg;
  uint64_t taken = 0;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
  for (unsigned i = 0;; i ^= 1) {
    pthread_mutex_lock(&ra->lock);
    while (ra->full[i]) pthread_cond_wait(&ra->changed, &ra->lock);
    pthread_mutex_unlock(&ra->lock);

    size_t want = ra->limit - taken < ra->piece ? (size_t)(ra->limit - taken) : ra->piece;
    size_t got;
    int error = read_full(ra->fd, ra->buf[i], want, &got);
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
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    status = pthread_create(&ra->thread, NULL, reader, ra);
    if (status == 0) return 0;
    pthread_cond_destroy(&ra->changed);
    pthread_mutex_destroy(&ra->lock);
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
  /* A reader blocked in read (a pipe whose writer pauses) is cancelled
   * there; one waiting for a buffer is cancelled when it next reads, so
   * both buffers are marked free to let it get there. */
  pthread_cancel(ra->thread);
  pthread_mutex_lock(&ra->lock);
  ra->full[0] = ra->full[1] = 0;
  pthread_cond_broadcast(&ra->changed);
  pthread_mutex_unlock(&ra->lock);
  pthread_join(ra->thread, NULL);
  pthread_cond_destroy(&ra->changed);
  pthread_mutex_destroy(&ra->lock);
  for (int i = 0; i < 2; i++) { /* plain text: wiped before it goes back to the allocator */
    explicit_bzero(ra->buf[i], ra->piece);
    free(ra->buf[i]);
    ra->buf[i] = NULL;
  }
}
