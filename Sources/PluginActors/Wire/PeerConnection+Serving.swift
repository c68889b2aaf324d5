import Distributed

/// The calls the other process makes, which this side serves: each on the serving executor, on the
/// actor its service name is served by, a method of that service's contract only.
extension PeerConnection {
    /// Starts serving the call `id`, whose frame's body is `body` (the call's to keep), with the
    /// headers the body holds if it is a ``Frame/Kind/callWithHeaders``.
    func startServing(_ id: UInt64, body: ArraySlice<UInt8>, withHeaders: Bool = false) {
        var reader = FrameReader(body)
        guard let name = try? reader.shortText(), let target = try? reader.shortText() else {
            reply(to: id, failure: .invalidMessage, type: "", message: "the call's name or target is cut short")
            return
        }
        var headers: [String: String] = [:]
        if withHeaders {
            guard let read = Self.headers(from: &reader) else {
                reply(to: id, failure: .invalidMessage, type: "", message: "the call's headers are cut short, repeated or too many")
                return
            }
            headers = read
        }
        let arguments = reader.rest
        state.withLock { $0.serving[id] = .starting }
        // On the serving executor's threads, not the cooperative pool, which the process may block.
        // Timed only for an observer (a host that keeps traces of its plugins' calls), never a service of the system's own.
        let observer = name.hasPrefix("__") ? nil : system.servedObserver.withLock { $0 }
        let task = Task(executorPreference: ServingExecutor.shared) {
            let start = observer == nil ? 0 : PluginActorSystem.wallClockNow()
            let failure = await PluginCallContext.withHeaders(headers) {
                await self.answer(id, name: name, target: target, arguments: arguments, noting: observer != nil)
            }
            if let observer {
                observer(PluginActorSystem.ServedCall(service: name, method: TargetName.method(target), start: start,
                                                      end: PluginActorSystem.wallClockNow(), headers: headers, failure: failure))
            }
            self.state.withLock { _ = $0.serving.removeValue(forKey: id) }
        }
        state.withLock { state in
            if case .starting? = state.serving[id] { state.serving[id] = .running(task) }
        }
    }

    /// The headers of a call (``PluginCallContext``): a count, then each name and value; nil if they
    /// are cut short, name one header twice, or are more or longer than a call may carry (a peer is
    /// held to the limits its callers are).
    private static func headers(from reader: inout FrameReader) -> [String: String]? {
        guard let count = try? reader.integer(UInt16.self), Int(count) <= PluginCallContext.maximumCount else { return nil }
        var headers: [String: String] = [:]
        for _ in 0..<count {
            guard let name = try? reader.shortText(), let value = try? reader.shortText(), headers[name] == nil else { return nil }
            headers[name] = value
        }
        return PluginCallContext.refusal(of: headers) == nil ? headers : nil
    }

    /// Cancels the task that serves the call `id`, if it runs.
    func cancelServing(_ id: UInt64) {
        if case let .running(task)? = state.withLock({ $0.serving[id] }) { task.cancel() }
    }

    /// Runs the call on the service `name` and sends its outcome; with `noting`, returns the failure
    /// sent, if one was (nil: the method returned).
    private func answer(_ id: UInt64, name: String, target: String, arguments: ArraySlice<UInt8>, noting: Bool) async -> String? {
        var handler = PluginResultHandler { [weak self] kind, bytes in
            guard let self else { return }
            _ = self.outbox.send(parts: Frame.parts(kind, call: id, tail: bytes))
        }
        let failure = noting ? Lock<String?>(nil) : nil
        if let failure { handler.noteFailure = { text in failure.withLock { $0 = text } } }
        await answer(name: name, target: target, arguments: arguments, handler: handler)
        return failure?.withLock { $0 }
    }

    /// Runs the call on the service `name` and hands its outcome to `handler`.
    private func answer(name: String, target: String, arguments: ArraySlice<UInt8>, handler: PluginResultHandler) async {
        let actor: any DistributedActor
        do {
            let served = try await serve(name)
            actor = served.actor
            // A target is code of whatever type it names: run on this actor only a method of the
            // contract it is served by, or the runtime would run another type's on its memory.
            guard isMethod(target, of: served.contract) else {
                handler.onFailure(.notServed, type: "", message: "\(TargetName.readable(target)) is not a method of "
                                  + "\(TargetName.contract(of: served.contract).replacing(".$", with: ".")), which '\(name)' is served by")
                return
            }
        } catch {
            handler.onFailure(.notServed, type: "", message: "no service '\(name)' here: \(error)")
            return
        }
        // A proxy of a third process's service (a host lends one plugin's to another's process): the
        // call goes on to that process as it came. The runtime cannot run a contract's method on a
        // `$Contract` proxy served so: the host crashed in the stub's metadata.
        if __isRemoteActor(actor), let id = actor.id as? PluginActorID {
            await relay(to: id, target: target, arguments: arguments, handler: handler)
            return
        }
        do {
            var decoder = try PluginInvocationDecoder(arguments: arguments, actorType: type(of: actor))
            try await system.executeDistributedTarget(on: actor, target: RemoteCallTarget(target),
                                                      invocationDecoder: &decoder, handler: handler)
        } catch {
            if let (reason, message) = PluginResultHandler.callFailure(error) {
                handler.onFailure(reason, type: "", message: message)
                return
            }
            handler.onFailure(.notServed, type: String(reflecting: type(of: error as Any)), message: "\(error)")
        }
    }

    /// Passes a call on to the process that serves `id` and its reply back, unread: a value, nothing,
    /// or a failure as it came; an error of the call itself (that process ended, the timeout) as thrown.
    private func relay(to id: PluginActorID, target: String, arguments: ArraySlice<UInt8>, handler: PluginResultHandler) async {
        do {
            switch try await system.forward(to: id, target: target, arguments: Array(arguments)) {
            case let .value(bytes): handler.reply(.value, Array(bytes))
            case .void: handler.reply(.void, [])
            case let .failure(failure?): handler.onFailure(failure.reason, type: failure.type, message: failure.message)
            case .failure(nil): handler.onFailure(.invalidMessage, type: "", message: "\(id.peer) failed with a reply that could not be read")
            }
        } catch {
            try? await handler.onThrow(error: error)
        }
    }

    /// True if `target` is a method of the contract whose stub is `contract` (remembered per contract).
    private func isMethod(_ target: String, of contract: any DistributedActor.Type) -> Bool {
        let key = ObjectIdentifier(contract)
        if state.withLock({ $0.checkedTargets[key]?.contains(target) == true }) { return true }
        guard TargetName.isMethod(target, of: contract) else { return false }
        state.withLock { _ = $0.checkedTargets[key, default: []].insert(target) }
        return true
    }

    private func reply(to id: UInt64, failure reason: Frame.Failure.Reason, type: String, message: String) {
        PluginResultHandler { [weak self] kind, bytes in
            guard let self else { return }
            _ = self.outbox.send(Frame.bytes(kind, call: id) { $0.append(contentsOf: bytes) })
        }.onFailure(reason, type: type, message: message)
    }
}
