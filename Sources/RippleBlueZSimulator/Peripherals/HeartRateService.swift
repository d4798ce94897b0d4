extension SimulatedService {
    /// The Heart Rate Control Point's only command: reset the energy expended to 0.
    public static let heartRateResetCommand: UInt8 = 0x01

    /// The Heart Rate service (0x180D) of a chest strap:
    ///
    /// - Heart Rate Measurement (0x2A37, notify): while a client listens it notifies `measurements` in turn
    ///   at `rate` per second (once a second by default: a resting minute, see
    ///   ``SimulatedHeartRateMeasurement/restingMinute``), starting again after the last;
    /// - Body Sensor Location (0x2A38, read): `location`;
    /// - Heart Rate Control Point (0x2A39, write): `0x01` (Reset Energy Expended) is accepted and answered
    ///   by a measurement showing 0 kJ, notified on 0x2A37 (when notifications are on); any other value,
    ///   or an empty or longer write, fails with the service's ATT error 0x80 "Control Point Not
    ///   Supported" (bluetoothd: `org.bluez.Error.Failed` "Operation failed with ATT error: 0x80").
    ///
    /// An empty `measurements` falls back to the resting minute; a `rate` that is not a positive number is
    /// refused when the peripheral is added, like any notification source's.
    ///
    /// - Parameters:
    ///   - measurements: the measurements notified in turn, cycling.
    ///   - rate: measurements per second.
    ///   - location: the Body Sensor Location.
    /// - Returns: the service.
    public static func heartRate(
        measurements: [SimulatedHeartRateMeasurement] = SimulatedHeartRateMeasurement.restingMinute, rate: Double = 1,
        location: SimulatedBodySensorLocation = .chest
    ) -> SimulatedService {
        let cycle = measurements.isEmpty ? SimulatedHeartRateMeasurement.restingMinute : measurements
        var afterReset = cycle[0]
        afterReset.energyExpended = 0
        let resetAnswer = afterReset.bytes
        let controlPoint: GATTWriteHandler = { (request: GATTWriteRequest) throws(BlueZError) -> GATTWriteResponse in
            guard request.offset == 0, request.value == [heartRateResetCommand] else {
                throw BlueZError.attError(ReadyMadeATTError.controlPointNotSupported)
            }
            return GATTWriteResponse(
                storedValue: request.storedValue,
                notifications: [SimulatedNotification(resetAnswer, on: .heartRateMeasurement)])
        }
        return SimulatedService(
            uuid: .heartRate,
            characteristics: [
                SimulatedCharacteristic(
                    uuid: .heartRateMeasurement, flags: [.notify], value: cycle[0].bytes,
                    notificationSource: NotificationSource(rate: rate, payload: .cycle(cycle.map(\.bytes)))),
                SimulatedCharacteristic(uuid: .bodySensorLocation, flags: [.read], value: [location.rawValue]),
                SimulatedCharacteristic(uuid: .heartRateControlPoint, flags: [.write], onWrite: controlPoint),
            ])
    }
}
