#ifndef STACK_POSITION_H
#define STACK_POSITION_H

#include <stdint.h>

/// Where the calling thread's stack stands now: the address of this function's frame.
uintptr_t stack_position(void);

/// The lowest address of the calling thread's stack (stacks grow down towards it), or 0 if the
/// system does not say. Asked of the system once per thread.
uintptr_t stack_low_bound(void);

/// The size of the calling thread's stack in bytes, or 0 if the system does not say.
uintptr_t stack_size_of_thread(void);

#endif
