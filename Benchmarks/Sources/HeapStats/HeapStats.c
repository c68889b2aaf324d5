#include <malloc.h>
#include "HeapStats.h"

size_t heap_stats_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
