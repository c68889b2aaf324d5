/// A child as the host asks a zygote for it: what ``ChildProcess/spawn(executable:name:arguments:environment:inheritingEnvironment:limits:onOutput:onEnd:)``
/// would start it with, but the program, which is the zygote's.
struct ZygoteForkRequest: Codable, Sendable {
    /// Which request it is: the reply names it (a reply to one the host gave up on is not another's).
    let number: UInt64
    /// Its name in `ps`: written over the zygote's `argv[0]` (cut to that length).
    let name: String
    /// What its thread is named (`PR_SET_NAME`: its first 15 bytes).
    let threadName: String
    /// Its whole environment, "NAME=value" entries.
    let environment: [String]
    /// Its limits, set by the child itself before it reads its socket.
    let limits: [Limit]

    struct Limit: Codable, Sendable {
        let resource: Int32
        let soft: UInt64
        let hard: UInt64
    }
}
