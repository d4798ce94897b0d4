import ArgumentParser
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble doctor`: what stands between this machine and working Bluetooth, with a fix per problem.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check bluetoothd, bus access, adapters, power and kill switches; print a fix for each problem.",
        discussion:
            "Exits 0 when every check passes and 1 when one fails. It never falls back to the simulator unless --simulated."
    )

    @OptionGroup var target: TargetOptions

    func run() async throws {
        var options = target
        options.real = !(target.simulated || target.world != nil)
        let report: BluetoothReport
        do {
            let session = try await BluetoothSession.open(options, requireReady: false)
            report = await session.central.troubleshoot()
            await session.close()
        } catch {
            throw ExitStatus.report(error)
        }
        Output.line(report.description)
        if !report.isHealthy { throw ExitStatus.operationFailed }
    }
}
