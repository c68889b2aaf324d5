import Glibc

/// What a plugin's own process tells its host of the calls it served, to be shown in the host's
/// traces: each call's service, method, the instants it began and ended on the wall clock, the
/// headers it came with (its caller's trace) and how it failed.
extension PluginActorSystem {
    /// A call this process served, as it timed it.
    @_spi(HostKit)
    public struct ServedCall: Sendable {
        /// The name the service is served under (a store key).
        public let service: String
        /// The method, as its contract names it (`echo`).
        public let method: String
        /// When the call began and ended to be served, in nanoseconds since 1970 (`CLOCK_REALTIME`).
        public let start: UInt64, end: UInt64
        /// The headers the call came with (``PluginCallContext/headers``).
        public let headers: [String: String]
        /// Nil if the method returned; else what it threw, or why it was not run.
        public let failure: String?
    }

    /// From now on, `observer` hears of each call this process serves when its reply is sent (nil:
    /// none, and no call is timed). Calls to the services named with a leading `__` (a host's or a
    /// child's own) are not told.
    @_spi(HostKit)
    public func observeServedCalls(_ observer: (@Sendable (ServedCall) -> Void)?) {
        servedObserver.withLock { $0 = observer }
    }

    /// Now, in nanoseconds since 1970: the clock a served call is timed by (a host checks the times
    /// its children tell against it).
    @_spi(HostKit)
    public static func wallClockNow() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1_000_000_000 + UInt64(max(0, now.tv_nsec))
    }
}
