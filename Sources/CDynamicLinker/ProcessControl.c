#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
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
