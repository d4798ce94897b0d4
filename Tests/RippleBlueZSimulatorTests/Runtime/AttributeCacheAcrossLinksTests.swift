import Ripple
import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZSimulator

/// bluetoothd 5.66 (as traced in the `Scripts/bluez-guest` guest) keeps a device's GATT objects and
/// `StartNotify` sessions when its link ends, resolves the next link from that cache at once, and finds a
/// database changed meanwhile out on reconnection; pinned on the simulator.
@Suite struct AttributeCacheAcrossLinksTests {
    @Test func theGATTObjectsStayCachedWhenTheLinkEndsAndTheNextConnectionResolvesAtOnce() async throws {
        try await withFixture(SimulatorFixture(world: DeviceTimeline.world())) { fixture in
            try await fixture.connectAndResolve(monitorPath)
            let log = try await DeviceTimeline.log(fixture)
            try await DeviceTimeline.disconnect(fixture, log)
            #expect(try await fixture.managedObjects()[DeviceTimeline.level] != nil)
            #expect(
                try await fixture.error(
                    DeviceTimeline.level, DeviceTimeline.characteristic, "ReadValue", [DeviceTimeline.noOptions])
                    == .failed("Not connected"))
            #expect(
                try await fixture.error(
                    DeviceTimeline.level, DeviceTimeline.characteristic, "AcquireNotify", [DeviceTimeline.noOptions])
                    == .failed("Not connected"))
            try await fixture.connectAndResolve(monitorPath)
            #expect(
                DeviceTimeline.timeline(log.messages) == [
                    "ServicesResolved=false", "Connected=false", "Connected=true", "ServicesResolved=true",
                ])
            #expect(
                try await fixture.call(
                    DeviceTimeline.level, DeviceTimeline.characteristic, "ReadValue", [DeviceTimeline.noOptions]) == [
                        .bytes([1])
                    ])
        }
    }

    /// bluetoothd keeps a `StartNotify` session across the link's end and enables it again on the next
    /// link; until then the same client's `StartNotify` is "In Progress", another client's is taken, and
    /// `StopNotify` ends a session at once.
    @Test func aStartNotifySessionOutlivesTheLinkAndNotifiesAgainWhenItIsBack() async throws {
        try await withFixture(SimulatorFixture(world: DeviceTimeline.world())) { fixture in
            try await fixture.connectAndResolve(monitorPath)
            _ = try await fixture.call(DeviceTimeline.level, DeviceTimeline.characteristic, "StartNotify")
            let log = try await DeviceTimeline.log(fixture)
            try await DeviceTimeline.disconnect(fixture, log)
            #expect(
                try await fixture.property(DeviceTimeline.level, DeviceTimeline.characteristic, "Notifying")
                    == .boolean(true))
            #expect(
                try await fixture.error(DeviceTimeline.level, DeviceTimeline.characteristic, "StartNotify")
                    == .inProgress)
            let another = try fixture.connectAnotherClient()
            #expect(
                try await fixture.error(DeviceTimeline.level, DeviceTimeline.characteristic, "StartNotify", on: another)
                    == nil)
            #expect(
                try await fixture.error(DeviceTimeline.level, DeviceTimeline.characteristic, "StopNotify", on: another)
                    == nil, "ends at once")
            try await fixture.connectAndResolve(monitorPath)
            let values = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: [7])
            let changes = await values.wait { $0.contains { $0.path?.description == DeviceTimeline.level } }
            #expect(
                changes.compactMap {
                    $0.path?.description == DeviceTimeline.level ? $0.propertiesChange?.changed["Value"] : nil
                } == [
                    .bytes([7])
                ])
            another.close()
        }
    }

    /// `Disconnect()` is answered after `ServicesResolved` turns false and before `Connected` does.
    @Test func disconnectIsAnsweredBetweenServicesResolvedAndConnected() async throws {
        try await withFixture(SimulatorFixture(world: DeviceTimeline.world())) { fixture in
            try await fixture.connectAndResolve(monitorPath)
            let log = try await DeviceTimeline.log(fixture)
            // A signal is recorded no earlier than the reply that followed it on the bus (its delivery may lag,
            // never lead): when the reply arrives, Connected=false must not have been recorded.
            let signalsBeforeReply = Atomic<Int>(-1)
            let disconnecting = fixture.client.call(
                destination: "org.bluez", path: try DBusObjectPath(monitorPath), interface: deviceInterface,
                member: "Disconnect"
            ).sink(
                receiveCompletion: { _ in },
                receiveValue: { _ in signalsBeforeReply.store(log.messages.count, ordering: .sequentiallyConsistent) })
            let messages = await log.wait { DeviceTimeline.timeline($0).last == "Connected=false" }
            disconnecting.cancel()
            let before = signalsBeforeReply.load(ordering: .sequentiallyConsistent)
            #expect(before >= 0)
            #expect(!DeviceTimeline.timeline(Array(messages.prefix(max(before, 0)))).contains("Connected=false"))
            #expect(DeviceTimeline.timeline(messages) == ["ServicesResolved=false", "Connected=false"])
        }
    }

    @Test func aDatabaseReplacedWhileDisconnectedIsFoundOutAtTheNextConnection() async throws {
        try await withFixture(SimulatorFixture(world: DeviceTimeline.world())) { fixture in
            try await fixture.connectAndResolve(monitorPath)
            let log = try await DeviceTimeline.log(fixture)
            try await DeviceTimeline.disconnect(fixture, log)
            try await fixture.simulator.changeServices(
                of: monitorAddress,
                to: [
                    SimulatedService(
                        uuid: 0xBBB0,
                        characteristics: [SimulatedCharacteristic(uuid: 0xBBB1, flags: [.read], value: [2])])
                ])
            #expect(try await fixture.managedObjects()[DeviceTimeline.level] != nil, "the cache is not told")
            try await fixture.connectAndResolve(monitorPath)
            #expect(
                DeviceTimeline.timeline(log.messages) == [
                    "ServicesResolved=false", "Connected=false", "Connected=true",
                    "-service0001/char0002/desc0004", "-service0001/char0002", "-service0001", "+service0001",
                    "+service0001/char0002",
                    "ServicesResolved=true,UUIDs=[\"0000bbb0-0000-1000-8000-00805f9b34fb\"]",
                ])
        }
    }
}
