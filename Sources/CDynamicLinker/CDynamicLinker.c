#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include "CDynamicLinker.h"

const char *dynamic_linker_object_path(const void *address) {
    Dl_info info;
    if (dladdr(address, &info) == 0) return NULL;
    return info.dli_fname;
}

long dynamic_linker_needed(void *handle, const char **names, long capacity) {
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL || map->l_ld == NULL) return -1;
    const char *strings = NULL;
    for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_STRTAB) {
            // glibc relocates the addresses of a writable dynamic section in place; a read-only one
            // keeps the file's address, relative to the object's base.
            ElfW(Addr) address = entry->d_un.d_ptr;
            strings = (const char *)(address < map->l_addr ? map->l_addr + address : address);
        }
    }
    if (strings == NULL) return -1;
    long count = 0;
    for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag != DT_NEEDED) continue;
        if (count < capacity) names[count] = strings + entry->d_un.d_val;
        count++;
    }
    return count;
}
