/// Why a plugin's process could not confine itself: the layer, and what the kernel said.
package struct SandboxError: Error, CustomStringConvertible {
    /// The layer that could not be entered.
    package let layer: SandboxLayer
    /// What failed (a system call and its error, or a missing kernel feature).
    package let reason: String

    package init(layer: SandboxLayer, reason: String) {
        self.layer = layer
        self.reason = reason
    }

    package var description: String {
        "the sandbox's \(layer.rawValue) is not available here: \(reason) (a host may accept the layers this kernel "
            + "offers: PluginSandbox(acceptsMissingLayers: true), host --sandbox available)"
    }
}
