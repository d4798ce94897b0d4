/// What bluetoothd asks this process's pairing agent while a peripheral pairs.
public struct PairingRequest: Sendable, Hashable {
    /// The question.
    public enum Kind: Sendable, Hashable {
        /// Numeric comparison: does the peripheral show this passkey? Answer ``PairingResponse/accept``
        /// or ``PairingResponse/reject``.
        case confirmPasskey(UInt32)
        /// Type the passkey the peripheral shows: answer ``PairingResponse/passkey(_:)``.
        case enterPasskey
        /// Show this passkey to the person, who types it on the peripheral (any answer but a rejection
        /// goes on).
        case displayPasskey(UInt32)
        /// Type the peripheral's PIN code (legacy pairing): answer ``PairingResponse/pinCode(_:)``.
        case enterPinCode
        /// Show this PIN code to the person.
        case displayPinCode(String)
        /// May the peripheral pair without any passkey ("just works" needing a yes)?
        case authorizePairing
        /// May the peripheral use the service with this UUID?
        case authorizeService(String)
    }

    /// The peripheral's address (from bluetoothd's device path), when it could be read.
    public var address: BluetoothAddress?
    /// The question.
    public var kind: Kind

    /// A question `kind` about the peripheral at `address`.
    ///
    /// - Parameters:
    ///   - address: the peripheral's address (from bluetoothd's device path), when it could be read.
    ///   - kind: the question.
    public init(address: BluetoothAddress?, kind: Kind) {
        self.address = address
        self.kind = kind
    }
}

/// The answer to a ``PairingRequest``.
public enum PairingResponse: Sendable, Hashable {
    /// Yes (a confirmation, an authorisation, or "shown" for a display request).
    case accept
    /// No: bluetoothd ends the pairing (`org.bluez.Error.Rejected`).
    case reject
    /// The passkey typed (0–999999).
    case passkey(UInt32)
    /// The PIN code typed (1–16 characters).
    case pinCode(String)
}

/// What the person can do on this side, which decides the questions bluetoothd asks
/// (`AgentManager1.RegisterAgent`'s capability).
public enum PairingCapability: String, Sendable, Hashable, CaseIterable {
    /// A display, no input.
    case displayOnly = "DisplayOnly"
    /// A display and a yes/no input.
    case displayYesNo = "DisplayYesNo"
    /// A keyboard, no display.
    case keyboardOnly = "KeyboardOnly"
    /// Neither (just works only).
    case noInputNoOutput = "NoInputNoOutput"
    /// A keyboard and a display.
    case keyboardDisplay = "KeyboardDisplay"
}

/// Answers bluetoothd's pairing questions: called on the central's loop thread for each question; it
/// may take its time (a person deciding); bluetoothd waits.
public typealias PairingHandler = @Sendable (PairingRequest) async -> PairingResponse
