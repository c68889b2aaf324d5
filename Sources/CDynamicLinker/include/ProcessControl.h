#ifndef PROCESS_CONTROL_H
#define PROCESS_CONTROL_H

#include <pthread.h>
#include <spawn.h>

// What ChildProcess needs that Swift's Glibc module does not import (each needs _GNU_SOURCE).

/// prlimit(2) of `resource` for the process `pid`, to `soft` and `hard`: 0, or the errno it failed with.
int process_set_limit(int pid, int resource, unsigned long long soft, unsigned long long hard);

/// posix_spawn_file_actions_addclosefrom_np(3): the spawned child closes every descriptor from `lowest`
/// on, whether or not it is close-on-exec. 0, or the error number.
int process_spawn_close_from(posix_spawn_file_actions_t *_Nonnull actions, int lowest);

/// sigabbrev_np(3): the abbreviation of `signal` ("KILL", "SEGV"), or NULL for a number that names none.
const char *_Nullable process_signal_abbreviation(int signal);

/// sendmsg(2) of `count` bytes as one message, with `descriptorCount` (at most 4) descriptors passed
/// along (SCM_RIGHTS), without SIGPIPE: 0, or the error number.
int process_send_with_descriptors(int socket, const void *_Nonnull bytes, size_t count, const int *_Nullable descriptors,
                                  int descriptorCount);

/// recvmsg(2) of one message into `bytes`, and the descriptors passed with it (close-on-exec), at most
/// `capacityOfDescriptors` kept in `descriptors` (the rest closed), their number in `descriptorCount`:
/// the bytes received (0: the peer closed), or minus the error number (a message cut short: -EMSGSIZE).
long process_receive_with_descriptors(int socket, void *_Nonnull bytes, size_t capacity, int *_Nonnull descriptors,
                                      int capacityOfDescriptors, int *_Nonnull descriptorCount);

/// pidfd_open(2): a descriptor that refers to the process `pid`, or minus the error number.
int process_pidfd_open(int pid);

/// pidfd_send_signal(2): 0, or the error number.
int process_pidfd_send_signal(int pidfd, int signal);

/// close_range(2) of the descriptors `lowest` to `highest`: 0, or the error number.
int process_close_range(int lowest, int highest);

/// close_range(2) of every descriptor from `lowest` on: 0, or the error number.
int process_close_from(int lowest);

/// setrlimit(2) of `resource` for this process: 0, or the error number.
int process_set_own_limit(int resource, unsigned long long soft, unsigned long long hard);

/// prctl(PR_SET_PDEATHSIG, SIGKILL), then whether the parent is still `parent`: 0, or the error number
/// (ESRCH: the parent ended already).
int process_die_with_parent(int parent);

/// prctl(PR_SET_NAME): the name the process's thread shows (at most 15 bytes kept). 0, or the error number.
int process_set_name(const char *_Nonnull name);

/// Whether `signal`'s disposition is SIG_IGN (1), or not or unknown (0).
int process_signal_is_ignored(int signal);

/// pthread_create(3) of a thread whose signal mask is empty from its first instruction
/// (pthread_attr_setsigmask_np), whatever the caller's: 0, or the error number.
int process_start_thread_unblocked(pthread_t *_Nonnull thread, void *_Nullable (*_Nonnull start)(void *_Nullable),
                                   void *_Nullable context);

#endif
