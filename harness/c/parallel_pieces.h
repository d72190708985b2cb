/*
 * A regular file through a cipher whose output for a piece depends on the
 * piece's offset alone (CTR), on two threads: each reads its own piece with
 * pread and runs the cipher on it in its own core's cache, and the pieces
 * are written in order.  kcrypt's read-ahead (read_ahead.h) copies every
 * piece out of the page cache on one core for the cipher on the other, and
 * on a machine whose page-cache reads are as slow as the cipher that copy
 * bounds the stream (docs/performance/README.md).
 *
 * fd must be a regular file; reading starts at its offset and goes to its
 * end (a short read ends it), and the offset is left after what was read.
 */
#ifndef KC_PARALLEL_PIECES_H
#define KC_PARALLEL_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "kcrypt.h"

/* Whether fd is a regular file at a known offset (the pieces can be read apart). */
int kc_pieces_seekable(int fd);

/* fd through `crypt` to out_fd in pieces of `piece` bytes; *written counts
 * what reached out_fd.  Returns 0; -1 with errno set for a failed read
 * (*read_failed 1) or write (0); -2 for a failed crypt (its reason in err). */
int kc_parallel_pieces(int fd, int out_fd, size_t piece, kc_crypt_at_fn crypt, uint64_t *written,
                       int *read_failed, char *err, size_t err_size);

#endif /* KC_PARALLEL_PIECES_H */
