import ArgumentParser
import Foundation
import Ripple
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble scan`: the peripherals around, as a live table sorted by signal strength or as JSON lines.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Discover peripherals: a live table, strongest first, or JSON lines with --json.",
        discussion: """
            On a terminal the table is redrawn as advertisements arrive; otherwise it is printed once at the \
            end. With --json each advertisement is one JSON object on its own line, as it arrives.
            """)

    @OptionGroup var target: TargetOptions

    @Option(help: "Scan for this many seconds (0: until interrupted).")
    var duration: Double = 10

    @Option(help: ArgumentHelp("Only peripherals advertising this service (repeatable).", valueName: "uuid"))
    var service: [String] = []

    @Option(help: "Only peripherals whose name starts with this.")
    var namePrefix: String?

    @Flag(help: "Print each advertisement as a JSON line instead of the table.")
    var json = false

    @OptionGroup var lifeline: LifelineOption

    func validate() throws {
        if !(duration >= 0) || !duration.isFinite {
            throw ValidationError("--duration must be 0 or a positive number of seconds")
        }
        for uuid in service { _ = try ArgumentParsing.characteristic(uuid) }
    }

    func run() async throws {
        lifeline.start()
        try await runReportingFailures {
            let services = try service.map { try ArgumentParsing.characteristic($0).uuid }
            let filter = DiscoveryFilter(services: services, namePrefix: namePrefix)
            try await BluetoothSession.with(target) { session in
                var table = ScanTable(live: !json && isatty(1) == 1, json: json)
                let scanning: AnyPublisher<ScanTable.Event, BluetoothError> =
                    json
                    ? session.central.startDiscovery(filter: filter).map(ScanTable.Event.advertisement)
                        .eraseToAnyPublisher()
                    : session.central.availablePeripherals(filter: filter).map(ScanTable.Event.list)
                        .eraseToAnyPublisher()
                // Ends after --duration, or at Ctrl-C (then the table is still printed).
                let end =
                    duration > 0
                    ? Deadline.after(duration, on: session).merge(with: Deadline.interrupted()).eraseToAnyPublisher()
                    : Deadline.interrupted()
                let bounded = scanning.prefix(untilOutputFrom: end)
                for try await event in bounded.values {
                    table.show(event)
                }
                table.finish()
            }
        }
    }
}

/// What `scan` prints: the table (redrawn live on a terminal) or JSON lines.
struct ScanTable {
    enum Event: Sendable {
        case advertisement(PeripheralDiscovery)
        case list([PeripheralDiscovery])
    }

    private let live: Bool
    private let json: Bool
    private var latest: [PeripheralDiscovery] = []
    private var drawnLines = 0

    /// A table redrawn as lists arrive when `live`, printed once at the end otherwise; nothing but the
    /// JSON lines when `json`.
    init(live: Bool, json: Bool) {
        self.live = live
        self.json = json
    }

    /// Shows an event: a JSON line for an advertisement; for a list, a redraw when live.
    mutating func show(_ event: Event) {
        switch event {
        case .advertisement(let discovery):
            Output.line(Self.json(discovery))
        case .list(let list):
            latest = list
            if live { draw() }
        }
    }

    /// Prints the final table when it was not drawn live.
    mutating func finish() {
        if !json && !live && drawnLines == 0 { draw() }
    }

    private mutating func draw() {
        let lines = Self.lines(latest)
        var text = ""
        if drawnLines > 0 { text += "\u{1B}[\(drawnLines)A\u{1B}[J" }
        text += lines.joined(separator: "\n") + "\n"
        FileHandle.standardOutput.write(Data(text.utf8))
        drawnLines = lines.count
    }

    /// The table: a header, then a row per peripheral, strongest first.
    static func lines(_ list: [PeripheralDiscovery]) -> [String] {
        let header = ["ADDRESS", "RSSI", "NAME", "SERVICES"]
        let rows = list.map { discovery in
            [
                discovery.address.description, discovery.rssi.map { "\($0)" } ?? "?", discovery.name ?? "",
                discovery.serviceUUIDs.map { $0.name ?? $0.description }.joined(separator: ", "),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return [line(header)] + rows.map(line) + ["\(list.count) peripheral\(list.count == 1 ? "" : "s")"]
    }

    /// One advertisement as a JSON object.
    static func json(_ discovery: PeripheralDiscovery) -> String {
        var object: [String: Any] = ["address": discovery.address.description]
        if let name = discovery.name { object["name"] = name }
        if let rssi = discovery.rssi { object["rssi"] = rssi }
        if let txPower = discovery.txPower { object["txPower"] = txPower }
        if let type = discovery.addressType { object["addressType"] = type.rawValue }
        object["services"] = discovery.serviceUUIDs.map(\.uuidString)
        object["manufacturerData"] = Dictionary(
            uniqueKeysWithValues: discovery.manufacturerData.map { (String($0.key), ValueFormat.compactHex($0.value)) })
        object["serviceData"] = Dictionary(
            uniqueKeysWithValues: discovery.serviceData.map { ($0.key.uuidString, ValueFormat.compactHex($0.value)) })
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Publishers that emit once when a command should stop.
enum Deadline {
    /// Emits once when SIGINT or SIGTERM arrives (which then no longer kill the process), or standard input
    /// closes under `--exit-when-stdin-closes`.
    static func interrupted() -> AnyPublisher<Void, Never> {
        let signal = PassthroughSubject<Void, Never>()
        Task {
            _ = await Termination.wait()
            signal.send(())
        }
        return signal.eraseToAnyPublisher()
    }

    /// Emits once, `seconds` from now, and finishes.
    static func after(_ seconds: Double, on session: BluetoothSession) -> AnyPublisher<Void, Never> {
        Just(()).delay(for: .seconds(seconds), scheduler: session.central.loop).eraseToAnyPublisher()
    }
}
