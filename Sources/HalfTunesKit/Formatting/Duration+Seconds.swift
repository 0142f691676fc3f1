extension Duration {
    /// The duration in seconds, fractions included (a rate's divisor, a wait on the wire).
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
