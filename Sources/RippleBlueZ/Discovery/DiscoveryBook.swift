import Ripple
import RippleDBus

/// The central's discovery clients and bluetoothd's discovery session for them.
struct DiscoveryBook {
    struct Client {
        let filter: DiscoveryFilter
        let subject: PassthroughSubject<PeripheralDiscovery, BluetoothError>
        /// Waits through bluetoothd's or the adapter's absence instead of failing.
        var resumes = true
    }

    var clients: [Int: Client] = [:]
    /// Whether bluetoothd's discovery is on for this central (StartDiscovery answered, no stop since).
    var isOn = false
    /// Whether a start or stop is on its way.
    var isChanging = false
    /// Whether the clients changed since bluetoothd last got their merged filter.
    var filterIsStale = false
    /// Connection attempts under way pause discovery.
    var pausedBy = 0

    /// Whether discovery should be on.
    var wanted: Bool { !clients.isEmpty && pausedBy == 0 }
}
