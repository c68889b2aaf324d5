/// What the host's operator checks each file a load maps by, beside the checks of its own (a list
/// of digests, say): shown each plugin file and each library a plugin brings, as the open file the
/// loader will map (a copy in a ``ShadowFolder``, or a library where it lies), before it is mapped.
package struct FileCheck: Sendable {
    /// Why the file known as `path` may not be mapped, or `nil`. `neededBy` is the plugin that
    /// brings it, for a library; `descriptor` is open on the bytes the loader will map, valid
    /// during the call only.
    package let refusal: @Sendable (_ path: String, _ neededBy: String?, _ descriptor: Int32) -> String?

    package init(refusal: @escaping @Sendable (_ path: String, _ neededBy: String?, _ descriptor: Int32) -> String?) {
        self.refusal = refusal
    }
}
