import Testing

@testable import RippleBlueZSimulator

@Suite struct LEDButtonTests {
    private struct Device {
        let service: SimulatedService
        var led: SimulatedCharacteristic { service.characteristics[0] }
        var button: SimulatedCharacteristic { service.characteristics[1] }
        var controlPoint: SimulatedCharacteristic { service.characteristics[2] }

        func readLED(offset: Int = 0) throws(BlueZError) -> [UInt8] {
            guard let read = led.onRead else { return [] }
            return try read(GATTReadRequest(offset: offset, storedValue: led.value))
        }

        func command(_ bytes: [UInt8], mtu: Int = 23) throws(BlueZError) -> [SimulatedNotification] {
            guard let write = controlPoint.onWrite else { return [] }
            return try write(GATTWriteRequest(value: bytes, mtu: mtu)).notifications
        }
    }

    @Test func serviceLayoutAndFlags() {
        let device = Device(service: .ledButton())
        #expect(device.service.uuid == BluetoothUUID("5249504C-0000-4C45-4442-7574746F6E00"))
        #expect(device.service.characteristics.map(\.uuid) == [.ledState, .buttonState, .ledButtonControlPoint])
        #expect(device.led.flags == [.read, .write, .writeWithoutResponse])
        #expect(device.button.flags == [.read, .notify])
        #expect(device.button.value == [0])
        #expect(device.button.notificationSource == nil)
        #expect(device.controlPoint.flags == [.write, .notify])
        #expect(
            device.service.characteristics.map { $0.descriptors.first?.value } == [
                Array("LED".utf8), Array("Button".utf8), Array("Control Point".utf8),
            ])
        let pressing = NotificationSource(rate: 0.5, payload: .cycle([[1], [0]]))
        #expect(Device(service: .ledButton(buttonPresses: pressing)).button.notificationSource == pressing)
    }

    @Test func ledWritesAreCheckedAndShowInReads() throws {
        let device = Device(service: .ledButton(ledOn: true))
        #expect(device.led.value == [1])
        #expect(try device.readLED() == [1])
        #expect(try device.readLED(offset: 1) == [])
        #expect(throws: BlueZError.invalidArguments("Invalid offset")) { try device.readLED(offset: 2) }
        let write = try #require(device.led.onWrite)
        #expect(try write(GATTWriteRequest(value: [0], kind: .command)).storedValue == [0])
        #expect(try device.readLED() == [0])
        #expect(throws: BlueZError.invalidArguments("Invalid Length")) { try write(GATTWriteRequest(value: [1, 1])) }
        #expect(throws: BlueZError.invalidArguments("Invalid Length")) { try write(GATTWriteRequest(value: [])) }
        #expect(throws: BlueZError.attError(0x13)) { try write(GATTWriteRequest(value: [2])) }
        #expect(throws: BlueZError.invalidArguments("Invalid offset")) {
            try write(GATTWriteRequest(value: [1], offset: 1))
        }
        #expect(try device.readLED() == [0])
    }

    @Test func controlPointAnswersEachCommandWithANotification() throws {
        let device = Device(service: .ledButton())
        #expect(try device.command([0x02]) == [SimulatedNotification([0x10, 0x02, 0x01, 0x00])])
        #expect(try device.command([0x01, 0x01]) == [SimulatedNotification([0x10, 0x01, 0x01])])
        #expect(try device.readLED() == [1])
        #expect(try device.command([0x03]) == [SimulatedNotification([0x10, 0x03, 0x01, 0x00])])
        #expect(try device.readLED() == [0])
        #expect(try device.command([0x03]) == [SimulatedNotification([0x10, 0x03, 0x01, 0x01])])
        #expect(try device.command([0x04, 9, 8, 7]) == [SimulatedNotification([0x10, 0x04, 0x01, 9, 8, 7])])
        #expect(try device.command([0x04]) == [SimulatedNotification([0x10, 0x04, 0x01])])
    }

    @Test func controlPointReportsBadCommandsInItsAnswer() throws {
        let device = Device(service: .ledButton())
        #expect(try device.command([0x7F]) == [SimulatedNotification([0x10, 0x7F, 0x02])])
        #expect(try device.command([0x01]) == [SimulatedNotification([0x10, 0x01, 0x03])])
        #expect(try device.command([0x01, 0x02]) == [SimulatedNotification([0x10, 0x01, 0x03])])
        #expect(try device.command([0x01, 0x01, 0x01]) == [SimulatedNotification([0x10, 0x01, 0x03])])
        #expect(try device.command([0x02, 0x00]) == [SimulatedNotification([0x10, 0x02, 0x03])])
        #expect(try device.command([0x03, 0x00]) == [SimulatedNotification([0x10, 0x03, 0x03])])
        #expect(try device.readLED() == [0])
        #expect(throws: BlueZError.invalidArguments("Invalid Length")) { try device.command([]) }
    }

    @Test func controlPointAnswersFitTheMTU() throws {
        let device = Device(service: .ledButton())
        let long = [UInt8](repeating: 0x55, count: 40)
        let answer = try #require(try device.command([0x04] + long, mtu: 23).first)
        #expect(answer.value.count == 20)
        #expect(try device.command([0x04] + long, mtu: 247).first?.value.count == 43)
    }

    @Test func devicesDoNotShareTheirLED() throws {
        let first = Device(service: .ledButton())
        let second = Device(service: .ledButton())
        _ = try first.command([0x01, 0x01])
        #expect(try first.readLED() == [1])
        #expect(try second.readLED() == [0])
    }

    @Test func readyMadeLEDButtonPeripheral() {
        let board = SimulatedPeripheral.ledButton()
        #expect(board.name == "Ripple LED")
        #expect(board.address == "C0:FF:EE:00:00:02")
        #expect(board.advertisedServices == [.ledButtonService])
        #expect(board.services.map(\.uuid) == [.ledButtonService, .battery, .deviceInformation])
    }
}
