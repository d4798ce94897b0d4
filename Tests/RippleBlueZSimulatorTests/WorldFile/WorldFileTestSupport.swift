import Foundation
import Testing

@testable import RippleBlueZSimulator

/// Decodes JSON world files as the executable does, for the world-file tests.
enum WorldJSON {
    static func decode(_ json: String) throws(SimulatorError) -> WorldDescription {
        try WorldDescription.decode { try JSONDecoder().decode(WorldDescription.self, from: Data(json.utf8)) }
    }

    static func world(_ json: String) throws(SimulatorError) -> SimulatedWorld {
        try decode(json).makeWorld()
    }

    /// The message of the `invalidWorld` error `json` gives, or nil when it gives none.
    static func problem(_ json: String) -> String? {
        do {
            _ = try world(json)
            return nil
        } catch {
            guard case .invalidWorld(let message) = error else { return "unexpected \(error)" }
            return message
        }
    }

    /// The example world file `name` in Tools/Examples/Worlds.
    static func example(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Tools/Examples/Worlds/\(name)"), encoding: .utf8)
    }

    /// `{"peripherals": [peripheral]}`.
    static func onePeripheral(_ peripheral: String) -> String {
        #"{"peripherals": [\#(peripheral)]}"#
    }

    /// A world with one described peripheral whose services are `services`.
    static func services(_ services: String) -> String {
        onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "services": [\#(services)]}"#)
    }

    /// A world with one described service whose characteristics are `characteristics`.
    static func characteristics(_ characteristics: String) -> String {
        services(#"{"uuid": "ffe0", "characteristics": [\#(characteristics)]}"#)
    }
}
