/// How a simulated peripheral pairs: which question bluetoothd puts to the client's agent
/// (`org.bluez.Agent1`) during `Device1.Pair()`.
public enum PairingMethod: Sendable, Hashable {
    /// No question (LE "just works").
    case justWorks
    /// Numeric comparison: `RequestConfirmation(device, passkey)`; the agent's success pairs, its error
    /// (`org.bluez.Error.Rejected`) fails the pairing with `AuthenticationRejected`.
    case confirmPasskey(UInt32)
    /// Passkey entry: `RequestPasskey(device)`; the answer must be `passkey`, else `AuthenticationFailed`.
    case enterPasskey(UInt32)
    /// Passkey display: `DisplayPasskey(device, passkey, 0)`, then the pairing succeeds.
    case displayPasskey(UInt32)
}
