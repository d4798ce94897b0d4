/// One measured situation: which path, how big the payloads, how fast the peripherals send, how many.
struct Scenario: Sendable {
    /// How the peripherals send.
    enum Pace: Sendable {
        /// As fast as the path takes them (throughput and CPU per notification).
        case flood
        /// At this many notifications per second in all (latency).
        case paced(Double)
    }

    /// `socket` (AcquireNotify) or `bus` (StartNotify).
    let transport: String
    let payloadSize: Int
    let pace: Pace
    let peripherals: Int
    /// Notifications in all (split evenly between the peripherals).
    let count: Int
    let iterations: Int
    let clients: [Client]

    /// "socket 20 B flood ×1".
    var name: String {
        let rate: String
        switch pace {
        case .flood: rate = "flood"
        case .paced(let perSecond): rate = "paced \(Int(perSecond))/s"
        }
        return "\(transport) \(payloadSize) B \(rate) ×\(peripherals)"
    }

    /// Notifications each peripheral sends.
    var countPerPeripheral: Int { count / peripherals }

    /// Notifications per second each peripheral sends (nil: as fast as possible).
    var ratePerPeripheral: Double? {
        if case .paced(let perSecond) = pace { return perSecond / Double(peripherals) }
        return nil
    }

    /// Every scenario of the suite, smaller counts when `quick`.
    static func all(quick: Bool) -> [Scenario] {
        let scale = quick ? 10 : 1
        var scenarios: [Scenario] = []
        for transport in ["socket", "bus"] {
            let peers: [Client] = transport == "socket" ? [.ripple, .cSocket, .bleak] : [.ripple, .cLibDBus, .bleak]
            let flood = transport == "socket" ? 100_000 : 50_000
            for size in [20, 244] {
                scenarios.append(
                    Scenario(
                        transport: transport, payloadSize: size, pace: .flood, peripherals: 1, count: flood / scale,
                        iterations: quick ? 1 : 5, clients: peers))
            }
            for rate in [2_000.0, 10_000.0] {
                scenarios.append(
                    Scenario(
                        transport: transport, payloadSize: 20, pace: .paced(rate), peripherals: 1,
                        count: Int(rate) * (quick ? 1 : 4), iterations: quick ? 1 : 5, clients: peers))
            }
            for peripherals in [8, 32] {
                scenarios.append(
                    Scenario(
                        transport: transport, payloadSize: 20, pace: .flood, peripherals: peripherals,
                        count: flood / scale, iterations: quick ? 1 : 3, clients: [peers[0], peers[1]]))
            }
        }
        return scenarios
    }
}

/// A client measured.
enum Client: String, Sendable {
    /// `ripple-ble bench`: RippleBlueZ's `listen`.
    case ripple = "Ripple"
    /// The minimal libdbus client (StartNotify).
    case cLibDBus = "C libdbus"
    /// The minimal socket reader (AcquireNotify).
    case cSocket = "C socket"
    /// bleak, on the path of the scenario.
    case bleak = "bleak"
}
