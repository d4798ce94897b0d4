import ArgumentParser
import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleLoop
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
            --transport bus, as Value changes. Prints "serving NAME on ADAPTER" once registered, and runs \
            until SIGINT or SIGTERM (or, with --exit-when-stdin-closes, the end of standard input).
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

    @OptionGroup var lifeline: LifelineOption

    func run() async throws {
        Output.commandName = "ripple-ble"
        lifeline.start()
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

    /// Registers, advertises and notifies until ``Termination/wait()`` returns.
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
        let running = notifiers.map { $0.start() }
        defer { for notifier in running { notifier.cancel() } }
        Output.line("serving \(description.name ?? description.address.description) on \(adapter)")
        let cause = await Termination.wait()
        Output.error("\(cause): stopping")
    }
}

/// Sends a notification source's values while a central listens: `count` of them per subscription (no
/// end when nil) at `rate` a second, or as fast as the path takes them when the source has no rate.
/// A paced source keeps to a schedule counted from the subscription (each timer tick sends what is due,
/// 64 at most), so that a late timer does not lower the rate: on a busy or coarse-timed machine it sends
/// the same number a second as a Python peripheral that sleeps until each one's time.
///
/// It runs on the manager's loop thread, driven by the manager's streams: an unpaced source sends while
/// ``PeripheralManager/isReadyToSend(_:)`` is true and, when the path is full (the socket, or on the bus
/// the connection's outgoing queue at the manager's limit), waits for it to turn true again (no polling,
/// no thread hop per notification); a burst gives the loop a turn every 64 notifications.
/// Its state is confined to the loop thread (checked).
final class Notifier: Sendable {
    private struct State {
        /// Whether a central listens.
        var listening = false
        /// Whether a notification sent now would go out.
        var ready = false
        /// The next notification's number (from 0 for each subscription).
        var sequence: UInt32 = 0
        /// Whether a turn of the burst is already scheduled on the loop.
        var burstScheduled = false
        /// The paced source's timer, while a central listens.
        var ticker: (any Cancellable)?
        /// When the paced source's schedule started, and how many it has sent since.
        var pacedFrom = ContinuousClock.now
        var pacedSent = 0
        var stopped = false
    }

    /// Notifications sent in one turn of the loop, at most.
    static let burst = 64

    let manager: PeripheralManager
    let characteristic: CharacteristicReference
    let source: NotificationSource
    private let loop: EventLoop
    private nonisolated(unsafe) var state = State()

    init(manager: PeripheralManager, characteristic: CharacteristicReference, source: NotificationSource) {
        self.manager = manager
        self.characteristic = characteristic
        self.source = source
        loop = manager.connection.loop
    }

    /// Starts following the characteristic's listeners; the returned cancellable stops.
    func start() -> AnyCancellable {
        let listening = manager.isSubscribed(characteristic).sink(
            receiveCompletion: { _ in }, receiveValue: { [self] in listeningChanged($0) })
        let readiness = manager.isReadyToSend(characteristic).sink(
            receiveCompletion: { _ in }, receiveValue: { [self] in readinessChanged($0) })
        return AnyCancellable { [self] in
            listening.cancel()
            readiness.cancel()
            loop.schedule { [self] in
                state.stopped = true
                state.ticker?.cancel()
                state.ticker = nil
            }
        }
    }

    private var hasMore: Bool {
        source.count.map { Int(state.sequence) < $0 } ?? true
    }

    private func listeningChanged(_ listening: Bool) {
        precondition(loop.isInLoopThread, "a Notifier runs on its loop thread")
        guard !state.stopped else { return }
        // Each subscription starts the sequence again.
        if listening, !state.listening { state.sequence = 0 }
        state.listening = listening
        guard let rate = source.rate else { return }
        state.ticker?.cancel()
        state.ticker = nil
        guard listening else { return }
        state.pacedFrom = ContinuousClock.now
        state.pacedSent = 0
        state.ticker = loop.every(.milliseconds(Int64(1000 / max(rate, 0.001)))) { [self] in tick(rate: rate) }
    }

    private func readinessChanged(_ ready: Bool) {
        precondition(loop.isInLoopThread, "a Notifier runs on its loop thread")
        state.ready = ready
        if ready, source.rate == nil { sendBurst() }
    }

    /// The paced notifications due by now (a full socket drops one; the next goes out on time).
    private func tick(rate: Double) {
        let due = Int((ContinuousClock.now - state.pacedFrom) / .seconds(1) * rate)
        var sent = 0
        while !state.stopped, state.listening, hasMore, state.pacedSent < due, sent < Self.burst {
            _ = try? manager.send(source.payload(sequence: state.sequence), on: characteristic)
            state.sequence &+= 1
            state.pacedSent += 1
            sent += 1
        }
    }

    /// Sends until the path is full (then ``readinessChanged(_:)`` resumes) or a turn's worth is sent (then
    /// the next turn is scheduled).
    private func sendBurst() {
        precondition(loop.isInLoopThread, "a Notifier runs on its loop thread")
        state.burstScheduled = false
        var sent = 0
        while !state.stopped, state.listening, state.ready, hasMore {
            guard sent < Self.burst else {
                guard !state.burstScheduled else { return }
                state.burstScheduled = true
                loop.schedule { [self] in sendBurst() }
                return
            }
            guard (try? manager.send(source.payload(sequence: state.sequence), on: characteristic)) == true else {
                // The path is full (readiness turns false, then true again: the next burst) or nobody
                // listens any more.
                return
            }
            state.sequence &+= 1
            sent += 1
        }
    }
}
