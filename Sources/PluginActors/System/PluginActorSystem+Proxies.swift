import Distributed

extension PluginActorSystem {
    /// A proxy, made with this system, of the actor `id`, as the `$Contract` stub type `stub`
    /// (`$Greeter<PluginActorSystem>`) declares it: what a slot hands out for a service of another
    /// process. Sends nothing. Throws if `stub` is no stub of this system.
    @_spi(HostKit)
    public func proxy(of stub: any DistributedActor.Type, id: PluginActorID) throws -> any DistributedActor {
        func resolve<Stub: DistributedActor>(_: Stub.Type) throws -> any DistributedActor {
            guard let system = self as? Stub.ActorSystem, let stubID = id as? Stub.ID else {
                throw PluginActorError.unsupported("\(Stub.self) is not a stub of PluginActorSystem")
            }
            return try Stub.resolve(id: stubID, using: system)
        }
        return try resolve(stub)
    }
}
