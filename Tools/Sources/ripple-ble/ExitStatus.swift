import ArgumentParser
import RippleBlueZ
import RippleSimulatorServing

/// The exit statuses a script can rely on, and printing a failure with the fix for it.
enum ExitStatus {
    /// A Bluetooth operation failed: refused, link lost, a value that is not what was expected.
    static let operationFailed = ExitCode(1)
    /// `listen` or `bench` found lost or reordered notifications.
    static let lossFound = ExitCode(3)
    /// No bluetoothd, no adapter, or the adapter is powered off (`EX_UNAVAILABLE`).
    static let unavailable = ExitCode(69)
    /// Gave up waiting (`EX_TEMPFAIL`).
    static let timedOut = ExitCode(75)
    /// The system bus refuses this user (`EX_NOPERM`).
    static let permissionDenied = ExitCode(77)

    /// Prints `error` (and, for the usual causes, how to fix them) on standard error and returns the
    /// exit status for it. An `ExitCode` passes through unprinted.
    static func report(_ error: any Error) -> ExitCode {
        if let code = error as? ExitCode { return code }
        guard let bluetooth = error as? BluetoothError else {
            Output.error("error: \(error)")
            return operationFailed
        }
        Output.error("error: \(bluetooth)")
        if let hint = hint(for: bluetooth.kind) { Output.error("fix: \(hint)") }
        switch bluetooth.kind {
        case .bluetoothUnavailable, .noAdapter, .poweredOff: return unavailable
        case .unauthorized: return permissionDenied
        case .timeout: return timedOut
        default: return operationFailed
        }
    }

    /// What usually fixes a failure of `kind`.
    static func hint(for kind: BluetoothError.Kind) -> String? {
        switch kind {
        case .bluetoothUnavailable:
            "start bluetoothd (systemctl start bluetooth), or use --simulated"
        case .unauthorized:
            "the system bus lets only root and the bluetooth group talk to bluetoothd: "
                + "sudo usermod -aG bluetooth $USER, then log in again"
        case .noAdapter:
            "no Bluetooth adapter is present or the named one is missing (bluetoothctl list; plug one in)"
        case .poweredOff:
            "power the adapter on: bluetoothctl power on (and rfkill unblock bluetooth if it is blocked)"
        case .peripheralNotFound:
            "the peripheral was not found: is it advertising and in range? (ripple-ble scan)"
        case .insufficientAuthentication:
            "the peripheral wants pairing first (bluetoothctl pair <address>)"
        case .timeout:
            "it took longer than --timeout; move closer or give it longer"
        default:
            nil
        }
    }
}

/// Runs a command's body, turning its failure into a printed error and the matching exit status.
func runReportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw ExitStatus.report(error)
    }
}
