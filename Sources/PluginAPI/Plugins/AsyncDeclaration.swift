/// A key that declares an async slot (``AsyncSlotKey``), with the parameters type of the key it wraps.
protocol AsyncDeclaration {
    var declaredParams: Any.Type? { get }
}
