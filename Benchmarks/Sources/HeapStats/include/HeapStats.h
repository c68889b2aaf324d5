#ifndef HEAP_STATS_H
#define HEAP_STATS_H

#include <stddef.h>

/// Bytes the C heap has handed out and not taken back, in every arena and in mmapped chunks:
/// glibc's mallinfo2().uordblks + hblkhd. (Swift's Glibc module does not import <malloc.h>.)
size_t heap_stats_in_use(void);

#endif
