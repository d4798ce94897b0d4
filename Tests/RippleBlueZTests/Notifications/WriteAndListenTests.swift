import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// `writeAndListen` in the shape LittleBlueTooth's users write it: a typed request in, a typed reply out,
/// as a method and as an operator on a publisher of peripherals; and the typed `write` operator.
@Suite(.timeLimit(Patience.test)) struct WriteAndListenTests {
    private static let address: BluetoothAddress = "C0:FF:EE:00:00:0B"
    private static let controlPoint = CharacteristicReference("5249504c-0003-4c45-4442-7574746f6e00")
    private static let led = CharacteristicReference("5249504c-0001-4c45-4442-7574746f6e00")

    /// A request to the LED/button device's control point, as a user's app would model it.
    struct SetLED: Writable {
        var on: Bool
        var bluetoothBytes: [UInt8] { [LEDButtonCommand.setLED.rawValue, on ? 1 : 0] }
    }

    /// The control point's answer: `[0x10, opcode, result]`.
    struct Answer: Readable, Equatable {
        var opcode: UInt8
        var result: UInt8

        init(opcode: UInt8, result: UInt8) {
            self.opcode = opcode
            self.result = result
        }

        init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
            var reader = ByteReader(bytes, typeName: "Answer")
            guard try reader.read(UInt8.self) == LEDButtonCommand.responseCode else {
                throw reader.error(.invalidValue("not an answer"), at: 0)
            }
            opcode = try reader.read(UInt8.self)
            result = try reader.read(UInt8.self)
        }
    }

    /// A new world for each test: the LED-button device keeps its LED in a cell its handlers share, so one
    /// world for the suite's tests (which run in parallel) would let one test's write show in another's read.
    private static var world: SimulatedWorld {
        SimulatedWorld(peripherals: [.init(.ledButton(address: "C0:FF:EE:00:00:0B"))])
    }

    @Test func aTypedRequestGetsATypedReply() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let peripheral = try await fixture.connect(Self.address)
            let answer = try await peripheral.writeAndListen(
                SetLED(on: true), to: Self.controlPoint, reply: Self.controlPoint, as: Answer.self
            ).values.first { _ in true }
            #expect(answer == Answer(opcode: LEDButtonCommand.setLED.rawValue, result: 1))
            #expect(try await peripheral.readValue(Self.led) == [1])
            // Bytes in, a typed reply out; a typed request in, bytes out.
            let off = try await peripheral.writeAndListen(
                [LEDButtonCommand.setLED.rawValue, 0], to: Self.controlPoint, reply: Self.controlPoint, as: Answer.self
            ).values.first { _ in true }
            #expect(off == Answer(opcode: LEDButtonCommand.setLED.rawValue, result: 1))
            let bytes = try await peripheral.writeAndListen(
                SetLED(on: true), to: Self.controlPoint, reply: Self.controlPoint
            ).values.first { _ in true }
            #expect(bytes == [LEDButtonCommand.responseCode, LEDButtonCommand.setLED.rawValue, 1])
        }
    }

    @Test func theOperatorWritesToEachPeripheralAndEmitsItsTypedReply() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let peripheral = try await fixture.connect(Self.address)
            let answers = TestSubscriber(
                Just(peripheral).setFailureType(to: BluetoothError.self)
                    .write(SetLED(on: false), to: Self.controlPoint)
                    .writeAndListen(SetLED(on: true), to: Self.controlPoint, reply: Self.controlPoint, as: Answer.self))
            try await answers.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(answers.values == [Answer(opcode: LEDButtonCommand.setLED.rawValue, result: 1)])
            #expect(answers.completion == .finished)
            #expect(try await peripheral.readValue(Self.led) == [1])
        }
    }

    @Test func aReplyThatNeverComesTimesOut() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let peripheral = try await fixture.connect(Self.address)
            // A write to the LED itself: the control point never answers it.
            let reply = TestSubscriber(
                peripheral.writeAndListen(
                    [1], to: Self.led, reply: Self.controlPoint,
                    timeout: .milliseconds(300)))
            try await reply.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(reply.values.isEmpty)
            guard case .failure(let error) = reply.completion else {
                Issue.record("no failure: \(String(describing: reply.completion))")
                return
            }
            #expect(error.kind == .timeout)
        }
    }
}
