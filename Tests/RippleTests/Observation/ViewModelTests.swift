import Testing

@testable import Ripple

/// What a heart-rate view model in an iOS app looks like, written against Combine and unchanged here: a
/// `@Published` state fed by a pipeline, observed by the view through `$property` and `objectWillChange`.
private final class HeartRateViewModel: ObservableObject {
    enum ConnectionState: Equatable {
        case disconnected
        case connecting
        case connected(name: String)
    }

    @Published private(set) var state = ConnectionState.disconnected
    @Published private(set) var beatsPerMinute: Int?
    @Published var alarmThreshold = 180

    init(measurements: some Publisher<Int, Never>, connection: some Publisher<ConnectionState, Never>) {
        connection.assign(to: &$state)
        measurements.map(Optional.some).assign(to: &$beatsPerMinute)
    }

    /// Whether the alarm shows: the latest reading above the threshold.
    var isAlarming: some Publisher<Bool, Never> {
        $beatsPerMinute.combineLatest($alarmThreshold)
            .map { bpm, threshold in (bpm ?? 0) > threshold }
            .removeDuplicates()
    }

    func resetAlarm(to threshold: Int) {
        alarmThreshold = threshold
    }
}

/// The same view model, isolated to the main actor, as Swift 6 iOS code writes it.
@MainActor
private final class MainActorViewModel: ObservableObject {
    @Published var title = "Scanning"
    @Published var peripherals: [String] = []

    func discovered(_ name: String) {
        peripherals.append(name)
        title = "\(peripherals.count) found"
    }
}

@Suite("View models")
struct ViewModelTests {
    @Test func aViewObservesThroughObjectWillChangeAndProjectedPublishers() {
        let measurements = PassthroughSubject<Int, Never>()
        let connection = PassthroughSubject<HeartRateViewModel.ConnectionState, Never>()
        let model = HeartRateViewModel(measurements: measurements, connection: connection)

        var redraws = 0
        var labels: [String] = []
        var alarms: [Bool] = []
        var cancellables = Set<AnyCancellable>()
        model.objectWillChange.sink { redraws += 1 }.store(in: &cancellables)
        model.$beatsPerMinute.map { $0.map { "\($0) bpm" } ?? "--" }.sink { labels.append($0) }
            .store(in: &cancellables)
        model.isAlarming.sink { alarms.append($0) }.store(in: &cancellables)

        connection.send(.connecting)
        connection.send(.connected(name: "Polar H10"))
        measurements.send(72)
        measurements.send(190)
        model.resetAlarm(to: 200)

        #expect(model.state == .connected(name: "Polar H10"))
        #expect(model.beatsPerMinute == 190)
        #expect(labels == ["--", "72 bpm", "190 bpm"])
        #expect(alarms == [false, true, false])
        #expect(redraws == 5, "two state changes, two readings, one threshold")
        cancellables.removeAll()
    }

    @Test func theModelGoesAwayWithItsView() {
        let measurements = PassthroughSubject<Int, Never>()
        weak var released: HeartRateViewModel?
        do {
            let model = HeartRateViewModel(measurements: measurements, connection: Empty())
            released = model
            measurements.send(60)
            #expect(model.beatsPerMinute == 60)
        }
        #expect(released == nil)
        measurements.send(61)
    }

    @MainActor
    @Test func aMainActorViewModel() {
        let model = MainActorViewModel()
        var titles: [String] = []
        var redraws = 0
        let title = model.$title.sink { titles.append($0) }
        let willChange = model.objectWillChange.sink { redraws += 1 }
        model.discovered("HRM")
        model.discovered("Thermometer")
        #expect(titles == ["Scanning", "1 found", "2 found"])
        #expect(redraws == 4)
        #expect(model.peripherals == ["HRM", "Thermometer"])
        title.cancel()
        willChange.cancel()
    }
}
