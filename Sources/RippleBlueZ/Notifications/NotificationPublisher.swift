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
        let found: GATTCharacteristic
        switch core.characteristic(characteristic, of: peripheral) {
        case .success(let value):
            found = value
        case .failure(let error):
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .failure(error))
            return
        }
        guard found.canNotify else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(
                completion: .failure(
                    BluetoothError(
                        .notPermitted, "\(characteristic) of \(peripheral.address) neither notifies nor indicates")))
            return
        }
        let id = core.nextID()
        let path = found.path
        let listener = NotificationListener(
            listening: AnySubscriber(subscriber), buffering: buffering, statistics: statistics,
            context: .loop(core.loop), onEnd: { [weak core] in core?.removeListener(id, from: path) })
        subscriber.receive(subscription: listener)
        core.addListener(
            listener, id: id, to: found, named: characteristic, device: peripheral, transport: transport,
            onStarted: onStarted)
    }
}
