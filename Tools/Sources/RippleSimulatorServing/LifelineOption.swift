import ArgumentParser

/// `--exit-when-stdin-closes`, for the commands that run until they are stopped: they stop when their standard
/// input reaches its end as well (``StandardInputLifeline``).
public struct LifelineOption: ParsableArguments {
    @Flag(
        name: .customLong("exit-when-stdin-closes"),
        help: ArgumentHelp(
            "Stop, as on SIGTERM, when standard input reaches its end (and exit at once if stopping takes over "
                + "5 s). Started with a pipe on standard input that only its starter holds, it ends with the "
                + "starter however that ends, SIGKILL included. A terminal on standard input is not watched "
                + "(reading it would stop a background job with SIGTTIN): stop it with Ctrl-C or SIGTERM."))
    public var exitsWhenStandardInputCloses = false

    /// The flag unset.
    public init() {}

    /// Starts watching standard input when the flag is set (call it first thing in `run()`).
    public func start() {
        if exitsWhenStandardInputCloses { StandardInputLifeline.watch() }
    }
}
