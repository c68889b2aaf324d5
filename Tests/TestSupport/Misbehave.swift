import Foundation

/// The environment that makes the crash and hang fixtures misbehave. A sanitizer in the child must
/// let the crash be one, on top of the options the test run was given.
public let misbehave: [String: String] = {
    let environment = ProcessInfo.processInfo.environment
    func adding(_ option: String, to name: String) -> String {
        environment[name].map { "\($0):\(option)" } ?? option
    }
    return ["HOSTKIT_FIXTURE_MISBEHAVE": "1", "TSAN_OPTIONS": adding("handle_segv=0", to: "TSAN_OPTIONS"),
            "ASAN_OPTIONS": adding("handle_segv=0", to: "ASAN_OPTIONS")]
}()
