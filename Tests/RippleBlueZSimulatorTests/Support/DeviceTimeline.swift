import Ripple
import RippleDBus
import Synchronization
import Testing

@testable import RippleBlueZSimulator

/// What the suites pinning bluetoothd 5.66's behaviour share: a world with one monitor, and the
/// device's signals as a readable timeline.
enum DeviceTimeline {
    static let service = monitorPath + "/service0001"
    static let level = service + "/char0002"  // 0xAAA1: read, notify
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let noOptions = DBusValue.stringVariantDictionary([:])

    static func world(_ services: [SimulatedService]? = nil) -> SimulatedWorld {
        var peripheral = monitor(known: true)
        peripheral.services =
            services ?? [
                SimulatedService(
                    uuid: 0xAAA0,
                    characteristics: [
                        SimulatedCharacteristic(uuid: 0xAAA1, flags: [.read, .notify], value: [1])
                    ])
            ]
        return SimulatedWorld(peripherals: [.init(peripheral)])
    }

    /// The device's property changes (`Name=…` per signal, names sorted) and the interfaces added and
    /// removed at and below it (`+service0001`, `-Battery1` for the device's own), in order.
    static func timeline(_ messages: [DBusMessage]) -> [String] {
        messages.compactMap { message -> String? in
            switch message.member {
            case "PropertiesChanged":
                guard message.path?.description == monitorPath, let change = message.propertiesChange,
                    message.body.first?.string == deviceInterface
                else { return nil }
                return change.changed.keys.sorted().map {
                    "\($0)=\(change.changed[$0].map { "\($0.unwrappingVariants)" } ?? "")"
                }
                .joined(separator: ",")
            case "InterfacesAdded", "InterfacesRemoved":
                guard let path = message.body.first?.objectPath?.description, path.hasPrefix(monitorPath) else {
                    return nil
                }
                let sign = message.member == "InterfacesAdded" ? "+" : "-"
                if path == monitorPath {
                    let names =
                        message.member == "InterfacesAdded"
                        ? (message.body.dropFirst().first?.dictionaryEntries ?? []).compactMap(\.key.string)
                        : (message.body.dropFirst().first?.arrayElements ?? []).compactMap(\.string)
                    return names.filter { $0 != deviceInterface }.map {
                        sign + $0.replacingOccurrences(of: "org.bluez.", with: "")
                    }
                    .joined(separator: ",")
                }
                return sign + path.dropFirst(monitorPath.count + 1)
            default:
                return nil
            }
        }
    }

    static func log(_ fixture: SimulatorFixture) async throws -> SignalLog {
        let log = SignalLog(fixture.client.signals(matching: DBusMatchRule(sender: "org.bluez")))
        for try await _ in fixture.client.synchronize().values {}
        return log
    }

    static func disconnect(_ fixture: SimulatorFixture, _ log: SignalLog) async throws {
        _ = try await fixture.call(monitorPath, deviceInterface, "Disconnect")
        _ = await log.wait { timeline($0).last == "Connected=false" }
    }
}
