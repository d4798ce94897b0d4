import Foundation
import Testing

@testable import RippleBlueZSimulator

@Suite struct SignalOrderTests {
    @Test func ordersAreReadAndWrittenAsText() {
        #expect(BlueZSimulator.SignalOrder("in-order") == .inOrder)
        #expect(BlueZSimulator.SignalOrder("shuffled:1234") == .shuffled(seed: 1234))
        #expect(BlueZSimulator.SignalOrder(" shuffled:0x4D2\n") == .shuffled(seed: 1234))
        #expect(BlueZSimulator.SignalOrder("shuffled:18446744073709551615") == .shuffled(seed: .max))
        for text in ["", "shuffled", "shuffled:", "shuffled:-1", "shuffled:18446744073709551616", "sorted", "In-Order"]
        {
            #expect(BlueZSimulator.SignalOrder(text) == nil, "\(text)")
        }
        #expect(BlueZSimulator.SignalOrder.shuffled(seed: 1234).description == "shuffled:1234")
        #expect(BlueZSimulator.SignalOrder.inOrder.description == "in-order")
    }

    /// SplitMix64's published first outputs for seed 0, so that a seed means the same on every machine.
    @Test func theGeneratorIsSplitMix64() {
        var generator = SeededRandom(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        var same = SeededRandom(seed: 99)
        var again = SeededRandom(seed: 99)
        #expect((0..<8).map { _ in same.below(10) } == (0..<8).map { _ in again.below(10) })
        var turns = SeededRandom(seed: 1)
        #expect(Set((0..<200).map { _ in turns.turns() }) == [0, 1, 2, 4])
    }

    @Test func theWorldFilesKeyNamesTheOrder() throws {
        let json = #"{"signalOrder": "shuffled:7", "peripherals": []}"#
        let description = try JSONDecoder().decode(WorldDescription.self, from: Data(json.utf8))
        #expect(try description.makeSignalOrder() == .shuffled(seed: 7))
        #expect(try WorldDescription().makeSignalOrder() == nil)
        let wrong = WorldDescription(signalOrder: "sometimes")
        #expect(throws: SimulatorError.self) { try wrong.makeSignalOrder() }
        #expect(throws: SimulatorError.self) { try wrong.makeWorld() }
    }

    @Test func aShuffledSimulatorHasAnOutboxAndAnInOrderOneNone() async throws {
        let bus = try SimulatedBus()
        for (order, shuffled) in [(BlueZSimulator.SignalOrder.inOrder, false), (.shuffled(seed: 3), true)] {
            let simulator = BlueZSimulator(bus: bus.bus, configuration: .init(signalOrder: order))
            try await simulator.start()
            #expect(try await simulator.withCore { $0.outbox != nil } == shuffled)
            await simulator.stop()
        }
        bus.stop()
    }
}
