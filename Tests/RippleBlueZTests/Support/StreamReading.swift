import Ripple
import RippleBlueZ
import Synchronization

/// The value a *state* stream gives a new subscriber first, read synchronously: on the central's loop
/// thread (where the stream delivers at once), nil elsewhere.
func currentValue<Output: Sendable>(of stream: AnyPublisher<Output, Never>) -> Output? {
    let value = Mutex<Output?>(nil)
    let cancellable = stream.sink { received in value.withLock { $0 = $0 ?? received } }
    cancellable.cancel()
    return value.withLock { $0 }
}

extension CentralFixture {
    /// Returns once the loop has handled what was scheduled onto it before (a delivery a release asked
    /// for, a request from another thread).
    func settle() async {
        await central.loop.perform {}
        await central.loop.perform {}
    }
}
