#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

struct address_search {
    const struct link_map *map;
    const void *address;
    int kind;
};

static int find_address(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct address_search *search = data;
    if (info->dlpi_addr != search->map->l_addr || info->dlpi_name == NULL || search->map->l_name == NULL
        || strcmp(info->dlpi_name, search->map->l_name) != 0) return 0;
    uintptr_t address = (uintptr_t)search->address;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        if (address >= start && address - start < segment->p_memsz) {
            search->kind = (segment->p_flags & PF_X) ? 1 : 0;
            return 1;
        }
    }
    search->kind = -1;
    return 1;
}

/// What the symbol at `address` is for the object `map`: the kinds of dynamic_linker_function_kind.
static int kind_in(const struct link_map *map, const void *address) {
    struct address_search search = { map, address, -1 };
    dl_iterate_phdr(find_address, &search);
    if (search.kind != 1) return search.kind;
    // A linker may put read-only data in the executable segment: the symbol's own type decides.
    Dl_info info;
    const ElfW(Sym) *symbol = NULL;
    if (dladdr1(address, &info, (void **)&symbol, RTLD_DL_SYMENT) == 0 || symbol == NULL) return 0;
    if ((uintptr_t)info.dli_saddr != (uintptr_t)address) return 0;
    return ELF64_ST_TYPE(symbol->st_info) == STT_FUNC ? 1 : 0;
}

int dynamic_linker_function_kind(void *handle, const void *address) {
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) return -2;
    return kind_in(map, address);
}

int dynamic_linker_defining_kind(const void *address) {
    Dl_info info;
    struct link_map *map = NULL;
    if (dladdr1(address, &info, (void **)&map, RTLD_DL_LINKMAP) == 0 || map == NULL) return -2;
    return kind_in(map, address);
}

struct loaded_search {
    const char **paths;
    const char **sonames;
    long capacity;
    long skip;
    long count;
    unsigned long long adds;
    unsigned long long subs;
};

static int list_loaded(struct dl_phdr_info *info, size_t size, void *data) {
    struct loaded_search *search = data;
    if (search->count == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
        search->adds = info->dlpi_adds;
        search->subs = info->dlpi_subs;
    }
    long index = search->count++;
    if (index < search->skip) return 0;
    // Past what the caller wants: stop, unless it wants the whole count (a negative capacity).
    if (index - search->skip >= search->capacity) return search->capacity >= 0;
    const char *soname = NULL;
    for (ElfW(Half) segment = 0; segment < info->dlpi_phnum; segment++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[segment];
        if (header->p_type != PT_DYNAMIC) continue;
        const ElfW(Dyn) *entries = (const ElfW(Dyn) *)(info->dlpi_addr + header->p_vaddr);
        const char *strings = NULL;
        ElfW(Xword) name = 0;
        int hasName = 0;
        for (const ElfW(Dyn) *entry = entries; entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_STRTAB) {
                // As in dynamic_linker_needed: relocated in place, or relative to the base.
                ElfW(Addr) address = entry->d_un.d_ptr;
                strings = (const char *)(address < info->dlpi_addr ? info->dlpi_addr + address : address);
            } else if (entry->d_tag == DT_SONAME) {
                name = entry->d_un.d_val;
                hasName = 1;
            }
        }
        if (strings != NULL && hasName) soname = strings + name;
    }
    search->paths[index - search->skip] = info->dlpi_name;
    search->sonames[index - search->skip] = soname;
    return 0;
}

long dynamic_linker_loaded(const char **paths, const char **sonames, long capacity, long skip,
                           unsigned long long *adds, unsigned long long *subs) {
    struct loaded_search search = { paths, sonames, capacity, skip, 0, 0, 0 };
    dl_iterate_phdr(list_loaded, &search);
    *adds = search.adds;
    *subs = search.subs;
    return search.count;
}
