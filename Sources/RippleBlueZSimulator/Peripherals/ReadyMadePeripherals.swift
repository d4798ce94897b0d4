extension SimulatedPeripheral {
    /// The Device Information of the ready-made heart-rate monitor at `address`.
    ///
    /// - Parameter address: the monitor's address (its System ID comes from it).
    /// - Returns: the information.
    public static func heartRateMonitorInformation(address: BluetoothAddress) -> SimulatedDeviceInformation {
        SimulatedDeviceInformation(
            manufacturerName: "Ripple Devices", modelNumber: "RHM-1", serialNumber: "RHM1-0000417",
            hardwareRevision: "B2", firmwareRevision: "1.4.2", softwareRevision: "1.4.2",
            systemID: SimulatedDeviceInformation.systemID(for: address),
            pnpID: SimulatedPnPID(vendorID: 0xFFFF, productID: 0x0001, productVersion: 0x0142))
    }

    /// A chest-strap heart-rate monitor, as such straps are: it advertises its name and the Heart Rate
    /// service (0x180D) with the Heart Rate Belt appearance (0x0341), and serves the Heart Rate service
    /// (``SimulatedService/heartRate(measurements:rate:location:)``: a measurement a second while a
    /// client listens), the Battery service at `batteryLevel` and Device Information (manufacturer
    /// "Ripple Devices", model "RHM-1", serial, revisions, a System ID from the address, a PnP ID).
    ///
    /// - Parameters:
    ///   - address: its address.
    ///   - name: its advertised name.
    ///   - rssi: its signal strength in dBm.
    ///   - batteryLevel: its battery level in percent.
    ///   - measurements: the heart-rate measurements notified in turn.
    ///   - rate: measurements per second.
    /// - Returns: the peripheral.
    public static func heartRateMonitor(
        address: BluetoothAddress = "C0:FF:EE:00:00:01", name: String = "Ripple HRM", rssi: Int16 = -55,
        batteryLevel: UInt8 = 87,
        measurements: [SimulatedHeartRateMeasurement] = SimulatedHeartRateMeasurement.restingMinute,
        rate: Double = 1
    ) -> SimulatedPeripheral {
        SimulatedPeripheral(
            address: address, name: name, appearance: 0x0341, rssi: rssi, rssiVariation: 3,
            advertisedServices: [.heartRate],
            services: [
                .heartRate(measurements: measurements, rate: rate, location: .chest),
                .battery(level: batteryLevel),
                .deviceInformation(heartRateMonitorInformation(address: address)),
            ])
    }

    /// A development board with an LED and a button (``SimulatedService/ledButton(ledOn:buttonPresses:)``),
    /// advertising its name and its vendor service, with a Battery service at `batteryLevel` and Device
    /// Information (manufacturer "Ripple Devices", model "RLB-1").
    ///
    /// - Parameters:
    ///   - address: its address.
    ///   - name: its advertised name.
    ///   - rssi: its signal strength in dBm.
    ///   - batteryLevel: its battery level in percent.
    ///   - ledOn: whether the LED is on at first.
    ///   - buttonPresses: button presses notified while a client listens; nil for none.
    /// - Returns: the peripheral.
    public static func ledButton(
        address: BluetoothAddress = "C0:FF:EE:00:00:02", name: String = "Ripple LED", rssi: Int16 = -65,
        batteryLevel: UInt8 = 100, ledOn: Bool = false, buttonPresses: NotificationSource? = nil
    ) -> SimulatedPeripheral {
        SimulatedPeripheral(
            address: address, name: name, rssi: rssi, rssiVariation: 2, advertisedServices: [.ledButtonService],
            services: [
                .ledButton(ledOn: ledOn, buttonPresses: buttonPresses),
                .battery(level: batteryLevel),
                .deviceInformation(
                    SimulatedDeviceInformation(
                        manufacturerName: "Ripple Devices", modelNumber: "RLB-1", serialNumber: "RLB1-0000023",
                        firmwareRevision: "0.9.0", systemID: SimulatedDeviceInformation.systemID(for: address),
                        pnpID: SimulatedPnPID(vendorID: 0xFFFF, productID: 0x0002, productVersion: 0x0090))),
            ])
    }
}
