import Glibc

extension ChildProcess {
    /// How a child process ended, as its wait status says.
    package enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// It exited, with this status (0 to 255; -1 when how it ended is unknown: something else in
        /// the host reaped it first, or it was a zygote's child and died with its zygote).
        case exited(Int32)
        /// A signal ended it (its number).
        case signalled(Int32)

        /// The ending a wait status (`wait4(2)`'s) tells: `WIFEXITED`'s status, or `WTERMSIG`'s signal.
        /// Only an ended child's status is decoded here (no `WUNTRACED`: a stopped child is not reported).
        init(waitStatus status: Int32) {
            let signal = status & 0x7F
            self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        }

        /// "exited with status 3", "was killed by signal 9 (SIGKILL)"; a SIGXCPU says the child passed
        /// its CPU time limit (the kernel sends it at the soft limit, and nothing else in the host does).
        package var description: String {
            switch self {
            case .exited(let status) where !(0...255).contains(status):
                return "ended, and how is unknown (something else in the host reaped it, or its zygote ended)"
            case .exited(let status):
                return "exited with status \(status)"
            case .signalled(let signal):
                let name = Posix.signalAbbreviation(signal).map { " (\($0))" } ?? ""
                let why = signal == SIGXCPU ? ": it passed its CPU time limit" : ""
                return "was killed by signal \(signal)\(name)\(why)"
            }
        }
    }

    /// What is known of how it ended, for a report: the ending, and, for a SIGKILL, that the child
    /// had passed its CPU time limit when it had one and used at least that much (the kernel kills at
    /// the hard limit a child that ignored the SIGXCPU of the soft one). Nil until it ended.
    package var endingDescription: String? {
        guard let end = watch.state.withLock({ $0.end }) else { return nil }
        if end.ending == .signalled(SIGKILL), let seconds = limits.cpuSeconds, end.cpuTime >= .seconds(seconds) {
            return "\(end.ending): it passed its CPU time limit of \(seconds) s"
        }
        return end.ending.description
    }
}
