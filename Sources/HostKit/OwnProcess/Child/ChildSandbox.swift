internal import DynamicLoading
import Foundation

/// The child's first step: the sandbox its host asked for (``SandboxPolicy``, in an environment
/// variable), entered before anything of a plugin runs, and its private folder made the place its
/// plugin is copied to.
enum ChildSandbox {
    /// Enters the sandbox `policyText` describes (nil: the host asked for none); the layers entered,
    /// or why it could not.
    static func enter(_ policyText: String?, discovery: inout PluginDiscovery) -> Result<[SandboxLayer]?, SandboxError> {
        guard let policyText else { return .success(nil) }
        Posix.removeEnvironment(SandboxPolicy.variable)
        guard let sent = try? JSONDecoder().decode(SandboxPolicy.self, from: Data(policyText.utf8)) else {
            return .failure(SandboxError(layer: .landlockFiles, reason: "the host's policy could not be read"))
        }
        if let folder = sent.folder {
            discovery.shadowFolder = folder
            setenv("TMPDIR", folder, 1)
        }
        // In its user namespace an owner it has no map for shows as nobody: for the child of an
        // unprivileged host, root (a child of root's maps root). Then the paths are the host's to
        // check, and it did; the child still checks that the file is the one the host checked, and
        // checks its copy as the host does.
        if getuid() != 0 {
            discovery.shadowFolderCheckedByHost = true
            discovery.allowUntrusted = true
        }
        // The digest list is read again as each load begins: the child's own check reads it there.
        var policy = sent
        if let digests = discovery.fileCheck as? DigestAllowlist { policy.readable.append(digests.path) }
        return Result { () throws(SandboxError) in try Sandbox.enter(policy) }
    }
}
