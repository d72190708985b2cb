/*
 * Read-ahead: a thread that reads the next piece of a file descriptor while
 * the caller works on the one before, so that the copy out of the kernel's
 * page cache (or a pipe) and the cipher overlap on two cores.
 *
 * Two buffers of `piece` bytes take turns, counted by two semaphores: `empty`
 * the buffers the reader may fill, `full` the pieces ready for the caller.
 * Each piece is filled until it is full or the input ends (a pipe may hand
 * over a few bytes per read; EINTR is retried), and no more than `limit`
 * bytes are read in all, so a caller that wants only the first N bytes of
 * stdin leaves the rest unread.
 *
 *   kc_read_ahead ra;
 *   if (kc_read_ahead_start(&ra, fd, piece, limit) != 0) ...   (errno set)
 *   for (;;) {
 *     kc_read_piece p = kc_read_ahead_next(&ra);   waits for the next piece
 *     ... p.data[0 .. p.len), p.last, p.error (an errno value, or 0) ...
 *     kc_read_ahead_done(&ra);                     hands its buffer back
 *     if (p.last || p.error) break;
 *   }
 *   kc_read_ahead_stop(&ra);   ends the thread (even one waiting for input
 *                              on a silent pipe), wipes both buffers and
 *                              frees them
 *
 * The thread is never cancelled (AddressSanitizer misreports a cancelled
 * thread's exit): it waits for input in poll() together with an eventfd
 * that stop signals, and reads only what poll says is there, so it never
 * blocks in read(); stop also wakes it where it waits for a buffer.
 */
#ifndef KC_READ_AHEAD_H
#define KC_READ_AHEAD_H

#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *data; /* the piece's bytes */
  size_t len;          /* how many: `piece` unless last or error */
  int last;            /* the input (or the limit) ends with this piece */
  int error;           /* errno of a failed read (data then holds what came before it), else 0 */
} kc_read_piece;

typedef struct {
  pthread_t thread;
  sem_t empty, full;
  int fd;
  int wake; /* eventfd: readable once stop asks the reader to end */
  size_t piece;
  uint64_t limit;
  uint8_t *buf[2];
  kc_read_piece filled[2]; /* what the reader put in buf[i] */
  unsigned next;           /* the buffer the caller takes next */
} kc_read_ahead;

int kc_read_ahead_start(kc_read_ahead *ra, int fd, size_t piece, uint64_t limit);
kc_read_piece kc_read_ahead_next(kc_read_ahead *ra);
void kc_read_ahead_done(kc_read_ahead *ra);
void kc_read_ahead_stop(kc_read_ahead *ra);

#endif /* KC_READ_AHEAD_H */
