/// An object that announces its changes: ``objectWillChange`` emits just before the object changes.
///
/// A class whose changing state is in `@Published` properties gets ``objectWillChange`` for free: an
/// ``ObservableObjectPublisher`` that every `@Published` property of the object (and of its superclasses)
/// signals before each change.
///
/// ```swift
/// final class SensorViewModel: ObservableObject {
///     @Published var temperature = 21.5
///     @Published var isConnected = false
/// }
/// let model = SensorViewModel()
/// let redraw = model.objectWillChange.sink { print("about to change") }
/// model.temperature = 22   // prints "about to change" (the property still reads 21.5 meanwhile)
/// ```
///
/// A class may instead declare `objectWillChange` itself, of any never-failing publisher type, and send on
/// it when it changes.
public protocol ObservableObject: AnyObject {
    /// The publisher that emits before the object changes (``ObservableObjectPublisher`` unless the class
    /// declares another).
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never

    /// Emits just before the object changes.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// The publisher every `@Published` property of the object signals before it changes.
    ///
    /// Combine finds the object's `@Published` properties through the runtime's type metadata; Ripple
    /// finds them through a `Mirror` of the object and of its superclasses, and installs one publisher in
    /// all of them on first use. Every read returns that same publisher. An object with no `@Published`
    /// property gets a new publisher that nothing signals. A class that customises its mirror
    /// (`CustomReflectable`) hides its properties from this search: declare `objectWillChange` yourself
    /// there and send on it.
    public var objectWillChange: ObservableObjectPublisher {
        var installed: ObservableObjectPublisher?
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                guard let property = child.value as? any PublishedProperty else { continue }
                // The first property decides (under its lock) which publisher the object uses; the others
                // adopt it. Every read visits the properties in the same order, so concurrent first reads
                // agree.
                let chosen = installed
                installed = property.installObjectWillChange(chosen ?? ObservableObjectPublisher())
            }
            mirror = current.superclassMirror
        }
        return installed ?? ObservableObjectPublisher()
    }
}

extension Published: PublishedProperty {
    func installObjectWillChange(
        _ candidate: @autoclosure () -> ObservableObjectPublisher
    ) -> ObservableObjectPublisher {
        storage.installObjectWillChange(candidate())
    }
}
