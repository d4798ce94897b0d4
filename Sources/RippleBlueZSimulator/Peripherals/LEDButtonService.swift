import Synchronization

extension BluetoothUUID {
    /// The LED/button device's vendor service.
    public static let ledButtonService = BluetoothUUID("5249504c-0000-4c45-4442-7574746f6e00")
    /// The LED state (read, write, write without response): one byte, 0 off, 1 on.
    public static let ledState = BluetoothUUID("5249504c-0001-4c45-4442-7574746f6e00")
    /// The button state (read, notify): one byte, 0 released, 1 pressed.
    public static let buttonState = BluetoothUUID("5249504c-0002-4c45-4442-7574746f6e00")
    /// The LED/button device's control point (write, notify): see ``LEDButtonCommand``.
    public static let ledButtonControlPoint = BluetoothUUID("5249504c-0003-4c45-4442-7574746f6e00")
}

/// The commands of the LED/button device's control point, and its answers.
///
/// A client writes (with response) `[opcode, operands…]`; the device answers with a notification on the
/// control point (sent only while notifications are on there, as on a real device):
/// `[0x10, opcode, result, data…]`, after the `0x10` response code of the Bluetooth SIG's control points.
/// A notification longer than the connection allows (MTU − 3) is cut to that length. An empty write fails
/// with ATT's Invalid Attribute Value Length (`org.bluez.Error.InvalidArguments` "Invalid Length").
public enum LEDButtonCommand: UInt8, Sendable, Hashable, CaseIterable {
    /// `[0x01, state]` sets the LED (0 off, 1 on); answers `[0x10, 0x01, 0x01]`.
    case setLED = 0x01
    /// `[0x02]` answers `[0x10, 0x02, 0x01, state]`.
    case getLED = 0x02
    /// `[0x03]` toggles the LED; answers `[0x10, 0x03, 0x01, newState]`.
    case toggleLED = 0x03
    /// `[0x04, bytes…]` answers `[0x10, 0x04, 0x01, bytes…]`.
    case echo = 0x04

    /// The first byte of every answer.
    public static let responseCode: UInt8 = 0x10

    /// The result byte of an answer.
    public enum Result: UInt8, Sendable, Hashable {
        /// 0x01: done.
        case success = 0x01
        /// 0x02: the opcode is not one of ``LEDButtonCommand``'s.
        case opcodeNotSupported = 0x02
        /// 0x03: the operands are wrong for the opcode (a missing or extra byte, a state other than 0/1).
        case invalidParameter = 0x03
    }
}

/// The LED of one LED/button device, shared by its LED characteristic and its control point.
final class LEDCell: Sendable {
    private let state: Atomic<UInt8>

    init(_ initial: UInt8) {
        state = Atomic(initial)
    }

    var value: UInt8 { state.load(ordering: .acquiring) }

    func set(_ value: UInt8) {
        state.store(value, ordering: .releasing)
    }

    /// Toggles the LED, returning the new state.
    func toggle() -> UInt8 {
        state.bitwiseXor(1, ordering: .acquiringAndReleasing).newValue
    }
}

extension SimulatedService {
    /// A vendor service of a development-board LED and button (``BluetoothUUID/ledButtonService``):
    ///
    /// - LED state (read, write, write without response): one byte, 0 or 1; another length fails with
    ///   Invalid Attribute Value Length, another value with ATT's Value Not Allowed (0x13);
    /// - button state (read, notify): one byte, 0 released or 1 pressed; presses are scripted with the
    ///   simulator's `notify`, or come from `buttonPresses` while a client listens;
    /// - control point (write, notify): write-and-respond, see ``LEDButtonCommand``.
    ///
    /// Each call makes a device with an LED of its own (`ledOn` at first), which its LED characteristic
    /// and its control point share, so a command's change shows in the LED's reads and the other way round.
    /// Each characteristic carries a Characteristic User Description.
    ///
    /// - Parameters:
    ///   - ledOn: whether the LED is on at first.
    ///   - buttonPresses: button presses notified while a client listens; nil for none.
    /// - Returns: the service.
    public static func ledButton(ledOn: Bool = false, buttonPresses: NotificationSource? = nil) -> SimulatedService {
        let led = LEDCell(ledOn ? 1 : 0)
        let readLED: GATTReadHandler = { (request: GATTReadRequest) throws(BlueZError) -> [UInt8] in
            try ReadyMadeSupport.read([led.value], at: request.offset)
        }
        let writeLED: GATTWriteHandler = { (request: GATTWriteRequest) throws(BlueZError) -> GATTWriteResponse in
            guard request.offset == 0 else { throw BlueZError.attError(ReadyMadeATTError.invalidOffset) }
            guard request.value.count == 1 else { throw BlueZError.attError(ReadyMadeATTError.invalidLength) }
            guard request.value[0] <= 1 else { throw BlueZError.attError(ReadyMadeATTError.valueNotAllowed) }
            led.set(request.value[0])
            return GATTWriteResponse(storedValue: request.value)
        }
        let command: GATTWriteHandler = { (request: GATTWriteRequest) throws(BlueZError) -> GATTWriteResponse in
            guard request.offset == 0 else { throw BlueZError.attError(ReadyMadeATTError.invalidOffset) }
            guard let opcode = request.value.first else {
                throw BlueZError.attError(ReadyMadeATTError.invalidLength)
            }
            var answer =
                [LEDButtonCommand.responseCode, opcode]
                + ledButtonAnswer(opcode: opcode, operands: request.value.dropFirst(), led: led)
            answer = Array(answer.prefix(Swift.max(request.mtu - 3, 3)))
            return GATTWriteResponse(storedValue: request.storedValue, notifications: [SimulatedNotification(answer)])
        }
        return SimulatedService(
            uuid: .ledButtonService,
            characteristics: [
                SimulatedCharacteristic(
                    uuid: .ledState, flags: [.read, .write, .writeWithoutResponse], value: [led.value],
                    descriptors: [.userDescription("LED")], onRead: readLED, onWrite: writeLED),
                SimulatedCharacteristic(
                    uuid: .buttonState, flags: [.read, .notify], value: [0], descriptors: [.userDescription("Button")],
                    notificationSource: buttonPresses),
                SimulatedCharacteristic(
                    uuid: .ledButtonControlPoint, flags: [.write, .notify],
                    descriptors: [.userDescription("Control Point")], onWrite: command),
            ])
    }

    /// The result byte and data answering the command `opcode` with `operands`, carrying out what it asks.
    private static func ledButtonAnswer(opcode: UInt8, operands: ArraySlice<UInt8>, led: LEDCell) -> [UInt8] {
        switch LEDButtonCommand(rawValue: opcode) {
        case .setLED:
            guard operands.count == 1, let state = operands.first, state <= 1 else {
                return [LEDButtonCommand.Result.invalidParameter.rawValue]
            }
            led.set(state)
            return [LEDButtonCommand.Result.success.rawValue]
        case .getLED:
            guard operands.isEmpty else { return [LEDButtonCommand.Result.invalidParameter.rawValue] }
            return [LEDButtonCommand.Result.success.rawValue, led.value]
        case .toggleLED:
            guard operands.isEmpty else { return [LEDButtonCommand.Result.invalidParameter.rawValue] }
            return [LEDButtonCommand.Result.success.rawValue, led.toggle()]
        case .echo:
            return [LEDButtonCommand.Result.success.rawValue] + operands
        case nil:
            return [LEDButtonCommand.Result.opcodeNotSupported.rawValue]
        }
    }
}
