/// A simulated world as a file describes it (JSON or YAML, shaped alike): the `Codable` form of a
/// ``SimulatedWorld``, checked and turned into one by ``makeWorld()``.
///
/// ```yaml
/// signalOrder: shuffled:1234     # optional: in-order by default (see BlueZSimulator.SignalOrder)
/// adapters:                      # optional: one powered hci0 by default
///   - name: hci0
///     address: "00:1A:7D:DA:71:13"
/// peripherals:
///   - preset: heart-rate-monitor # a ready-made peripheral…
///     name: Ripple HRM           # …with fields overridden, services appended
///   - address: "C0:FF:EE:00:00:10"
///     name: Streamer
///     advertisedServices: ["12345678-1234-5678-1234-56789abcdef0"]
///     services:
///       - preset: battery
///         level: 50
///       - uuid: "12345678-1234-5678-1234-56789abcdef0"
///         characteristics:
///           - uuid: "12345678-1234-5678-1234-56789abcdef1"
///             flags: [notify]
///             notifications: { count: 10000, payload: numbered, size: 20 }
///           - uuid: "12345678-1234-5678-1234-56789abcdef2"
///             flags: [read, write, write-without-response]
///             value: "00 01"
/// ```
///
/// Keys are camelCase; a key the schema does not know is an error (it is usually a typo). UUIDs are
/// strings (`"180d"`, `"0x2A37"`, or 128-bit); addresses `"XX:XX:XX:XX:XX:XX"`; byte values hexadecimal
/// strings (`"0a0b"`, `"0a 0b"`, `"0a:0b"`, `"0x0a0b"`), or `text` for UTF-8; durations a number of
/// milliseconds or a string with a unit (`"250ms"`, `"1.5s"`, `"500us"`); numbers that are identifiers
/// (appearance, company identifiers) a number or a string, hexadecimal with `0x`.
///
/// Decoding accepts any well-typed file; ``makeWorld()`` checks the rest (unknown presets and flags,
/// malformed UUIDs, addresses and hex, values out of range, duplicate addresses, unknown adapters, …)
/// and reports each problem with where it is: `peripherals[1].services[0].characteristics[2].flags[1]:
/// unknown flag "notfy" …`.
public struct WorldDescription: Codable, Sendable, Hashable {
    /// The adapters; nil for one powered `hci0`.
    public var adapters: [Adapter]?
    /// The peripherals.
    public var peripherals: [Peripheral]?
    /// Free text about the world, ignored by the simulator.
    public var description: String?
    /// The order of the simulated bluetoothd's signals: `in-order` or `shuffled:SEED` (see
    /// ``BlueZSimulator/SignalOrder``); nil for in order. `ripple-bluez-sim --order` overrides it.
    public var signalOrder: String?

    /// A description of `adapters` (nil: one powered `hci0`) and `peripherals`.
    ///
    /// - Parameters:
    ///   - adapters: The adapters; nil for one powered `hci0`.
    ///   - peripherals: The peripherals.
    ///   - description: Free text about the world.
    ///   - signalOrder: `in-order` or `shuffled:SEED`; nil for in order.
    public init(
        adapters: [Adapter]? = nil, peripherals: [Peripheral]? = nil, description: String? = nil,
        signalOrder: String? = nil
    ) {
        self.adapters = adapters
        self.peripherals = peripherals
        self.description = description
        self.signalOrder = signalOrder
    }

    /// The signal order the file names.
    ///
    /// - Returns: The order of `signalOrder`, or nil when the file names none.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` when `signalOrder` is not an order.
    public func makeSignalOrder() throws(SimulatorError) -> BlueZSimulator.SignalOrder? {
        guard let signalOrder else { return nil }
        guard let order = BlueZSimulator.SignalOrder(signalOrder) else {
            throw .invalidWorld(Self.signalOrderProblem(signalOrder))
        }
        return order
    }

    /// What is wrong with a `signalOrder` that names no order.
    static func signalOrderProblem(_ text: String) -> String {
        "signalOrder: \"\(text)\" is not an order: use in-order or shuffled:SEED (a 64-bit seed)"
    }

    /// The keys of a world file's top level.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        /// `adapters`.
        case adapters
        /// `peripherals`.
        case peripherals
        /// `description`.
        case description
        /// `signalOrder`.
        case signalOrder
    }

    /// Decodes a world, refusing keys it does not know.
    ///
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when the data does not have this form.
    public init(from decoder: any Decoder) throws {
        try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        adapters = try container.decodeIfPresent([Adapter].self, forKey: .adapters)
        peripherals = try container.decodeIfPresent([Peripheral].self, forKey: .peripherals)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        signalOrder = try container.decodeIfPresent(String.self, forKey: .signalOrder)
    }

    /// The demo world `ripple-bluez-sim` serves without a world file: one powered `hci0`, the ready-made
    /// heart-rate monitor (with battery and device information) and the LED/button device.
    public static let demo = WorldDescription(
        peripherals: [Peripheral(preset: "heart-rate-monitor"), Peripheral(preset: "led-button")],
        description: "One powered hci0, a heart-rate monitor and an LED/button device.")

    /// A number or a text, where a file may give either (durations, identifiers).
    public enum Scalar: Codable, Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
        /// A number.
        case number(Double)
        /// A text.
        case text(String)

        /// `.number`.
        ///
        /// - Parameter value: the literal.
        public init(integerLiteral value: Int) {
            self = .number(Double(value))
        }

        /// `.text`.
        ///
        /// - Parameter value: the literal.
        public init(stringLiteral value: String) {
            self = .text(value)
        }

        /// Decodes a number, or else a text.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        /// Encodes the number or the text.
        ///
        /// - Parameter encoder: the encoder to write to.
        /// - Throws: the encoder's error.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let number): try container.encode(number)
            case .text(let text): try container.encode(text)
            }
        }
    }

    /// An adapter: `{name, address, systemName, powered}`, each optional.
    public struct Adapter: Codable, Sendable, Hashable {
        /// `hci0`, `hci1`, …; by default `hci<index>`.
        public var name: String?
        /// Its address; by default `00:1A:7D:DA:71:1<index>`.
        public var address: String?
        /// `Adapter1.Name` and the initial alias; `ripple-sim` by default.
        public var systemName: String?
        /// Whether it is powered at first; true by default.
        public var powered: Bool?

        /// An adapter description.
        ///
        /// - Parameters:
        ///   - name: `hci0`, `hci1`, …; by default `hci<index>`.
        ///   - address: its address; by default `00:1A:7D:DA:71:1<index>`.
        ///   - systemName: `Adapter1.Name` and the initial alias; `ripple-sim` by default.
        ///   - powered: whether it is powered at first; true by default.
        public init(name: String? = nil, address: String? = nil, systemName: String? = nil, powered: Bool? = nil) {
            self.name = name
            self.address = address
            self.systemName = systemName
            self.powered = powered
        }

        /// The keys of an adapter.
        public enum CodingKeys: String, CodingKey, CaseIterable {
            /// `name`.
            case name
            /// `address`.
            case address
            /// `systemName`.
            case systemName
            /// `powered`.
            case powered
        }

        /// Decodes an adapter, refusing keys it does not know.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            address = try container.decodeIfPresent(String.self, forKey: .address)
            systemName = try container.decodeIfPresent(String.self, forKey: .systemName)
            powered = try container.decodeIfPresent(Bool.self, forKey: .powered)
        }
    }

    /// A peripheral: a ready-made one by `preset` (`heart-rate-monitor`, `led-button`) or one described
    /// from its `address`; the other fields override the preset's (``SimulatedPeripheral``'s defaults
    /// otherwise), and `services` come after the preset's.
    public struct Peripheral: Codable, Sendable, Hashable {
        /// A ready-made peripheral: `heart-rate-monitor` or `led-button`.
        public var preset: String?
        /// The device address; required without a preset.
        public var address: String?
        /// `public` (default) or `random`.
        public var addressType: String?
        /// The advertised local name.
        public var name: String?
        /// The GAP appearance (0…0xFFFF).
        public var appearance: Scalar?
        /// The adapter that sees it; the first adapter by default.
        public var adapter: String?
        /// RSSI in dBm (−127…20).
        public var rssi: Int?
        /// How far the RSSI wanders (0…50 dB).
        public var rssiVariation: Int?
        /// The advertised TX power in dBm (−127…20).
        public var txPower: Int?
        /// Manufacturer data: company identifier (`"0x0059"` or `"89"`) to hex bytes.
        public var manufacturerData: [String: String]?
        /// Service data: service UUID to hex bytes.
        public var serviceData: [String: String]?
        /// The advertised service UUIDs.
        public var advertisedServices: [String]?
        /// Time between advertisements (milliseconds, or a string with a unit).
        public var advertisingInterval: Scalar?
        /// Whether it accepts connections.
        public var connectable: Bool?
        /// Whether it is within range at first.
        public var inRange: Bool?
        /// Whether bluetoothd knows it from the start.
        public var known: Bool?
        /// Whether it is paired at first.
        public var paired: Bool?
        /// The time a connection takes (milliseconds, or a string with a unit).
        public var connectionDelay: Scalar?
        /// The ATT MTU (23…517).
        public var mtu: Int?
        /// For a preset: its battery level in percent (0…100).
        public var batteryLevel: Int?
        /// Its GATT services (after a preset's).
        public var services: [Service]?

        /// A peripheral description.
        ///
        /// - Parameters:
        ///   - preset: a ready-made peripheral: `heart-rate-monitor` or `led-button`.
        ///   - address: the device address; required without a preset.
        ///   - addressType: `public` (default) or `random`.
        ///   - name: the advertised local name.
        ///   - appearance: the GAP appearance (0…0xFFFF).
        ///   - adapter: the adapter that sees it; the first adapter by default.
        ///   - rssi: RSSI in dBm (−127…20).
        ///   - rssiVariation: how far the RSSI wanders (0…50 dB).
        ///   - txPower: the advertised TX power in dBm (−127…20).
        ///   - manufacturerData: Manufacturer data: company identifier (`"0x0059"` or `"89"`) to hex bytes.
        ///   - serviceData: Service data: service UUID to hex bytes.
        ///   - advertisedServices: the advertised service UUIDs.
        ///   - advertisingInterval: time between advertisements (milliseconds, or a string with a unit).
        ///   - connectable: whether it accepts connections.
        ///   - inRange: whether it is within range at first.
        ///   - known: whether bluetoothd knows it from the start.
        ///   - paired: whether it is paired at first.
        ///   - connectionDelay: the time a connection takes (milliseconds, or a string with a unit).
        ///   - mtu: the ATT MTU (23…517).
        ///   - batteryLevel: for a preset: its battery level in percent (0…100).
        ///   - services: its GATT services (after a preset's).
        public init(
            preset: String? = nil, address: String? = nil, addressType: String? = nil, name: String? = nil,
            appearance: Scalar? = nil, adapter: String? = nil, rssi: Int? = nil, rssiVariation: Int? = nil,
            txPower: Int? = nil, manufacturerData: [String: String]? = nil, serviceData: [String: String]? = nil,
            advertisedServices: [String]? = nil, advertisingInterval: Scalar? = nil, connectable: Bool? = nil,
            inRange: Bool? = nil, known: Bool? = nil, paired: Bool? = nil, connectionDelay: Scalar? = nil,
            mtu: Int? = nil, batteryLevel: Int? = nil, services: [Service]? = nil
        ) {
            self.preset = preset
            self.address = address
            self.addressType = addressType
            self.name = name
            self.appearance = appearance
            self.adapter = adapter
            self.rssi = rssi
            self.rssiVariation = rssiVariation
            self.txPower = txPower
            self.manufacturerData = manufacturerData
            self.serviceData = serviceData
            self.advertisedServices = advertisedServices
            self.advertisingInterval = advertisingInterval
            self.connectable = connectable
            self.inRange = inRange
            self.known = known
            self.paired = paired
            self.connectionDelay = connectionDelay
            self.mtu = mtu
            self.batteryLevel = batteryLevel
            self.services = services
        }

        /// The keys of a peripheral.
        public enum CodingKeys: String, CodingKey, CaseIterable {
            /// The keys, named as the properties.
            case preset, address, addressType, name, appearance, adapter, rssi, rssiVariation, txPower
            /// The keys, named as the properties.
            case manufacturerData, serviceData, advertisedServices, advertisingInterval, connectable, inRange
            /// The keys, named as the properties.
            case known, paired, connectionDelay, mtu, batteryLevel, services
        }

        /// Decodes a peripheral, refusing keys it does not know.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            preset = try container.decodeIfPresent(String.self, forKey: .preset)
            address = try container.decodeIfPresent(String.self, forKey: .address)
            addressType = try container.decodeIfPresent(String.self, forKey: .addressType)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            appearance = try container.decodeIfPresent(Scalar.self, forKey: .appearance)
            adapter = try container.decodeIfPresent(String.self, forKey: .adapter)
            rssi = try container.decodeIfPresent(Int.self, forKey: .rssi)
            rssiVariation = try container.decodeIfPresent(Int.self, forKey: .rssiVariation)
            txPower = try container.decodeIfPresent(Int.self, forKey: .txPower)
            manufacturerData = try container.decodeIfPresent([String: String].self, forKey: .manufacturerData)
            serviceData = try container.decodeIfPresent([String: String].self, forKey: .serviceData)
            advertisedServices = try container.decodeIfPresent([String].self, forKey: .advertisedServices)
            advertisingInterval = try container.decodeIfPresent(Scalar.self, forKey: .advertisingInterval)
            connectable = try container.decodeIfPresent(Bool.self, forKey: .connectable)
            inRange = try container.decodeIfPresent(Bool.self, forKey: .inRange)
            known = try container.decodeIfPresent(Bool.self, forKey: .known)
            paired = try container.decodeIfPresent(Bool.self, forKey: .paired)
            connectionDelay = try container.decodeIfPresent(Scalar.self, forKey: .connectionDelay)
            mtu = try container.decodeIfPresent(Int.self, forKey: .mtu)
            batteryLevel = try container.decodeIfPresent(Int.self, forKey: .batteryLevel)
            services = try container.decodeIfPresent([Service].self, forKey: .services)
        }
    }

    /// A GATT service: a ready-made one by `preset` (`heart-rate`, `battery`, `device-information`,
    /// `led-button`) with its options, or one described by `uuid` and `characteristics`.
    public struct Service: Codable, Sendable, Hashable {
        /// `heart-rate`, `battery`, `device-information` or `led-button`.
        public var preset: String?
        /// The service UUID (a described service).
        public var uuid: String?
        /// Whether it is primary (a described service; true by default).
        public var primary: Bool?
        /// Its characteristics (a described service).
        public var characteristics: [Characteristic]?
        /// `battery`: the level in percent (0…100).
        public var level: Int?
        /// `heart-rate`: where the sensor is worn (`chest`, `wrist`, `finger`, `hand`, `ear-lobe`, `foot`,
        /// `other`).
        public var location: String?
        /// `heart-rate`: measurements per second.
        public var rate: Double?
        /// `led-button`: whether the LED is on at first.
        public var ledOn: Bool?
        /// `device-information`: Manufacturer Name String.
        public var manufacturerName: String?
        /// `device-information`: Model Number String.
        public var modelNumber: String?
        /// `device-information`: Serial Number String.
        public var serialNumber: String?
        /// `device-information`: Hardware Revision String.
        public var hardwareRevision: String?
        /// `device-information`: Firmware Revision String.
        public var firmwareRevision: String?
        /// `device-information`: Software Revision String.
        public var softwareRevision: String?
        /// `device-information`: System ID, 8 hex bytes.
        public var systemID: String?
        /// `device-information`: PnP ID, 7 hex bytes.
        public var pnpID: String?

        /// A service description.
        ///
        /// - Parameters:
        ///   - preset: `heart-rate`, `battery`, `device-information` or `led-button`.
        ///   - uuid: the service UUID (a described service).
        ///   - primary: whether it is primary (a described service; true by default).
        ///   - characteristics: its characteristics (a described service).
        ///   - level: `battery`: the level in percent (0…100).
        ///   - location: `heart-rate`: where the sensor is worn (`chest`, `wrist`, `finger`, `hand`, `ear-lobe`,
        ///     `foot`, `other`).
        ///   - rate: `heart-rate`: measurements per second.
        ///   - ledOn: `led-button`: whether the LED is on at first.
        ///   - manufacturerName: `device-information`: Manufacturer Name String.
        ///   - modelNumber: `device-information`: Model Number String.
        ///   - serialNumber: `device-information`: Serial Number String.
        ///   - hardwareRevision: `device-information`: Hardware Revision String.
        ///   - firmwareRevision: `device-information`: Firmware Revision String.
        ///   - softwareRevision: `device-information`: Software Revision String.
        ///   - systemID: `device-information`: System ID, 8 hex bytes.
        ///   - pnpID: `device-information`: PnP ID, 7 hex bytes.
        public init(
            preset: String? = nil, uuid: String? = nil, primary: Bool? = nil,
            characteristics: [Characteristic]? = nil, level: Int? = nil, location: String? = nil,
            rate: Double? = nil, ledOn: Bool? = nil, manufacturerName: String? = nil, modelNumber: String? = nil,
            serialNumber: String? = nil, hardwareRevision: String? = nil, firmwareRevision: String? = nil,
            softwareRevision: String? = nil, systemID: String? = nil, pnpID: String? = nil
        ) {
            self.preset = preset
            self.uuid = uuid
            self.primary = primary
            self.characteristics = characteristics
            self.level = level
            self.location = location
            self.rate = rate
            self.ledOn = ledOn
            self.manufacturerName = manufacturerName
            self.modelNumber = modelNumber
            self.serialNumber = serialNumber
            self.hardwareRevision = hardwareRevision
            self.firmwareRevision = firmwareRevision
            self.softwareRevision = softwareRevision
            self.systemID = systemID
            self.pnpID = pnpID
        }

        /// The keys of a service.
        public enum CodingKeys: String, CodingKey, CaseIterable {
            /// The keys, named as the properties.
            case preset, uuid, primary, characteristics, level, location, rate, ledOn
            /// The keys, named as the properties.
            case manufacturerName, modelNumber, serialNumber, hardwareRevision, firmwareRevision
            /// The keys, named as the properties.
            case softwareRevision, systemID, pnpID
        }

        /// Decodes a service, refusing keys it does not know.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            preset = try container.decodeIfPresent(String.self, forKey: .preset)
            uuid = try container.decodeIfPresent(String.self, forKey: .uuid)
            primary = try container.decodeIfPresent(Bool.self, forKey: .primary)
            characteristics = try container.decodeIfPresent([Characteristic].self, forKey: .characteristics)
            level = try container.decodeIfPresent(Int.self, forKey: .level)
            location = try container.decodeIfPresent(String.self, forKey: .location)
            rate = try container.decodeIfPresent(Double.self, forKey: .rate)
            ledOn = try container.decodeIfPresent(Bool.self, forKey: .ledOn)
            manufacturerName = try container.decodeIfPresent(String.self, forKey: .manufacturerName)
            modelNumber = try container.decodeIfPresent(String.self, forKey: .modelNumber)
            serialNumber = try container.decodeIfPresent(String.self, forKey: .serialNumber)
            hardwareRevision = try container.decodeIfPresent(String.self, forKey: .hardwareRevision)
            firmwareRevision = try container.decodeIfPresent(String.self, forKey: .firmwareRevision)
            softwareRevision = try container.decodeIfPresent(String.self, forKey: .softwareRevision)
            systemID = try container.decodeIfPresent(String.self, forKey: .systemID)
            pnpID = try container.decodeIfPresent(String.self, forKey: .pnpID)
        }
    }

    /// A characteristic: `uuid`, `flags` (bluetoothd's names: `read`, `write`, `write-without-response`,
    /// `notify`, `indicate`, …), an initial `value` (hex) or `text`, `descriptors`, `notifications` (a
    /// source while a client listens), and `echo` (a write is answered by notifying the bytes written).
    public struct Characteristic: Codable, Sendable, Hashable {
        /// The characteristic UUID.
        public var uuid: String
        /// Its flags, by bluetoothd's names.
        public var flags: [String]
        /// Its initial value, hex.
        public var value: String?
        /// Its initial value as UTF-8 text (instead of `value`).
        public var text: String?
        /// Its descriptors (the simulator adds the CCCD itself).
        public var descriptors: [Descriptor]?
        /// Notifications it sends by itself while a client listens.
        public var notifications: Notifications?
        /// Whether a write is answered by a notification of the bytes written.
        public var echo: Bool?

        /// A characteristic description.
        ///
        /// - Parameters:
        ///   - uuid: the characteristic UUID.
        ///   - flags: its flags, by bluetoothd's names.
        ///   - value: its initial value, hex.
        ///   - text: its initial value as UTF-8 text (instead of `value`).
        ///   - descriptors: its descriptors (the simulator adds the CCCD itself).
        ///   - notifications: notifications it sends by itself while a client listens.
        ///   - echo: whether a write is answered by a notification of the bytes written.
        public init(
            uuid: String, flags: [String], value: String? = nil, text: String? = nil,
            descriptors: [Descriptor]? = nil, notifications: Notifications? = nil, echo: Bool? = nil
        ) {
            self.uuid = uuid
            self.flags = flags
            self.value = value
            self.text = text
            self.descriptors = descriptors
            self.notifications = notifications
            self.echo = echo
        }

        /// The keys of a characteristic.
        public enum CodingKeys: String, CodingKey, CaseIterable {
            /// The keys, named as the properties.
            case uuid, flags, value, text, descriptors, notifications, echo
        }

        /// Decodes a characteristic, refusing keys it does not know.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            uuid = try container.decode(String.self, forKey: .uuid)
            flags = try container.decode([String].self, forKey: .flags)
            value = try container.decodeIfPresent(String.self, forKey: .value)
            text = try container.decodeIfPresent(String.self, forKey: .text)
            descriptors = try container.decodeIfPresent([Descriptor].self, forKey: .descriptors)
            notifications = try container.decodeIfPresent(Notifications.self, forKey: .notifications)
            echo = try container.decodeIfPresent(Bool.self, forKey: .echo)
        }
    }

    /// A descriptor: `uuid`, `flags` (`read` by default), a `value` (hex) or `text`.
    public struct Descriptor: Codable, Sendable, Hashable {
        /// The descriptor UUID (not 0x2902: the simulator adds the CCCD itself).
        public var uuid: String
        /// Its flags, by bluetoothd's names; `[read]` by default.
        public var flags: [String]?
        /// Its value, hex.
        public var value: String?
        /// Its value as UTF-8 text (instead of `value`).
        public var text: String?

        /// A descriptor description.
        ///
        /// - Parameters:
        ///   - uuid: the descriptor UUID (not 0x2902: the simulator adds the CCCD itself).
        ///   - flags: its flags, by bluetoothd's names; `[read]` by default.
        ///   - value: its value, hex.
        ///   - text: its value as UTF-8 text (instead of `value`).
        public init(uuid: String, flags: [String]? = nil, value: String? = nil, text: String? = nil) {
            self.uuid = uuid
            self.flags = flags
            self.value = value
            self.text = text
        }

        /// The keys of a descriptor.
        public enum CodingKeys: String, CodingKey, CaseIterable {
            /// The keys, named as the properties.
            case uuid, flags, value, text
        }

        /// Decodes a descriptor, refusing keys it does not know.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            uuid = try container.decode(String.self, forKey: .uuid)
            flags = try container.decodeIfPresent([String].self, forKey: .flags)
            value = try container.decodeIfPresent(String.self, forKey: .value)
            text = try container.decodeIfPresent(String.self, forKey: .text)
        }
    }

    /// A ``NotificationSource``: `count` (none: endless), `rate` per second (none: as fast as possible),
    /// and a payload: `payload: numbered` (the default; a little-endian `UInt32` sequence number, then
    /// 0xA5), `payload: sequence-byte`, or `payload: timestamped` (the sequence number, then the send
    /// time as a little-endian `UInt64` of `CLOCK_MONOTONIC` nanoseconds), each of `size` bytes (20 by
    /// default), or `cycle`, a list of hex payloads sent in turn.
    public struct Notifications: Codable, Sendable, Hashable {
        /// How many; nil for no end.
        public var count: Int?
        /// Per second; nil for as fast as possible.
        public var rate: Double?
        /// `numbered`, `sequence-byte`, `timestamped` or `cycle`.
        public var payload: String?
        /// Payload size in bytes for `numbered`, `sequence-byte` and `timestamped`.
        public var size: Int?
        /// The hex payloads of `cycle`.
        public var cycle: [String]?

        /// A notifications description.
        ///
        /// - Parameters:
        ///   - count: how many; nil for no end.
        ///   - rate: per second; nil for as fast as possible.
        ///   - payload: `numbered`, `sequence-byte`, `timestamped` or `cycle`.
        ///   - size: payload size in bytes for `numbered`, `sequence-byte` and `timestamped`.
        ///   - cycle: the hex payloads of `cycle`.
        public init(
            count: Int? = nil, rate: Double? = nil, payload: String? = nil, size: Int? = nil, cycle: [String]? = nil
        ) {
            self.count = count
            self.rate = rate
            self.payload = payload
            self.size = size
            self.cycle = cycle
        }

        /// The keys of a notifications description.
        public enum CodingKeys: String, CodingKey, CaseIterable {
            /// The keys, named as the properties.
            case count, rate, payload, size, cycle
        }

        /// Decodes notifications, refusing keys it does not know.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try WorldFileKeys.rejectUnknown(CodingKeys.self, in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            count = try container.decodeIfPresent(Int.self, forKey: .count)
            rate = try container.decodeIfPresent(Double.self, forKey: .rate)
            payload = try container.decodeIfPresent(String.self, forKey: .payload)
            size = try container.decodeIfPresent(Int.self, forKey: .size)
            cycle = try container.decodeIfPresent([String].self, forKey: .cycle)
        }
    }
}
