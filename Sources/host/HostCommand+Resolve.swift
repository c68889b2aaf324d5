import HostKit
@_spi(HostKit) import PluginAPI

/// `host resolve KEY`: one service, gotten as a plugin would get it.
extension HostCommand {
    /// Gets the service for `key`, made from `--param` if the slot takes parameters and awaited if it
    /// is async, and prints it; returns false if it could not (the reason goes to stderr).
    func resolve(_ key: String, in locator: ServiceLocator) async -> Bool {
        let info = locator.slotInfo(forKey: key)
        /// Says why there is no service: on stderr, and with `--json` as an object on stdout too.
        func failed(_ reason: String) -> Bool {
            Output.problem("resolve '\(key)': \(reason)")
            if arguments.json { Output.json(encodeJSON(ResolveFailure(key: key, param: arguments.param, error: reason))) }
            return false
        }
        let service: Any
        do {
            if let paramsType = info?.paramsType, let text = arguments.param {
                guard let params = ParameterText.value(text, as: paramsType) else {
                    return failed("cannot make \(paramsType) from '\(text)' "
                                  + "(the host makes String, integer, floating point and Bool parameters)")
                }
                service = try await locator.anyService(storeKey: key, params: params)
            } else if let paramsType = info?.paramsType, !paramsType.hasPrefix("Swift.Optional<") {
                return failed("the slot takes parameters (\(paramsType)): pass --param VALUE")
            } else if arguments.param != nil, info != nil {
                // (No slot at all: the get below says there is no service for the key.)
                return failed("the slot takes no parameters, and --param was given")
            } else {
                service = try await locator.anyService(storeKey: key)
            }
        } catch {
            return failed("\(error)")
        }
        if arguments.json {
            Output.json(encodeJSON(Resolved(key: key, type: info?.serviceType, params: info?.paramsType,
                                            param: arguments.param, mode: info?.mode.rawValue, async: info?.isAsync ?? false,
                                            plugin: info?.origin, service: String(describing: service))))
        } else {
            if let info { Output.line(info.description) }
            Output.line(String(describing: service))
        }
        return true
    }

    /// What `resolve --json` prints: every field, null where there is nothing to say.
    private struct Resolved: JSONRecord {
        let key: String
        let type: String?
        /// The type of the slot's parameters.
        let params: String?
        /// The `--param` given.
        let param: String?
        let mode: String?
        let async: Bool
        let plugin: String?
        let service: String
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("type", type), ("params", params), ("param", param), ("mode", mode), ("async", async),
             ("plugin", plugin), ("service", service)]
        }
    }

    /// What `resolve --json` prints when there is no service: the key, the `--param` given, and why.
    private struct ResolveFailure: JSONRecord {
        let key: String
        let param: String?
        let error: String
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("param", param), ("error", error)]
        }
    }
}
