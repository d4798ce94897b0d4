extension SimulatedService {
    /// The Battery Level's Characteristic Presentation Format: `uint8` (0x04), exponent 0, unit percentage
    /// (0x27AD), namespace Bluetooth SIG (0x01), description 0x0000.
    public static let batteryLevelPresentationFormat: [UInt8] = [0x04, 0x00, 0xAD, 0x27, 0x01, 0x00, 0x00]

    /// The Battery service (0x180F) with its Battery Level (0x2A19, read and notify, one byte) at `level`
    /// percent (values above 100 are stored as 100), described by a Characteristic Presentation Format
    /// descriptor (0x2904) as devices commonly have. Its level changes when scripted (the simulator's
    /// `notify`), which notifies listening clients as a battery does.
    ///
    /// - Parameter level: the battery level in percent.
    /// - Returns: the service.
    public static func battery(level: UInt8 = 87) -> SimulatedService {
        SimulatedService(
            uuid: .battery,
            characteristics: [
                SimulatedCharacteristic(
                    uuid: .batteryLevel, flags: [.read, .notify], value: [min(level, 100)],
                    descriptors: [
                        SimulatedDescriptor(
                            uuid: .characteristicPresentationFormat, flags: [.read],
                            value: batteryLevelPresentationFormat)
                    ])
            ])
    }
}
