#ifndef C_DYNAMIC_LINKER_H
#define C_DYNAMIC_LINKER_H

#include <stddef.h>
#include "ProcessControl.h"

/// The path of the loaded object that contains `address` (as dladdr's dli_fname), or NULL.
/// (Swift's Glibc module does not import dladdr: it needs _GNU_SOURCE.)
const char *_Nullable dynamic_linker_object_path(const void *_Nonnull address);

/// Writes up to `capacity` of the DT_NEEDED names of the object `handle` (from dlopen) into `names`,
/// read from its dynamic section as the dynamic loader mapped it; returns how many it has, or -1 if
/// the handle's link map cannot be read. The names point into the loaded object and stay valid while
/// it is loaded.
long dynamic_linker_needed(void *_Nonnull handle, const char *_Nullable *_Nonnull names, long capacity);

/// What the symbol at `address` is for the object `handle` (from dlopen), by the program headers
/// and the dynamic symbol table the dynamic loader mapped: 1 a function of the object (a symbol of
/// type STT_FUNC at that very address, in one of its executable segments), 0 something else of the
/// object (data, or code without a function symbol), -1 outside the object (in another one, or in
/// none), -2 if the handle's link map cannot be read.
int dynamic_linker_function_kind(void *_Nonnull handle, const void *_Nonnull address);

/// What the symbol at `address` is for the loaded object that contains it (dladdr's): 1 a function
/// of that object, 0 something else of it, as dynamic_linker_function_kind says; -2 if no loaded
/// object contains it or its link map cannot be read.
int dynamic_linker_defining_kind(const void *_Nonnull address);

/// Writes the path (as the dynamic loader knows it; "" for the program itself and the vDSO) and the
/// DT_SONAME (or NULL) of the loaded objects from the `skip`th on, at most `capacity` of them, into
/// `paths` and `sonames`, in the loader's order (new objects come last); returns how many objects are
/// loaded (or, with a `capacity` of 0 or more, up to `skip + capacity + 1`: the walk stops there), and
/// the loader's counts of objects ever added and removed in `adds` and `subs` (0 if this glibc does
/// not say), which tell whether the list changed. The strings stay valid while those
/// objects are loaded; a caller reads them before it loads or unloads anything.
long dynamic_linker_loaded(const char *_Nullable *_Nonnull paths, const char *_Nullable *_Nonnull sonames,
                           long capacity, long skip, unsigned long long *_Nonnull adds,
                           unsigned long long *_Nonnull subs);

#endif
