import Glibc

/// Starts a detached thread running a closure: the reader of a connection blocks in `poll` and
/// `recv`, which must not hold one of Swift concurrency's few threads.
///
/// Invariant: the closure's box is retained once by ``start(_:)`` and released once by the thread
/// it starts, or by ``start(_:)`` itself if no thread started. Nothing else is unsafe here.
enum DetachedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread; false if no thread could be started.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard started == 0 else {
            box.release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
