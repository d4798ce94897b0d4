import Testing

@testable import Ripple

private class Device: ObservableObject {
    @Published var name = "sensor"
    @Published var rssi = -60
    var firmware = "1.0"
}

private final class Thermostat: Device {
    @Published var setpoint = 21.0
}

private final class Plain: ObservableObject {
    var count = 0
}

private final class Custom: ObservableObject {
    let objectWillChange = PassthroughSubject<Int, Never>()
    @Published var level = 0
}

private final class Reflecting: ObservableObject, CustomReflectable {
    @Published var level = 0
    var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// `ObservableObject`'s synthesised `objectWillChange`, found through the `@Published` properties.
@Suite("ObservableObject")
struct ObservableObjectTests {
    @Test func everyPublishedPropertySignalsTheSamePublisherBeforeItChanges() {
        let device = Device()
        var log: [String] = []
        let willChange = device.objectWillChange.sink {
            log.append("will change: name \(device.name), rssi \(device.rssi)")
        }
        device.name = "hrm"
        device.rssi = -50
        device.firmware = "2.0"
        #expect(
            log == [
                "will change: name sensor, rssi -60", "will change: name hrm, rssi -60",
            ])
        willChange.cancel()
    }

    @Test func objectWillChangeIsTheSamePublisherOnEveryRead() {
        let device = Device()
        #expect(device.objectWillChange === device.objectWillChange)
        let other = Device()
        #expect(device.objectWillChange !== other.objectWillChange)
    }

    @Test func superclassPropertiesSignalTheSubclassObject() {
        let thermostat = Thermostat()
        var signals = 0
        let willChange = thermostat.objectWillChange.sink { signals += 1 }
        thermostat.setpoint = 19
        thermostat.name = "hall"
        thermostat.rssi = -70
        #expect(signals == 3)
        willChange.cancel()
    }

    @Test func objectWillChangeComesBeforeTheProjectedPublisher() {
        let device = Device()
        var log: [String] = []
        let willChange = device.objectWillChange.sink { log.append("objectWillChange") }
        let name = device.$name.dropFirst().sink { log.append("$name \($0)") }
        device.name = "hrm"
        #expect(log == ["objectWillChange", "$name hrm"])
        willChange.cancel()
        name.cancel()
    }

    @Test func anObjectWithoutPublishedPropertiesGetsAFreshPublisher() {
        let plain = Plain()
        #expect(plain.objectWillChange !== plain.objectWillChange)
        var signals = 0
        let willChange = plain.objectWillChange.sink { signals += 1 }
        plain.count += 1
        #expect(signals == 0)
        willChange.cancel()
    }

    @Test func aDeclaredObjectWillChangeIsUsedAsIs() {
        let custom = Custom()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        custom.objectWillChange.subscribe(subscriber)
        custom.level = 3
        custom.objectWillChange.send(7)
        #expect(subscriber.events == [.subscription("PassthroughSubject"), .value(7)])
    }

    /// A deliberate difference from Combine (which reads type metadata): the properties are found through
    /// `Mirror`, so a class with a custom mirror hides them and must declare `objectWillChange` itself.
    @Test func aCustomMirrorHidesThePublishedProperties() {
        let reflecting = Reflecting()
        var signals = 0
        let willChange = reflecting.objectWillChange.sink { signals += 1 }
        reflecting.level = 1
        #expect(signals == 0)
        #expect(reflecting.objectWillChange !== reflecting.objectWillChange)
        willChange.cancel()
    }

    @Test func concurrentFirstReadsAgreeOnOnePublisher() async {
        for _ in 0..<50 {
            let device = SharedDevice()
            let publishers = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<4 {
                    group.addTask { ObjectIdentifier(device.objectWillChange) }
                }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            #expect(publishers.count == 1)
        }
    }
}

/// A device shared between tasks.
private final class SharedDevice: ObservableObject, @unchecked Sendable {
    @Published var name = "a"
    @Published var rssi = 0
    @Published var battery = 100
}
