import CDynamicLinker
import Glibc

/// The rest of a forked child's life, on a thread of its own: a child a ``Zygote`` forked runs on
/// the zygote's thread, whose thread-local state says it is the zygote's (Swift's runtime keeps
/// each thread's id there for its locks, which are priority-inheriting futexes that name their
/// owner: two threads of the child contending for one the main thread took would wait for a
/// thread of another process, forever). A thread made in the child has its own.
///
/// Unsafe: the body crosses `pthread_create` as an unmanaged reference, retained here and taken
/// back, once, by the new thread. The main thread then only waits, every signal blocked (a signal
/// handler of the plugin's runs on the new thread or one of its threads), and calls nothing of
/// Swift's runtime again. It costs the plugin one thread of its limit (the sandbox's thread limit
/// counts it) and the new thread's stack.
package enum FreshThread {
    private final class Body {
        let run: () -> Int32
        init(_ run: @escaping () -> Int32) { self.run = run }
    }

    /// Runs `body` on a new thread and ends the process with its status; the calling thread waits.
    /// Call it while the process has this one thread (the sandbox entered already): the new thread
    /// inherits its confinement and an empty signal mask.
    package static func run(_ body: @escaping () -> Int32) -> Never {
        // Blocked first, so that no signal reaches this thread from now on; the new thread starts
        // with none blocked.
        var signals = sigset_t()
        sigfillset(&signals)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let made = process_start_thread_unblocked(&thread, { context in
            // Again here: a sanitizer's `pthread_create` starts the thread with its creator's mask.
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            guard let context else { _exit(70) }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            _exit(body.run())
        }, context)
        guard made == 0 else {
            let line = "the plugin's process could not start its serving thread: \(String(cString: strerror(made)))\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            _exit(71)
        }
        pthread_join(thread, nil)
        _exit(0)
    }
}
