import RippleSimulatorServing

extension Output {
    /// A progress line on standard error (the results on standard output stay clean for scripts).
    static func progress(_ line: String) {
        note(line + "\n")
    }
}
