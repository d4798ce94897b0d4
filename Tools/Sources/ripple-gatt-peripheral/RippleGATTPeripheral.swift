import ArgumentParser
import RippleDBus
import RippleLoop
import RippleSimulatorServing

/// `ripple-gatt-peripheral`: a BLE peripheral served by bluetoothd itself — a GATT application and an
/// advertisement registered through BlueZ's `GattManager1` and `LEAdvertisingManager1` — so that a central
/// on another adapter can be tested against real BlueZ (``Scripts/bluez-guest``'s virtual controllers).
@main
struct RippleGATTPeripheral: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-gatt-peripheral",
        abstract: "Serve a heart-rate monitor and a numbered notification stream through bluetoothd (GattManager1).",
        discussion: """
            Registers, on --adapter, one GATT application with three services — Heart Rate (0x180D: \
            measurement, body sensor location, control point), Battery (0x180F) and the Ripple stream \
            service 52495054-0000-4000-8000-0000000000b0 (b1: notifications of a little-endian UInt32 \
            sequence number and the CLOCK_MONOTONIC send time, --stream-count of them at --stream-rate per \
            second from each subscription; b3: a value written with or without response and read back) — \
            and an advertisement named --name with the Heart Rate and stream service UUIDs. The \
            advertisement is registered again every --readvertise seconds (virtual controllers report \
            advertisements only when advertising starts). Runs until SIGINT or SIGTERM (or, with \
            --exit-when-stdin-closes, the end of standard input).
            """)

    @Option(help: "The adapter that plays the peripheral.")
    var adapter = "hci1"

    @Option(help: "The advertised local name.")
    var name = "Ripple Guest"

    @Option(help: "Stream notifications per second.")
    var streamRate: Double = 500

    @Option(help: "Stream notifications per subscription (0: no end).")
    var streamCount = 1_000

    @Option(help: "Stream payload size in bytes (12 to 244).")
    var streamSize = 20

    @Option(help: "Register the advertisement again every this many seconds (0: never).")
    var readvertise: Double = 1

    @OptionGroup var lifeline: LifelineOption

    func validate() throws {
        guard streamRate > 0, streamRate.isFinite else { throw ValidationError("--stream-rate must be positive") }
        guard streamCount >= 0 else { throw ValidationError("--stream-count must be 0 or more") }
        guard (12...244).contains(streamSize) else { throw ValidationError("--stream-size must be within 12…244") }
        guard readvertise >= 0, readvertise.isFinite else { throw ValidationError("--readvertise must be 0 or more") }
    }

    func run() async throws {
        Output.commandName = "ripple-gatt-peripheral"
        lifeline.start()
        let application: PeripheralApplication
        do {
            let connection = try DBusConnection(bus: .system)
            application = try PeripheralApplication(
                connection: connection, adapter: adapter, name: name,
                stream: StreamSettings(rate: streamRate, count: streamCount, size: streamSize))
            try await application.register(readvertisingEvery: readvertise)
        } catch {
            Output.error("\(error)")
            throw ExitCode(1)
        }
        Output.line("serving \"\(name)\" on \(adapter)")
        let cause = await Termination.wait()
        Output.error("\(cause): stopping")
        await application.unregister()
    }
}
