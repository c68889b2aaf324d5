/// A call a plugin's process served, as it sends it to the host (``HostServedCallService``): the host
/// adds the plugin's name and version, which the child does not choose.
struct ChildServedCall: Codable, Sendable {
    let service: String
    let method: String
    let start: UInt64
    let end: UInt64
    let headers: [String: String]
    let failure: String?
}
