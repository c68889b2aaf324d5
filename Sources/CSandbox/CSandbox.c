#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CSandbox.h"

// Landlock's user-space structures as of ABI 6 (the kernel's <linux/landlock.h>); this machine's
// headers stop at ABI 3. Each later ABI appends fields: the size passed tells the kernel which.
struct ruleset_attributes { uint64_t handled_access_fs, handled_access_net, scoped; };
struct path_beneath_attributes { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
struct net_port_attributes { uint64_t allowed_access, port; };
enum { rule_path_beneath = 1, rule_net_port = 2 };

_Static_assert(sandbox_clone_thread == CLONE_THREAD && sandbox_new_ipc == CLONE_NEWIPC && sandbox_new_user == CLONE_NEWUSER
               && sandbox_new_network == CLONE_NEWNET, "the CLONE_* flags of CSandbox.h are the system's");

static int result(long value) { return value < 0 ? -errno : (int)value; }

#define CALL(name) { #name, SYS_##name }
static const struct { const char *name; long number; } calls[] = {
    CALL(ptrace), CALL(process_vm_readv), CALL(process_vm_writev), CALL(kcmp), CALL(pidfd_getfd), CALL(pidfd_open),
    CALL(mount), CALL(umount2), CALL(pivot_root), CALL(chroot), CALL(move_mount), CALL(open_tree), CALL(fsopen),
    CALL(fsconfig), CALL(fsmount), CALL(fspick), CALL(mount_setattr), CALL(unshare), CALL(setns),
    CALL(keyctl), CALL(add_key), CALL(request_key), CALL(bpf), CALL(perf_event_open), CALL(userfaultfd),
    CALL(kexec_load), CALL(kexec_file_load), CALL(init_module), CALL(finit_module), CALL(delete_module),
    CALL(reboot), CALL(swapon), CALL(swapoff), CALL(acct), CALL(quotactl), CALL(settimeofday), CALL(clock_settime),
    CALL(clock_adjtime), CALL(adjtimex), CALL(sethostname), CALL(setdomainname), CALL(syslog), CALL(vhangup),
    CALL(open_by_handle_at), CALL(name_to_handle_at), CALL(io_uring_setup), CALL(io_uring_enter), CALL(io_uring_register),
    CALL(execve), CALL(execveat), CALL(clone), CALL(clone3),
    CALL(setuid), CALL(setgid), CALL(setreuid), CALL(setregid), CALL(setresuid), CALL(setresgid), CALL(setfsuid),
    CALL(setfsgid), CALL(setgroups), CALL(capset), CALL(personality), CALL(prlimit64),
    CALL(socket), CALL(memfd_create), CALL(memfd_secret), CALL(mmap), CALL(shmget), CALL(shmat), CALL(mq_open),
#ifdef SYS_iopl
    CALL(iopl), CALL(ioperm),
#endif
    CALL(landlock_create_ruleset), CALL(seccomp),
    // The calls a serving process makes most, which the filter allows before it reads any rule.
    CALL(read), CALL(write), CALL(readv), CALL(writev), CALL(pread64), CALL(pwrite64), CALL(close), CALL(futex),
    CALL(recvmsg), CALL(sendmsg), CALL(recvfrom), CALL(sendto), CALL(epoll_pwait), CALL(ppoll),
    CALL(nanosleep), CALL(clock_nanosleep), CALL(sched_yield), CALL(madvise), CALL(munmap), CALL(mprotect), CALL(brk),
    CALL(getpid), CALL(gettid), CALL(rt_sigprocmask), CALL(eventfd2), CALL(timerfd_settime),
// x86_64 has these; aarch64 has only their newer forms (ppoll, epoll_pwait, clone).
#ifdef SYS_poll
    CALL(poll), CALL(epoll_wait), CALL(fork), CALL(vfork),
#endif
};

int sandbox_system_call(const char *name) {
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (strcmp(calls[i].name, name) == 0) return (int)calls[i].number;
    }
    return -1;
}

uint32_t sandbox_audit_architecture(void) {
#if defined(__x86_64__)
    return AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
    return AUDIT_ARCH_AARCH64;
#else
    return 0;
#endif
}

int sandbox_no_new_privileges(void) { return result(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)); }

int sandbox_unshare(int flags) { return result(unshare(flags)); }

int sandbox_set_real_user(unsigned int user) { return result(setresuid(user, (uid_t)-1, (uid_t)-1)); }

int sandbox_drop_capabilities(void) {
    for (int capability = 0; capability <= CAP_LAST_CAP; capability++) {
        // EINVAL: a capability this kernel does not know; anything else is a failure.
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EINVAL) return -errno;
    }
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return result(syscall(SYS_capset, &header, data));
}

int sandbox_install_filter(const sandbox_filter_instruction *program, uint16_t count) {
    struct sock_fprog filter = { .len = count, .filter = (struct sock_filter *)program };
    return result(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter));
}

int sandbox_landlock_abi(void) { return result(syscall(SYS_landlock_create_ruleset, NULL, 0, 1U << 0)); }

int sandbox_landlock_ruleset(uint64_t files, uint64_t network, uint64_t scoped, int abi) {
    struct ruleset_attributes attributes = { files, network, scoped };
    // ABI 1 to 3 know handled_access_fs only, 4 and 5 also handled_access_net, 6 and later scoped too.
    size_t size = abi >= 6 ? sizeof attributes : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    return result(syscall(SYS_landlock_create_ruleset, &attributes, size, 0));
}

int sandbox_open_path(const char *path) { return result(open(path, O_PATH | O_CLOEXEC)); }

int sandbox_landlock_allow_path(int ruleset, int parent, uint64_t access) {
    struct path_beneath_attributes rule = { .allowed_access = access, .parent_fd = parent };
    return result(syscall(SYS_landlock_add_rule, ruleset, rule_path_beneath, &rule, 0));
}

int sandbox_landlock_allow_port(int ruleset, uint64_t port, uint64_t access) {
    struct net_port_attributes rule = { .allowed_access = access, .port = port };
    return result(syscall(SYS_landlock_add_rule, ruleset, rule_net_port, &rule, 0));
}

int sandbox_landlock_restrict(int ruleset) { return result(syscall(SYS_landlock_restrict_self, ruleset, 0)); }

struct listing { char *buffer; size_t size, needed; };

static int list_object(struct dl_phdr_info *info, size_t info_size, void *data) {
    (void)info_size;
    struct listing *listing = data;
    // The program itself and the vDSO have no path here.
    if (!info->dlpi_name || info->dlpi_name[0] != '/') return 0;
    size_t length = strlen(info->dlpi_name);
    if (listing->buffer && listing->needed + length + 1 <= listing->size) {
        memcpy(listing->buffer + listing->needed, info->dlpi_name, length);
        listing->buffer[listing->needed + length] = '\n';
    }
    listing->needed += length + 1;
    return 0;
}

size_t sandbox_loaded_objects(char *buffer, size_t size) {
    struct listing listing = { buffer, size, 0 };
    // The program first: the loader names it "" (HostKit reads its file, for the libraries it links).
    char program[4096];
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
    if (length > 0) {
        program[length] = 0;
        struct dl_phdr_info info = { .dlpi_name = program };
        list_object(&info, sizeof info, &listing);
    }
    dl_iterate_phdr(list_object, &listing);
    return listing.needed;
}

int sandbox_thread_count(void) {
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[4096];
    ssize_t count = read(fd, text, sizeof text - 1);
    close(fd);
    if (count <= 0) return -1;
    text[count] = 0;
    const char *field = strstr(text, "\nThreads:");
    return field ? atoi(field + strlen("\nThreads:")) : -1;
}
