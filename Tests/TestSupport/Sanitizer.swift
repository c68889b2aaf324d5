import Foundation

/// True if this process (and so every child built with it) runs under ThreadSanitizer or
/// AddressSanitizer: their runtimes define these symbols. A sanitizer's shadow memory counts against
/// `RLIMIT_DATA`, so a child given a memory limit cannot even start under one.
public let underSanitizer = ["__tsan_init", "__asan_init"].contains { symbol in
    symbol.withCString { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }
}

/// This process's sanitizer options (`ASAN_OPTIONS`, `TSAN_OPTIONS`...), for the environment of a
/// sandboxed child, which gets none of this process's variables: under AddressSanitizer, `.ci/run`
/// turns LeakSanitizer off (`detect_leaks=0`), whose check at a child's `exit` would stop the world
/// with a new process the sandbox refuses, and end the child with LeakSanitizer's error, not its status.
public let sanitizerOptions: [String: String] = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }

/// True if this process (and so every child built with it) runs under ThreadSanitizer, which starts
/// a thread of its own in each child a process forks: a zygote refuses to serve under it.
public let underThreadSanitizer = "__tsan_init".withCString { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }
