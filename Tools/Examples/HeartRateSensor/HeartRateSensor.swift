// A heart-rate sensor served from Linux: this machine as the peripheral — the Heart Rate service with its
// measurement (notified once a second while a central listens), body sensor location and control point —
// advertised so that a phone app (or any central) finds it.
//
//   swift run --package-path Tools ripple-example-heart-rate-sensor            # on the built-in simulator
//   swift run --package-path Tools ripple-example-heart-rate-sensor --real     # on bluetoothd (hci0)
//
// On the simulator the sensor serves on hci1 and a Ripple central on hci0 connects to it and prints what
// it receives; with --real it serves until it has sent --count measurements to a listening central.
import ArgumentParser
import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleExampleOptions
import RippleExampleSupport

@main
struct HeartRateSensor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-example-heart-rate-sensor",
        abstract: "Serves a heart-rate sensor (on the built-in simulator unless --real).")

    @OptionGroup var bluetooth: BluetoothOptions

    @OptionGroup var count: MeasurementCount

    func run() async throws {
        let count = count.value
        let bluetooth = self.bluetooth
        try await exitingOnFailure { try await serve(bluetooth, count: count) }
    }

    /// Serves the sensor: on bluetoothd with `--real`, otherwise on the built-in simulator with a central
    /// that listens to it.
    private func serve(_ bluetooth: BluetoothOptions, count: Int) async throws {
        if bluetooth.real {
            let adapter = bluetooth.adapter ?? "hci0"
            try await ExampleSession.serve {
                let sensor = try Sensor(manager: PeripheralManager(adapter: adapter, services: [Sensor.service]))
                print("Serving \"Ripple HRS\" on \(adapter); waiting for a central to listen…")
                try await sensor.run(measurements: count)
            }
        } else {
            try await ExampleSession.serveOnSimulator(timeout: bluetooth.timeout) { bus in
                let sensor = try Sensor(
                    manager: PeripheralManager(bus: bus, adapter: "hci1", services: [Sensor.service]))
                let central = try Central(bus: bus, adapter: "hci0")
                defer { central.close() }
                try await central.waitUntilReady()
                async let served: Void = sensor.run(measurements: count, untilUnsubscribed: true)
                print("Serving \"Ripple HRS\" on hci1; a central on hci0 scans for it…")
                let measurements = central.startDiscovery(filter: .services([.heartRate]))
                    .first()
                    .connect(on: central)
                    .listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
                var received = 0
                for try await measurement in measurements.values {
                    print("central on hci0 received: \(measurement)")
                    received += 1
                    // Leaving the loop stops listening: the sensor sees it and stops serving.
                    if received == count { break }
                }
                try await served
            }
        }
    }
}

/// The sensor: its service, and the loop that notifies a measurement a second while a central listens.
struct Sensor: Sendable {
    static let service = LocalService(.heartRate) {
        LocalCharacteristic(.heartRateMeasurement, properties: [.notify])
        LocalCharacteristic(.bodySensorLocation, properties: [.read], value: [0x01])  // chest
        LocalCharacteristic(.heartRateControlPoint, properties: [.write])
    }

    let manager: PeripheralManager

    /// Registers, advertises, answers the control point and notifies `measurements` measurements to the
    /// listening centrals, one a second; then (when `untilUnsubscribed`, once no central listens any more)
    /// stops serving.
    func run(measurements: Int, untilUnsubscribed: Bool = false) async throws {
        var subscriptions: [AnyCancellable] = []
        defer {
            for subscription in subscriptions { subscription.cancel() }
            manager.close()
        }
        // Served while this subscription lasts; the second one only waits for the registration.
        manager.register()
            .sink(receiveCompletion: { print("registration ended: \($0)") }, receiveValue: { _ in })
            .store(in: &subscriptions)
        _ = try await manager.register().first { $0 == .registered }.values.first { _ in true }
        manager.advertise(Advertisement(localName: "Ripple HRS", serviceUUIDs: [.heartRate]))
            .sink(
                receiveCompletion: { print("advertising ended: \($0)") }, receiveValue: { print("advertising: \($0)") }
            )
            .store(in: &subscriptions)
        // Heart Rate Control Point: 0x01 resets the energy expended; anything else is "not supported" (0x80).
        manager.writes(to: .heartRateControlPoint)
            .sink(receiveCompletion: { _ in }) { request in
                request.respond(request.value == [0x01] ? .success(()) : .failure(.application(0x80)))
            }
            .store(in: &subscriptions)
        var sent = 0
        while sent < measurements {
            _ = try await manager.isSubscribed(.heartRateMeasurement).first { $0 }.values.first { _ in true }
            let measurement = HeartRateMeasurement(beatsPerMinute: 60 + sent % 30, sensorContact: .detected)
            if try manager.send(measurement, on: .heartRateMeasurement) {
                sent += 1
                print("sent \(measurement)")
            }
            try await Task.sleep(for: .seconds(1))
        }
        if untilUnsubscribed {
            _ = try await manager.isSubscribed(.heartRateMeasurement).first { !$0 }.values.first { _ in true }
        }
    }
}
