/// A property wrapper that publishes its property's changes: `$property` is a publisher of its value,
/// and, in an ``ObservableObject``, every change first signals the object's `objectWillChange`.
///
/// ```swift
/// final class HeartRateViewModel: ObservableObject {
///     @Published var beatsPerMinute = 0
/// }
/// let model = HeartRateViewModel()
/// let label = model.$beatsPerMinute.map { "\($0) bpm" }.sink { print($0) }   // prints "0 bpm"
/// model.beatsPerMinute = 72                                                  // prints "72 bpm"
/// ```
///
/// `$property` (a ``Published/Publisher``) gives each subscriber the current value as soon as it
/// requests, then every new value while it has demand (a subscriber without demand receives the latest
/// when it next asks). Publishing happens in the property's `willSet`: while subscribers and
/// `objectWillChange` run, the property still reads the old value. It never completes.
///
/// `@Published` is for properties of classes only (using it in a structure does not compile, as in
/// Combine). Reading and setting the property is safe from any thread; the publishing is serialised as a
/// subject's is.
@propertyWrapper
public struct Published<Value> {
    /// The storage, shared by every copy of this wrapper.
    let storage: PublishedSubject<Value>

    /// Creates the wrapper of a property whose initial value is `wrappedValue` (`@Published var x = 0`).
    ///
    /// - Parameter wrappedValue: the initial value.
    public init(wrappedValue: Value) {
        storage = PublishedSubject(wrappedValue)
    }

    /// Creates the wrapper of a property whose initial value is `initialValue`.
    ///
    /// - Parameter initialValue: the initial value.
    public init(initialValue: Value) {
        self.init(wrappedValue: initialValue)
    }

    /// The property's publisher, reached as `$property`.
    ///
    /// Setting it does nothing: the setter exists so that `assign(to: &$property)` can take it `inout`,
    /// as in Combine.
    public var projectedValue: Publisher {
        mutating get { Publisher(storage: storage) }
        set {}
    }

    /// Not available: `@Published` works only on properties of classes, which reach the value through
    /// ``subscript(_enclosingInstance:wrapped:storage:)``.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { storage.currentValue }
        set { storage.set(newValue) }
    }

    /// The value of the property `wrapped` of `object`, whose wrapper is at `storageKeyPath`; setting it
    /// publishes the new value (this is how Swift reaches a wrapped property of a class).
    ///
    /// - Parameters:
    ///   - object: the instance whose property is read or set.
    ///   - wrappedKeyPath: the property.
    ///   - storageKeyPath: the property's wrapper.
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].storage.currentValue }
        set { object[keyPath: storageKeyPath].storage.set(newValue) }
    }
}

extension Published {
    /// The publisher of a `@Published` property, reached as `$property`: the current value to each
    /// subscriber first, then every new value while it has demand. It never fails or completes.
    ///
    /// Its subscriptions describe themselves as `"PublishedSubject"`.
    public struct Publisher: Ripple.Publisher {
        /// The property's type.
        public typealias Output = Value
        /// It never fails.
        public typealias Failure = Never

        /// The property's storage.
        let storage: PublishedSubject<Value>

        /// Attaches `subscriber`; it receives the current value once it requests, then every change.
        ///
        /// - Parameter subscriber: the subscriber to attach.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            storage.subject.subscribe(subscriber, parent: storage)
        }
    }
}

extension Published.Publisher: Sendable where Value: Sendable {}

extension Publisher where Failure == Never {
    /// Assigns every value to a `@Published` property, for as long as the property's object lives.
    ///
    /// ```swift
    /// final class BatteryViewModel: ObservableObject {
    ///     @Published var level = 0
    ///     init(levels: some Publisher<Int, Never>) {
    ///         levels.assign(to: &$level)   // no cancellable to keep, no reference cycle
    ///     }
    /// }
    /// ```
    ///
    /// The subscription requests every value and is cancelled when the property (with its object) goes
    /// away, so there is no cancellable to keep and no reference to the object. Each value sets the
    /// property as an assignment would: `objectWillChange` first, then the property's subscribers.
    ///
    /// - Parameter published: the property's publisher, `&$property`.
    public func assign(to published: inout Published<Output>.Publisher) {
        subscribe(PublishedAssignment(storage: published.storage))
    }
}

/// The subscriber `assign(to:)` attaches: it sets the property for each value and holds it weakly, so that
/// the property's storage (which keeps the subscription) can go away and cancel it.
private struct PublishedAssignment<Value>: Subscriber {
    typealias Input = Value
    typealias Failure = Never

    let combineIdentifier = CombineIdentifier()
    weak var storage: PublishedSubject<Value>?

    init(storage: PublishedSubject<Value>) {
        self.storage = storage
    }

    func receive(subscription: any Subscription) {
        guard let storage else {
            subscription.cancel()
            return
        }
        storage.keep(subscription)
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        storage?.set(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}
