#ifndef SHARED_MAILBOX_H
#define SHARED_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

/// The benchmark's shared-memory floor: one message at a time each way, through a memfd both
/// processes map. A mailbox is a sequence word (a futex), a word saying its reader sleeps, the
/// message's length and its bytes. The poster copies the message in, bumps the sequence and wakes
/// the reader only if it sleeps; the reader spins a while on the sequence, then sleeps on it, and
/// copies the message out (length read once, clamped: the other process writes this memory).

/// A memfd of `size` bytes (zeroed); -1 if none could be made.
int shared_mailbox_create(size_t size);

/// `fd` mapped shared, `size` bytes; NULL on failure.
void *shared_mailbox_map(int fd, size_t size);

/// The bytes one mailbox of `capacity` bytes of message takes (a multiple of 64).
size_t shared_mailbox_size(size_t capacity);

/// Copies `length` bytes into the mailbox at `box` and wakes its reader if it sleeps.
void shared_mailbox_post(void *box, const void *bytes, uint32_t length);

/// Waits for a message after `*seen` (spinning `spins` times before sleeping), copies at most
/// `capacity` bytes of it to `out`, updates `*seen`, and returns its length (clamped to `capacity`).
uint32_t shared_mailbox_take(void *box, uint32_t *seen, void *out, uint32_t capacity, int spins);

#endif
