import Foundation

/// True if this process (and so every child built with it) runs under ThreadSanitizer or
/// AddressSanitizer: their runtimes define these symbols. A sanitizer's shadow memory counts against
/// `RLIMIT_DATA`, so a child given a memory limit cannot even start under one.
public let underSanitizer = ["__tsan_init", "__asan_init"].contains { symbol in
    symbol.withCString { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }
}
