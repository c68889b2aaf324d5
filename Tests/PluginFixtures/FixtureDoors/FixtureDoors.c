#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "FixtureDoors.h"

extern char **environ;

static int failed(void) { return errno ? errno : EIO; }

static int read_file(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return failed();
    char byte;
    ssize_t count = read(fd, &byte, 1);
    int error = count < 0 ? failed() : count == 0 ? ENODATA : 0;
    close(fd);
    return error;
}

static int list_folder(const char *path) {
    DIR *folder = opendir(path);
    if (!folder) return failed();
    closedir(folder);
    return 0;
}

static int write_file(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return failed();
    close(fd);
    unlink(path);
    return 0;
}

/// `HOST:PORT` (IPv4) into `address`.
static int ipv4(const char *target, struct sockaddr_in *address) {
    char host[64];
    const char *colon = strrchr(target, ':');
    if (!colon || (size_t)(colon - target) >= sizeof host) return EINVAL;
    memcpy(host, target, colon - target);
    host[colon - target] = 0;
    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_port = htons((uint16_t)atoi(colon + 1));
    return inet_pton(AF_INET, host, &address->sin_addr) == 1 ? 0 : EINVAL;
}

static int tcp(const char *target) {
    struct sockaddr_in address;
    if (ipv4(target, &address)) return EINVAL;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return failed();
    int error = connect(fd, (struct sockaddr *)&address, sizeof address) == 0 ? 0 : failed();
    close(fd);
    return error;
}

static int udp(const char *target) {
    struct sockaddr_in address;
    if (ipv4(target, &address)) return EINVAL;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return failed();
    int error = sendto(fd, "x", 1, 0, (struct sockaddr *)&address, sizeof address) == 1 ? 0 : failed();
    close(fd);
    return error;
}

static int unix_socket(const char *path) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof address.sun_path) return EINVAL;
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return failed();
    int error = connect(fd, (struct sockaddr *)&address, sizeof address) == 0 ? 0 : failed();
    close(fd);
    return error;
}

/// `PID:ADDRESS`: 8 bytes of another process's memory at ADDRESS (hexadecimal).
static int read_memory(const char *target) {
    char *end;
    pid_t pid = (pid_t)strtol(target, &end, 10);
    if (*end != ':') return EINVAL;
    uintptr_t at = (uintptr_t)strtoull(end + 1, NULL, 16);
    char bytes[8];
    struct iovec local = { bytes, sizeof bytes }, remote = { (void *)at, sizeof bytes };
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof bytes ? 0 : failed();
}

static int trace(pid_t pid) {
    if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0) return failed();
    // Seized, not stopped: stop it to let it go at once (it is another test's process, or the host).
    if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0) {
        int status;
        waitpid(pid, &status, __WALL);
    }
    ptrace(PTRACE_DETACH, pid, 0, 0);
    return 0;
}

static int run(const char *program) {
    pid_t pid;
    char *arguments[] = { (char *)program, NULL };
    int error = posix_spawn(&pid, program, NULL, NULL, arguments, environ);
    if (error) return error;
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

static int shared_memory(const char *megabytes) {
    size_t size = (size_t)atol(megabytes) << 20;
    char *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return failed();
    for (size_t offset = 0; offset < size; offset += 4096) memory[offset] = 1;
    munmap(memory, size);
    return 0;
}

static int bpf_map(void) {
    union bpf_attr attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.map_type = BPF_MAP_TYPE_ARRAY;
    attributes.key_size = 4;
    attributes.value_size = 4;
    attributes.max_entries = 1;
    long fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attributes, sizeof attributes);
    if (fd < 0) return failed();
    close((int)fd);
    return 0;
}

static int mount_tmpfs(const char *path) {
    if (mount("none", path, "tmpfs", 0, "") != 0) return failed();
    umount2(path, MNT_DETACH);
    return 0;
}

static int memfd(void) {
    int fd = memfd_create("fixture-door", MFD_CLOEXEC);
    if (fd < 0) return failed();
    close(fd);
    return 0;
}

static void *wait_for_close(void *pipe_end) {
    char byte;
    while (read((int)(intptr_t)pipe_end, &byte, 1) > 0) {}
    return NULL;
}

/// Starts `count` threads at once (small stacks: the bound tried is the thread limit, not memory),
/// then ends them: 0 if all started, else the error of the first that did not.
static int threads(const char *count) {
    int wanted = atoi(count), started = 0, error = 0, ends[2];
    if (wanted <= 0 || pipe(ends) != 0) return EINVAL;
    pthread_t *made = calloc((size_t)wanted, sizeof(pthread_t));
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    while (started < wanted && !error) {
        error = pthread_create(&made[started], &attributes, wait_for_close, (void *)(intptr_t)ends[0]);
        if (!error) started++;
    }
    close(ends[1]);
    for (int index = 0; index < started; index++) pthread_join(made[index], NULL);
    close(ends[0]);
    pthread_attr_destroy(&attributes);
    free(made);
    return error;
}

/// An exit handler that never returns: a process that runs its exit handlers never ends.
static void never_return(void) {
    for (;;) pause();
}

int door_try(const char *kind, const char *target) {
    errno = 0;
    if (!strcmp(kind, "read")) return read_file(target);
    if (!strcmp(kind, "open")) {
        int fd = open(target, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return failed();
        close(fd);
        return 0;
    }
    if (!strcmp(kind, "list")) return list_folder(target);
    if (!strcmp(kind, "write")) return write_file(target);
    if (!strcmp(kind, "tcp")) return tcp(target);
    if (!strcmp(kind, "udp")) return udp(target);
    if (!strcmp(kind, "unix")) return unix_socket(target);
    if (!strcmp(kind, "signal")) return kill(atoi(target), SIGCONT) == 0 ? 0 : failed();
    if (!strcmp(kind, "ptrace")) return trace(atoi(target));
    if (!strcmp(kind, "memory")) return read_memory(target);
    if (!strcmp(kind, "getenv")) return getenv(target) ? 0 : ENOENT;
    if (!strcmp(kind, "run")) return run(target);
    if (!strcmp(kind, "setuid")) return setuid((uid_t)atoi(target)) == 0 ? 0 : failed();
    // The real user back to the effective one, which needs no capability: root's real user would escape RLIMIT_NPROC.
    if (!strcmp(kind, "realuser")) return setreuid((uid_t)atoi(target), (uid_t)-1) == 0 ? 0 : failed();
    if (!strcmp(kind, "mount")) return mount_tmpfs(target);
    if (!strcmp(kind, "unshare")) return unshare(CLONE_NEWUTS) == 0 ? 0 : failed();
    if (!strcmp(kind, "keyctl")) {
        return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) >= 0 ? 0 : failed();
    }
    if (!strcmp(kind, "bpf")) return bpf_map();
    if (!strcmp(kind, "shared")) return shared_memory(target);
    if (!strcmp(kind, "memfd")) return memfd();
    if (!strcmp(kind, "threads")) return threads(target);
    // Another process's limits, only read here: a write could lower the host's (no capability needed for one's own user).
    if (!strcmp(kind, "prlimit")) {
        struct rlimit old;
        return prlimit((pid_t)atoi(target), RLIMIT_CORE, NULL, &old) == 0 ? 0 : failed();
    }
    if (!strcmp(kind, "exit-handler")) return atexit(never_return) == 0 ? 0 : ENOMEM;
    return ENOSYS;
}
