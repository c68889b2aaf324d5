#ifndef PROCESS_CONTROL_H
#define PROCESS_CONTROL_H

#include <spawn.h>

// What ChildProcess needs that Swift's Glibc module does not import (each needs _GNU_SOURCE).

/// prlimit(2) of `resource` for the process `pid`, to `soft` and `hard`: 0, or the errno it failed with.
int process_set_limit(int pid, int resource, unsigned long long soft, unsigned long long hard);

/// posix_spawn_file_actions_addclosefrom_np(3): the spawned child closes every descriptor from `lowest`
/// on, whether or not it is close-on-exec. 0, or the error number.
int process_spawn_close_from(posix_spawn_file_actions_t *_Nonnull actions, int lowest);

/// sigabbrev_np(3): the abbreviation of `signal` ("KILL", "SEGV"), or NULL for a number that names none.
const char *_Nullable process_signal_abbreviation(int signal);

#endif
