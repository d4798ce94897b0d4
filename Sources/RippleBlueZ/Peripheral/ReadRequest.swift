import RippleDBus

/// A central's read of a served characteristic, as a read handler gets it.
public struct ReadRequest: Sendable, Hashable {
    /// Where the central's read starts; the handler answers the bytes from there.
    public var offset: Int
    /// The ATT MTU of the central's link (23 when bluetoothd did not say).
    public var mtu: Int
    /// bluetoothd's object for the central (`/org/bluez/hci1/dev_00_1A_7D_DA_71_13`), when it said.
    public var device: DBusObjectPath?

    /// A read request.
    ///
    /// - Parameters:
    ///   - offset: where the read starts.
    ///   - mtu: the link's ATT MTU.
    ///   - device: bluetoothd's object for the central.
    public init(offset: Int = 0, mtu: Int = 23, device: DBusObjectPath? = nil) {
        self.offset = offset
        self.mtu = mtu
        self.device = device
    }

    /// The central's address, read from ``device`` (`00:1A:7D:DA:71:13`).
    public var centralAddress: BluetoothAddress? { device.flatMap(PairingAgent.address(of:)) }
}

extension ReadRequest {
    /// The request in bluetoothd's options (`offset`, `mtu`, `device`).
    init(options: [String: DBusValue]) {
        self.init(
            offset: Int(options["offset"]?.unwrappingVariants.uint16 ?? 0),
            mtu: Int(options["mtu"]?.unwrappingVariants.uint16 ?? 23),
            device: options["device"]?.unwrappingVariants.objectPath)
    }
}
