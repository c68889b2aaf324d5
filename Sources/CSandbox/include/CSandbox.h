#ifndef C_SANDBOX_H
#define C_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

// The few system calls a plugin's process makes to confine itself (DynamicLoading's Sandbox), which
// Swift's Glibc module does not import: prctl and syscall are variadic, and this machine's kernel
// headers predate Landlock's network rules and scopes. Each returns 0 (or what it makes) on success
// and the negated errno on failure; none keeps state.

/// The `CLONE_*` flags the sandbox uses (linux/sched.h, which needs _GNU_SOURCE to be seen).
enum {
    sandbox_clone_thread = 0x00010000,
    sandbox_new_ipc = 0x08000000,
    sandbox_new_user = 0x10000000,
    sandbox_new_network = 0x40000000,
};

/// One instruction of a classic BPF program (`struct sock_filter`).
typedef struct {
    uint16_t code;
    uint8_t jt;
    uint8_t jf;
    uint32_t k;
} sandbox_filter_instruction;

/// The system call numbered `name` on this architecture (`"ptrace"`), or -1 if it has none by that name.
int sandbox_system_call(const char *_Nonnull name);

/// `AUDIT_ARCH_*` of this architecture, which a seccomp filter checks first; 0 if the filter does not know it.
uint32_t sandbox_audit_architecture(void);

/// `prctl(PR_SET_NO_NEW_PRIVS, 1)`.
int sandbox_no_new_privileges(void);

/// `unshare(2)` with `flags` (`CLONE_NEW*`).
int sandbox_unshare(int flags);

/// `setresuid(user, -1, -1)`: the real user changes, the effective and saved users stay.
int sandbox_set_real_user(unsigned int user);

/// Drops every capability of the calling thread (`capset` with empty sets), and each from the bounding set.
int sandbox_drop_capabilities(void);

/// Installs `count` instructions as a seccomp filter on every thread of the process (`SECCOMP_FILTER_FLAG_TSYNC`).
int sandbox_install_filter(const sandbox_filter_instruction *_Nonnull program, uint16_t count);

/// The Landlock ABI version the kernel offers (1 and up), or the negated errno (Landlock absent or off).
int sandbox_landlock_abi(void);

/// A Landlock ruleset handling `files`, `network` and `scoped` (an ABI that lacks a field gets 0 there): its descriptor.
int sandbox_landlock_ruleset(uint64_t files, uint64_t network, uint64_t scoped, int abi);

/// The paths of the program (`/proc/self/exe`) and of the objects the dynamic loader has mapped
/// (`dl_iterate_phdr`), each followed by a
/// newline, written into `buffer` as far as `size` allows: the bytes all of them need (call again with
/// a buffer that large if it is more than `size`).
size_t sandbox_loaded_objects(char *_Nullable buffer, size_t size);

/// The number of threads of this process (`Threads:` of `/proc/self/status`), or -1 if it cannot be read.
int sandbox_thread_count(void);

/// `open(path, O_PATH | O_CLOEXEC)`: a descriptor naming a file or folder, for a Landlock rule.
int sandbox_open_path(const char *_Nonnull path);

/// Lets `access` on the hierarchy under the open descriptor `parent` (a file or a folder).
int sandbox_landlock_allow_path(int ruleset, int parent, uint64_t access);

/// Lets `access` (bind, connect) on TCP `port`.
int sandbox_landlock_allow_port(int ruleset, uint64_t port, uint64_t access);

/// Confines the calling thread, and what it starts from now on, to `ruleset`.
int sandbox_landlock_restrict(int ruleset);

#endif
