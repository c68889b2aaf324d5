#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "ProcessControl.h"

int process_set_limit(int pid, int resource, unsigned long long soft, unsigned long long hard) {
    struct rlimit limit = { .rlim_cur = soft, .rlim_max = hard };
    return prlimit(pid, (__rlimit_resource_t)resource, &limit, NULL) == 0 ? 0 : errno;
}

int process_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

const char *process_signal_abbreviation(int signal) {
    return sigabbrev_np(signal);
}

int process_send_with_descriptors(int socket, const void *bytes, size_t count, const int *descriptors, int descriptorCount) {
    struct iovec part = { .iov_base = (void *)bytes, .iov_len = count };
    union { char buffer[CMSG_SPACE(sizeof(int) * 4)]; struct cmsghdr align; } control;
    struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1 };
    if (descriptorCount < 0 || descriptorCount > 4) return EINVAL;
    if (descriptorCount > 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * descriptorCount);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * descriptorCount);
        memcpy(CMSG_DATA(header), descriptors, sizeof(int) * descriptorCount);
    }
    for (;;) {
        ssize_t sent = sendmsg(socket, &message, MSG_NOSIGNAL);
        if (sent >= 0) return (size_t)sent == count ? 0 : EMSGSIZE;
        if (errno != EINTR) return errno;
    }
}

long process_receive_with_descriptors(int socket, void *bytes, size_t capacity, int *descriptors, int capacityOfDescriptors,
                                      int *descriptorCount) {
    struct iovec part = { .iov_base = bytes, .iov_len = capacity };
    union { char buffer[CMSG_SPACE(sizeof(int) * 4)]; struct cmsghdr align; } control;
    struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.buffer,
                              .msg_controllen = sizeof control.buffer };
    *descriptorCount = 0;
    ssize_t got;
    do {
        got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return -errno;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *received = (int *)CMSG_DATA(header);
        for (int index = 0; index < count; index++) {
            // More than asked for are closed: a peer cannot leave descriptors in this process.
            if (*descriptorCount < capacityOfDescriptors) descriptors[(*descriptorCount)++] = received[index];
            else close(received[index]);
        }
    }
    // A message cut short is refused whole (its descriptors closed).
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        for (int index = 0; index < *descriptorCount; index++) close(descriptors[index]);
        *descriptorCount = 0;
        return -EMSGSIZE;
    }
    return got;
}

int process_pidfd_open(int pid) {
    long result = syscall(SYS_pidfd_open, pid, 0);
    return result < 0 ? -errno : (int)result;
}

int process_pidfd_send_signal(int pidfd, int signal) {
    return syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0) == 0 ? 0 : errno;
}

int process_close_range(int lowest, int highest) {
    return syscall(SYS_close_range, (unsigned)lowest, (unsigned)highest, 0) == 0 ? 0 : errno;
}

int process_close_from(int lowest) {
    return syscall(SYS_close_range, (unsigned)lowest, ~0U, 0) == 0 ? 0 : errno;
}

int process_set_own_limit(int resource, unsigned long long soft, unsigned long long hard) {
    struct rlimit limit = { .rlim_cur = soft, .rlim_max = hard };
    return setrlimit((__rlimit_resource_t)resource, &limit) == 0 ? 0 : errno;
}

int process_die_with_parent(int parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return errno;
    // The parent may have ended before the request: then nothing would come.
    return getppid() == parent ? 0 : ESRCH;
}

int process_set_name(const char *name) {
    return prctl(PR_SET_NAME, name) == 0 ? 0 : errno;
}

int process_signal_is_ignored(int signal) {
    struct sigaction current;
    if (sigaction(signal, NULL, &current) != 0) return 0;
    return !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN;
}

int process_start_thread_unblocked(pthread_t *thread, void *(*start)(void *), void *context) {
    pthread_attr_t attributes;
    int result = pthread_attr_init(&attributes);
    if (result != 0) return result;
    sigset_t none;
    sigemptyset(&none);
    result = pthread_attr_setsigmask_np(&attributes, &none);
    if (result == 0) result = pthread_create(thread, &attributes, start, context);
    pthread_attr_destroy(&attributes);
    return result;
}
