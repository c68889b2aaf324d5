extension PluginActorSystem {
    /// The timeout of calls made in `withCallTimeout(_:_:)`'s body, if any.
    @TaskLocal static var callTimeout: Duration?

    /// Runs `body` with every call it makes to another process's service given up after `timeout`
    /// (failing with ``PluginActorError/timedOut(peer:target:after:)``), instead of after the
    /// timeout the host set for that process. Calls to services of this process are not affected.
    ///
    /// ```swift
    /// let text = try await PluginActorSystem.withCallTimeout(.milliseconds(200)) {
    ///     try await greeter.greet("Ada")
    /// }
    /// ```
    public static func withCallTimeout<Result>(_ timeout: Duration, _ body: () async throws -> Result) async rethrows -> Result {
        try await $callTimeout.withValue(timeout, operation: body)
    }
}
