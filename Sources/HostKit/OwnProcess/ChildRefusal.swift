/// Why the child refused a request: the plugin load error's text.
struct ChildRefusal: Error, Codable, CustomStringConvertible {
    let description: String
}
