#ifndef STACK_POSITION_H
#define STACK_POSITION_H

#include <stdint.h>

/// Where the calling thread's stack stands now: the address of this function's frame.
uintptr_t stack_position(void);

#endif
