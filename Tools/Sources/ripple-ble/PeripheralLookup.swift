import ArgumentParser
import Ripple
import RippleBlueZ
import RippleLoop
import RippleSimulatorServing

/// Turning an address from the command line into a connected peripheral.
extension BluetoothSession {
    /// Connects to the peripheral with `address`, scanning for it first when bluetoothd does not know it.
    /// Throws `BluetoothError.Kind.timeout` when it is not seen or does not connect within `limit`.
    func connect(_ address: BluetoothAddress, within limit: Duration) async throws(BluetoothError) -> Peripheral {
        if central.peripheral(address: address) == nil {
            Output.progress("scanning for \(address)…")
            let seen = central.startDiscovery().first { $0.address == address }
                .timeout(.seconds(limit / .seconds(1)), scheduler: central.loop) {
                    BluetoothError(.timeout, "\(address) was not seen within \(limit)")
                }
            try await firstValue(of: seen, "scanning for \(address)")
        }
        Output.progress("connecting to \(address)…")
        return try await central.connectPeripheral(to: address, timeout: limit)
    }
}

/// The first value of `publisher`; throws its error, or a failure naming `operation` if it ends empty.
@discardableResult
func firstValue<P: Publisher>(of publisher: P, _ operation: String) async throws(BluetoothError) -> P.Output
where P.Failure == BluetoothError, P.Output: Sendable {
    do {
        for try await value in publisher.first().values { return value }
    } catch let error as BluetoothError {
        throw error
    } catch {
        throw BluetoothError(.cancelled, "\(operation) was cancelled")
    }
    throw BluetoothError(.failed, "\(operation) ended without a value")
}

/// Arguments naming a peripheral and one of its characteristics.
enum ArgumentParsing {
    /// `text` as a Bluetooth address; throws a `ValidationError` unless it is six hexadecimal bytes
    /// separated by colons.
    static func address(_ text: String) throws -> BluetoothAddress {
        do {
            return try BluetoothAddress(text)
        } catch {
            throw ValidationError("\"\(text)\" is not a Bluetooth address (six hexadecimal bytes: C0:FF:EE:00:00:01)")
        }
    }

    /// `text` as a characteristic: `2a37`, `0x2A37`, a 128-bit UUID, or `SERVICE/CHARACTERISTIC` to name
    /// the service too.
    static func characteristic(_ text: String) throws -> CharacteristicReference {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2 else {
            throw ValidationError("\"\(text)\" is not a characteristic (UUID or SERVICE/UUID)")
        }
        do {
            let uuid = try BluetoothUUID(String(parts[parts.count - 1]))
            let service = parts.count == 2 ? try BluetoothUUID(String(parts[0])) : nil
            return CharacteristicReference(uuid, in: service)
        } catch {
            throw ValidationError("\"\(text)\" is not a characteristic: \(error)")
        }
    }
}
