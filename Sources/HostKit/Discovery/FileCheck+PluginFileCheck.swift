internal import DynamicLoading

extension FileCheck {
    /// The floor's form of `check`, or, if `unusable` says why the check could not begin this load,
    /// a refusal of every file with those words.
    static func of(_ check: any PluginFileCheck, unusable: String?) -> FileCheck {
        FileCheck { path, neededBy, descriptor in
            if let unusable { return unusable }
            return PluginFile.refusal(by: check, path: path, neededBy: neededBy, descriptor: descriptor)
        }
    }
}
