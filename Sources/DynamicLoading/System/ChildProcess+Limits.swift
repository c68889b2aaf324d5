import Glibc

extension ChildProcess {
    /// What a child may use, each applied with `prlimit(2)` right after the spawn, before the host
    /// sends it anything. nil: the host's own limit, inherited.
    package struct Limits: Sendable, Equatable {
        /// The bytes of data it may map: `RLIMIT_DATA` (soft and hard), which counts its heap and its
        /// private writable mappings, what a runaway allocation grows, and each thread's stack (glibc
        /// reserves 8 MiB, writable). Not `RLIMIT_AS`, which also counts what is merely reserved and
        /// mapped read-only: the code of every library, and a 64 MiB malloc arena per thread.
        /// Measured here (2 cores) with a small Swift program that starts a thread and a task group:
        /// under `RLIMIT_DATA` it starts with 32 MiB and a runaway allocation ends it (SIGABRT); under
        /// `RLIMIT_AS` it could not even be loaded below 128 MiB. With too little for its threads'
        /// stacks (24 MiB here), a Swift program does not crash, it hangs, waiting for a thread that
        /// could not be made: whoever supervises the child needs its own bound on an answer as well.
        package var memoryBytes: UInt64?
        /// Seconds of CPU time: `RLIMIT_CPU`, soft at this (SIGXCPU, which ends a program that does not
        /// handle it), hard one second later (SIGKILL, for one that does).
        package var cpuSeconds: UInt64?
        /// Open descriptors: `RLIMIT_NOFILE` (soft and hard), the highest number it may open plus one.
        package var openFiles: UInt64?

        package init(memoryBytes: UInt64? = nil, cpuSeconds: UInt64? = nil, openFiles: UInt64? = nil) {
            self.memoryBytes = memoryBytes
            self.cpuSeconds = cpuSeconds
            self.openFiles = openFiles
        }

        /// Each limit set, as the resource, its name and its soft and hard values.
        var settings: [(resource: Int32, name: String, soft: UInt64, hard: UInt64)] {
            var settings: [(resource: Int32, name: String, soft: UInt64, hard: UInt64)] = []
            if let bytes = memoryBytes { settings.append((Int32(RLIMIT_DATA.rawValue), "memory (RLIMIT_DATA)", bytes, bytes)) }
            if let seconds = cpuSeconds {
                settings.append((Int32(RLIMIT_CPU.rawValue), "CPU time (RLIMIT_CPU)", seconds, seconds < .max ? seconds + 1 : seconds))
            }
            if let files = openFiles { settings.append((Int32(RLIMIT_NOFILE.rawValue), "open files (RLIMIT_NOFILE)", files, files)) }
            return settings
        }

        /// Sets them on `process`; the first that fails is thrown, naming the limit.
        func apply(to process: Int32) throws(ChildProcessError) {
            for setting in settings {
                do {
                    try Posix.setLimit(setting.resource, of: process, soft: setting.soft, hard: setting.hard)
                } catch {
                    throw .limitRefused(limit: setting.name, value: setting.soft, error)
                }
            }
        }
    }
}
