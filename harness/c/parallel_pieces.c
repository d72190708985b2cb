/* Pieces of a regular file on two threads: see parallel_pieces.h. */
#define _DEFAULT_SOURCE /* pread, explicit_bzero */

#include "parallel_pieces.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kcrypt.h"

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t turn; /* next_write moved, or the run stopped */
  int fd, out_fd;
  off_t start;
  size_t piece;
  kc_crypt_at_fn crypt;
  uint64_t next_piece;  /* the next piece a worker takes */
  uint64_t next_write;  /* the piece whose output goes out next */
  uint64_t end;         /* the first piece past the input (UINT64_MAX until a short piece is seen) */
  uint64_t written;
  int status, read_failed, error; /* the first failure: status -1 (errno `error`) or -2 */
  char *err;
  size_t err_size;
} run;

int kc_pieces_seekable(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0;
}

/* Reads up to want bytes at `at`; the count, or -1 with errno set. */
static ssize_t read_at(int fd, uint8_t *buf, size_t want, off_t at) {
  size_t got = 0;
  while (got < want) {
    ssize_t n = pread(fd, buf + got, want - got, at + (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += (size_t)n;
  }
  return (ssize_t)got;
}

/* Records the run's first failure and wakes every worker; called locked. */
static void fail(run *r, int status, int read_failed, int error) {
  if (r->status == 0) {
    r->status = status;
    r->read_failed = read_failed;
    r->error = error;
  }
  pthread_cond_broadcast(&r->turn);
}

static void *worker(void *arg) {
  run *r = arg;
  uint8_t *buf = malloc(r->piece);
  char err[256] = "";
  pthread_mutex_lock(&r->lock);
  if (!buf) fail(r, -1, 1, ENOMEM);
  while (buf && r->status == 0 && r->next_piece < r->end) {
    uint64_t i = r->next_piece++;
    pthread_mutex_unlock(&r->lock);
    ssize_t got = read_at(r->fd, buf, r->piece, r->start + (off_t)(i * r->piece));
    int error = got < 0 ? errno : 0;
    int crypted = got > 0 ? r->crypt(i * r->piece, buf, buf, (size_t)got, err, sizeof err) : 0;
    pthread_mutex_lock(&r->lock);
    if (got >= 0 && (size_t)got < r->piece && i + 1 < r->end) r->end = i + 1; /* the input ends here */
    while (r->status == 0 && r->next_write != i) pthread_cond_wait(&r->turn, &r->lock);
    if (r->status != 0) break;
    if (got < 0) {
      fail(r, -1, 1, error);
      break;
    }
    if (crypted != 0) {
      snprintf(r->err, r->err_size, "%s", err);
      fail(r, -2, 0, 0);
      break;
    }
    /* Our turn: the pieces before ours are out; nothing else writes now. */
    if (kc_write_full(r->out_fd, buf, (size_t)got, &r->written) != 0) {
      fail(r, -1, 0, errno);
      break;
    }
    r->next_write++;
    pthread_cond_broadcast(&r->turn);
  }
  pthread_mutex_unlock(&r->lock);
  if (buf) explicit_bzero(buf, r->piece); /* plain text */
  free(buf);
  return NULL;
}

int kc_parallel_pieces(int fd, int out_fd, size_t piece, kc_crypt_at_fn crypt, uint64_t *written,
                       int *read_failed, char *err, size_t err_size) {
  run r = {.fd = fd, .out_fd = out_fd, .start = lseek(fd, 0, SEEK_CUR), .piece = piece,
           .crypt = crypt, .end = UINT64_MAX, .err = err, .err_size = err_size};
  pthread_mutex_init(&r.lock, NULL);
  pthread_cond_init(&r.turn, NULL);
  pthread_t helper;
  int helped = pthread_create(&helper, NULL, worker, &r) == 0;
  worker(&r); /* this thread is the other worker */
  if (helped) pthread_join(helper, NULL);
  pthread_cond_destroy(&r.turn);
  pthread_mutex_destroy(&r.lock);
  if (r.status == 0) lseek(fd, r.start + (off_t)r.written, SEEK_SET); /* as if it had been read */
  *written = r.written;
  *read_failed = r.read_failed;
  errno = r.error;
  return r.status;
}
