import ProcessSignals

/// HostKit's lock: the package's one lock type, a value guarded by an `NSLock`, declared in
/// ProcessSignals (the target every other one can depend on).
typealias Lock<Value> = ProcessSignals.Lock<Value>
