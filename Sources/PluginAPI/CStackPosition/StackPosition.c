#include "StackPosition.h"

uintptr_t stack_position(void) {
    // The frame's own address on the thread's stack: unlike the address of a Swift local, never
    // moved to a side stack (AddressSanitizer keeps locals on "fake stacks" to catch use after return).
    return (uintptr_t)__builtin_frame_address(0);
}
