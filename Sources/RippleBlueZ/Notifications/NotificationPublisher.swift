import Ripple
import RippleDBus
import RippleLoop

/// The publisher of ``Peripheral/listen(to:buffering:transport:statistics:)``: each subscription is a
/// ``NotificationListener`` of the characteristic's shared session.
struct NotificationPublisher: Publisher {
    typealias Output = [UInt8]
    typealias Failure = BluetoothError

    let peripheral: Peripheral
    let characteristic: CharacteristicReference
    let buffering: NotificationBuffering
    let statistics: NotificationStatistics
    var transport: NotificationTransport = .automatic
    var onStarted: (@Sendable () -> Void)?

    func receive<S: Subscriber>(subscriber: S) where S.Input == [UInt8], S.Failure == BluetoothError {
        let core = peripheral.central.core
        // What cannot change by waiting fails at once; a characteristic not exported (yet) is waited for.
        if case .failure(let error) = core.characteristic(characteristic, of: peripheral),
            error.kind != .attributeNotFound
        {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .failure(error))
            return
        }
        let id = core.nextID()
        let listener = NotificationListener(
            listening: subscriber, buffering: buffering, statistics: statistics,
            context: .loop(core.loop),
            onEnd: { [weak core] in core?.perform { [weak core] in core?.removeListener(id) } })
        subscriber.receive(subscription: listener)
        let (reference, peripheral, transport, onStarted) = (characteristic, self.peripheral, transport, onStarted)
        core.perform {
            core.attachListener(
                listener, id: id, to: reference, of: peripheral, transport: transport, onStarted: onStarted)
        }
    }
}
