import ArgumentParser
import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleSimulatorServing
import Synchronization

/// `ripple-ble serve`: this machine as a peripheral described by a world-file entry, served through
/// bluetoothd until interrupted — to impersonate a sensor for a phone app from a shell.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a peripheral described in a world file from an adapter, through bluetoothd, until Ctrl-C.",
        discussion: """
            Takes the peripheral of --world named by --peripheral (its address or name; the first one \
            without it) and serves its services on --adapter through bluetoothd's GattManager1, advertising \
            its name, service UUIDs, manufacturer and service data. Characteristics answer reads with their \
            value, store what is written, and send their notification source's values (rate and count per \
            subscription) while a central listens, through a socket bluetoothd acquires or, with \
            --transport bus, as Value changes. Prints "serving NAME on ADAPTER" once registered.
            """)

    @Option(help: ArgumentHelp("The world file (.json, .yaml or .yml).", valueName: "file"))
    var world: String

    @Option(
        help: ArgumentHelp(
            "The peripheral to serve: its address or name (the first one by default).", valueName: "peripheral"))
    var peripheral: String?

    @Option(help: "The adapter that serves.")
    var adapter = "hci0"

    @Option(
        help:
            "How notifications reach bluetoothd: auto: a socket it acquires (AcquireNotify); bus: Value changes (PropertiesChanged)."
    )
    var transport: TransportChoice = .auto

    func run() async throws {
        Output.commandName = "ripple-ble"
        let described: SimulatedPeripheral
        do {
            let peripherals = try WorldFileLoader.load(world).1.peripherals.map(\.peripheral)
            guard
                let found = peripherals.first(where: {
                    peripheral == nil || $0.address.description == peripheral || $0.name == peripheral
                })
            else {
                throw ValidationError("the world file has no peripheral \(peripheral ?? "")")
            }
            described = found
        } catch {
            Output.error("\(error)")
            throw ExitCode.validationFailure
        }
        try await runReportingFailures {
            let served = ServedPeripheral(described)
            let manager = try PeripheralManager(
                adapter: adapter, notificationTransport: transport.transport, services: served.services)
            defer { manager.close() }
            try await served.serve(on: manager, adapter: adapter)
        }
    }
}

/// A world-file peripheral as a ``PeripheralManager`` serves it.
struct ServedPeripheral: Sendable {
    let description: SimulatedPeripheral

    init(_ description: SimulatedPeripheral) {
        self.description = description
    }

    /// The services, without the configuration descriptors bluetoothd adds itself.
    var services: [LocalService] {
        description.services.map { service in
            LocalService(
                service.uuid, isPrimary: service.isPrimary,
                characteristics: service.characteristics.map { characteristic in
                    LocalCharacteristic(
                        characteristic.uuid, properties: Self.properties(characteristic.flags),
                        value: characteristic.value,
                        descriptors: characteristic.descriptors.filter { $0.uuid != .clientCharacteristicConfiguration }
                            .map {
                                LocalDescriptor(
                                    $0.uuid,
                                    properties: $0.flags.contains(.write) ? [.read, .write] : [.read], value: $0.value)
                            })
                })
        }
    }

    /// The properties a served characteristic keeps of a world file's: what a central sees and the link
    /// security; the rest (broadcast, reliable writes, …) bluetoothd does not take from an application.
    static func properties(_ flags: CharacteristicProperties) -> CharacteristicProperties {
        flags.intersection([
            .read, .write, .writeWithoutResponse, .notify, .indicate, .encryptRead, .encryptWrite,
            .encryptAuthenticatedRead, .encryptAuthenticatedWrite,
        ])
    }

    var advertisement: Advertisement {
        Advertisement(
            localName: description.name, serviceUUIDs: description.advertisedServices,
            manufacturerData: description.manufacturerData,
            serviceData: description.serviceData,
            appearance: description.appearance)
    }

    /// Registers, advertises and notifies until SIGINT or SIGTERM.
    func serve(on manager: PeripheralManager, adapter: String) async throws {
        var subscriptions: [AnyCancellable] = []
        defer { for subscription in subscriptions { subscription.cancel() } }
        // Served while this subscription lasts; the second one only waits for the registration.
        manager.register()
            .sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { Output.error("registration failed: \(error)") }
                }, receiveValue: { _ in }
            )
            .store(in: &subscriptions)
        _ = try await manager.register().first { $0 == .registered }.values.first { _ in true }
        manager.advertise(advertisement)
            .sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { Output.error("advertising failed: \(error)") }
                }, receiveValue: { _ in }
            )
            .store(in: &subscriptions)
        let notifiers = description.services.flatMap(\.characteristics).compactMap { characteristic in
            characteristic.notificationSource.map {
                Notifier(
                    manager: manager, characteristic: CharacteristicReference(characteristic.uuid),
                    source: $0)
            }
        }
        let tasks = notifiers.map { notifier in Task { await notifier.run() } }
        defer { for task in tasks { task.cancel() } }
        Output.line("serving \(description.name ?? description.address.description) on \(adapter)")
        let signal = await TerminationSignal.wait()
        Output.error("signal \(signal): stopping")
    }
}

/// Sends a notification source's values while a central listens: `count` of them (no end when nil) at
/// `rate` a second, or as fast as the path takes them when the source has no rate (a notification that
/// finds bluetoothd's socket full is sent again a moment later).
struct Notifier: Sendable {
    let manager: PeripheralManager
    let characteristic: CharacteristicReference
    let source: NotificationSource

    func run() async {
        let interval = source.rate.map { Duration.milliseconds(Int64(1000 / max($0, 0.001))) }
        // One subscription to the listening state: the flag the sending loop reads is stored before the
        // change that wakes the loop is handed over, so the loop never starts on a value it cannot see yet.
        let listened = Atomic<Bool>(false)
        let (changes, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        let watch = manager.isSubscribed(characteristic).sink(
            receiveCompletion: { _ in continuation.finish() },
            receiveValue: { isListened in
                listened.store(isListened, ordering: .sequentiallyConsistent)
                continuation.yield(isListened)
            })
        defer {
            watch.cancel()
            continuation.finish()
        }
        // Each subscription starts the sequence again.
        for await isListened in changes where isListened {
            var sequence: UInt32 = 0
            while !Task.isCancelled, listened.load(ordering: .sequentiallyConsistent),
                source.count.map({ Int(sequence) < $0 }) ?? true
            {
                let sent = (try? manager.send(source.payload(sequence: sequence), on: characteristic)) ?? false
                if let interval {
                    sequence &+= 1
                    try? await Task.sleep(for: interval)
                } else if sent {
                    sequence &+= 1
                    if sequence % 64 == 0 { await Task.yield() }
                } else {
                    try? await Task.sleep(for: .microseconds(200))
                }
            }
        }
    }
}
