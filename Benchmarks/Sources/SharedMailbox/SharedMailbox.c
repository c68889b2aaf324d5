#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "SharedMailbox.h"

struct mailbox {
    _Atomic uint32_t sequence;
    _Atomic uint32_t sleeping;
    _Atomic uint32_t length;
    uint32_t padding[13];
    unsigned char bytes[];
};

int shared_mailbox_create(size_t size) {
    int fd = memfd_create("shared-mailbox", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void *shared_mailbox_map(int fd, size_t size) {
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

size_t shared_mailbox_size(size_t capacity) {
    return (sizeof(struct mailbox) + capacity + 63) & ~(size_t)63;
}

void shared_mailbox_post(void *box, const void *bytes, uint32_t length) {
    struct mailbox *mailbox = box;
    memcpy(mailbox->bytes, bytes, length);
    atomic_store_explicit(&mailbox->length, length, memory_order_relaxed);
    // Sequentially consistent with the reader's store to `sleeping` and load of `sequence`: either
    // the reader sees the new sequence, or this sees that it sleeps (or is about to) and wakes it.
    atomic_fetch_add(&mailbox->sequence, 1);
    if (atomic_load(&mailbox->sleeping)) {
        syscall(SYS_futex, &mailbox->sequence, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
}

uint32_t shared_mailbox_take(void *box, uint32_t *seen, void *out, uint32_t capacity, int spins) {
    struct mailbox *mailbox = box;
    uint32_t current;
    for (int spin = 0; spin < spins; spin++) {
        current = atomic_load_explicit(&mailbox->sequence, memory_order_acquire);
        if (current != *seen) goto arrived;
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
    }
    for (;;) {
        atomic_store(&mailbox->sleeping, 1);
        current = atomic_load(&mailbox->sequence);
        if (current != *seen) break;
        syscall(SYS_futex, &mailbox->sequence, FUTEX_WAIT, *seen, NULL, NULL, 0);
    }
    atomic_store(&mailbox->sleeping, 0);
arrived:
    *seen = current;
    uint32_t length = atomic_load_explicit(&mailbox->length, memory_order_relaxed);
    if (length > capacity) length = capacity;
    memcpy(out, mailbox->bytes, length);
    return length;
}
