#define _GNU_SOURCE
#include <pthread.h>
#include "StackPosition.h"

uintptr_t stack_position(void) {
    // The frame's own address on the thread's stack: unlike the address of a Swift local, never
    // moved to a side stack (AddressSanitizer keeps locals on "fake stacks" to catch use after return).
    return (uintptr_t)__builtin_frame_address(0);
}

// This thread's stack, asked once (for the main thread glibc reads /proc/self/maps): 0 until asked,
// 1 if it could not be had.
static __thread uintptr_t low_bound = 0;
static __thread uintptr_t stack_size = 0;

static void ask(void) {
    low_bound = 1;
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
    void *address = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &address, &size) == 0 && address != NULL) {
        low_bound = (uintptr_t)address;
        stack_size = size;
    }
    pthread_attr_destroy(&attributes);
}

uintptr_t stack_low_bound(void) {
    if (low_bound == 0) ask();
    return low_bound == 1 ? 0 : low_bound;
}

uintptr_t stack_size_of_thread(void) {
    if (low_bound == 0) ask();
    return stack_size;
}
