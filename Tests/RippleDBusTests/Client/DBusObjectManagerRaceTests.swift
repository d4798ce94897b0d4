import Ripple
import RippleLoop
import Synchronization
import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DBusObjectManagerRaceTests {
    static let name = "com.example.Busy"
    static let root = DBusObjectPath.test("/tree")

    static let subscriptions = Int(ProcessInfoLite.environment("RIPPLE_RACE_SUBSCRIPTIONS") ?? "") ?? 50

    private final class StopFlag: Sendable {
        let stopped = Atomic<Bool>(false)
    }

    /// The service mutates its tree without pause (on its own loop thread, driven from another thread)
    /// while 50 subscriptions start over 5 connections; once it stops and every client has caught up,
    /// each subscription's snapshot plus its events must be the service's final tree, with every event
    /// consistent with the state before it and the meta object's generation rising by exactly one per
    /// change (nothing missed, nothing twice).
    @Test func fiftySubscriptionsDuringContinuousMutationEachMirrorTheFinalTree() async throws {
        let bus = try BusFixture()
        let serviceLoop = try EventLoopThread(name: "dbus-fake-service")
        let serviceConnection = try DBusConnection(bus: bus.daemon.bus, loop: serviceLoop.loop)
        var initial: DBusManagedObjects = [
            FakeObjectService.meta: [FakeObjectService.metaInterface: ["Generation": .uint32(0)]]
        ]
        for index in 0..<5 {
            initial[.test("/tree/first\(index)")] = [
                "com.example.A": ["Value": .int32(Int32(index)), "Name": .string("f")]
            ]
        }
        let service = try await FakeObjectService.start(
            on: serviceConnection, name: Self.name, managerPath: Self.root, objects: initial)
        let clients = try (0..<5).map { _ in try bus.connect() }

        let flag = StopFlag()
        let mutator = Task.detached {
            var batch = 0
            while !flag.stopped.load(ordering: .acquiring) {
                for _ in 0..<10 {
                    service.mutate { service, core in service.randomMutation(core: core) }
                }
                // Paces the mutator by the clients (one round trip from a client to the service, whose
                // answer comes after the batch's signals), so that the bus's backlog stays bounded.
                batch += 1
                _ = try? await clients[batch % clients.count].getProperty(
                    destination: Self.name, path: FakeObjectService.meta, interface: FakeObjectService.metaInterface,
                    name: "Generation"
                ).firstValue
            }
        }

        var recorders: [Recorder<DBusObjectManagerEvent>] = []
        for index in 0..<Self.subscriptions {
            let recorder = Recorder(
                clients[index % clients.count].managedObjects(destination: Self.name, path: Self.root))
            await recorder.waitForValues(1)
            recorders.append(recorder)
        }
        flag.stopped.store(true, ordering: .releasing)
        await mutator.value
        // The mutations are performed on the service's loop: the last ones scheduled have run once it has
        // run one more closure.
        await serviceLoop.loop.perform {}

        let final = service.objects
        let finalGeneration =
            final[FakeObjectService.meta]?[FakeObjectService.metaInterface]?["Generation"]?.uint32 ?? 0
        // A round trip to the service: its answer comes after every signal it sent before.
        for client in clients {
            let generation = try await client.getProperty(
                destination: Self.name, path: FakeObjectService.meta, interface: FakeObjectService.metaInterface,
                name: "Generation"
            ).firstValue
            #expect(generation == .uint32(finalGeneration))
        }

        var snapshotGenerations = Set<UInt32>()
        for (index, recorder) in recorders.enumerated() {
            let events = recorder.values
            guard case .snapshot(let snapshot)? = events.first else {
                Issue.record("subscription \(index) did not start with a snapshot")
                continue
            }
            var state = DBusObjectManagerState(objects: snapshot)
            var generation =
                snapshot[FakeObjectService.meta]?[FakeObjectService.metaInterface]?["Generation"]?.uint32 ?? 0
            snapshotGenerations.insert(generation)
            var violations: [String] = []
            for event in events.dropFirst() {
                switch event {
                case .snapshot:
                    violations.append("a second snapshot")
                case .interfacesAdded(let path, let interfaces):
                    if interfaces.keys.contains(where: { state[path]?[$0] != nil }) {
                        violations.append("re-added \(path)")
                    }
                case .interfacesRemoved(let path, let interfaces):
                    if interfaces.contains(where: { state[path]?[$0] == nil }) {
                        violations.append("re-removed \(path)")
                    }
                case .propertiesChanged(let path, let change):
                    if state.properties(of: path, interface: change.interface) == nil {
                        violations.append("change of absent \(path)")
                    }
                    if path == FakeObjectService.meta {
                        if change.changed["Generation"] != .uint32(generation + 1) {
                            violations.append("generation \(change.changed) after \(generation)")
                        }
                        generation += 1
                    }
                }
                state.apply(event)
            }
            #expect(violations == [], "subscription \(index)")
            #expect(state.objects == final, "subscription \(index)")
            #expect(generation == finalGeneration, "subscription \(index)")
            #expect(recorder.completion == nil)
        }
        // The subscriptions did start while the tree was changing.
        #expect(snapshotGenerations.count > 10)
        #expect(finalGeneration > 100)

        serviceConnection.close()
        await onLoop(serviceConnection) { _ in }
        serviceLoop.stop()
    }
}

/// Reads an environment variable (Foundation-free).
private enum ProcessInfoLite {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
