extension WorldDescription {
    /// The names of the ready-made peripherals a file can name with `preset`.
    public static let peripheralPresets = ["heart-rate-monitor", "led-button"]
    /// The names of the ready-made services a file can name with `preset`.
    public static let servicePresets = ["heart-rate", "battery", "device-information", "led-button"]

    /// The world this description describes, after checking all of it.
    ///
    /// - Returns: the world.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` listing every problem found, one a line, each starting with where
    ///   it is (`peripherals[1].services[0].characteristics[2].flags[1]: unknown flag "notfy" (the flags are:
    ///   broadcast, read, …)`).
    public func makeWorld() throws(SimulatorError) -> SimulatedWorld {
        var checker = WorldChecker()
        let world = checker.world(self)
        guard checker.problems.isEmpty else {
            throw .invalidWorld(checker.problems.joined(separator: "\n"))
        }
        return world
    }
}

/// Turns a description into a world, collecting problems with where they are.
private struct WorldChecker {
    var problems: [String] = []

    mutating func report(_ path: String, _ message: String) {
        problems.append("\(path): \(message)")
    }

    // MARK: World and adapters

    mutating func world(_ description: WorldDescription) -> SimulatedWorld {
        if let order = description.signalOrder, BlueZSimulator.SignalOrder(order) == nil {
            problems.append(WorldDescription.signalOrderProblem(order))
        }
        var adapters: [SimulatedAdapter] = []
        if let described = description.adapters {
            for (index, adapter) in described.enumerated() {
                adapters.append(self.adapter(adapter, index: index, path: "adapters[\(index)]"))
            }
            reportDuplicates(adapters.map(\.name).enumerated().map { ($0, $1) }, path: "adapters", field: "name")
            reportDuplicates(
                adapters.map(\.address.description).enumerated().map { ($0, $1) }, path: "adapters", field: "address")
        } else {
            adapters = [SimulatedAdapter()]
        }
        var placements: [SimulatedWorld.Placement] = []
        var addresses: [(Int, String)] = []
        for (index, peripheral) in (description.peripherals ?? []).enumerated() {
            let path = "peripherals[\(index)]"
            let adapterName = peripheral.adapter ?? adapters.first?.name ?? "hci0"
            if !adapters.contains(where: { $0.name == adapterName }) {
                let known = adapters.map(\.name).joined(separator: ", ")
                report(
                    path + (peripheral.adapter == nil ? "" : ".adapter"),
                    "no adapter is named \"\(adapterName)\" (the adapters are: \(known.isEmpty ? "none" : known))")
            }
            if let made = self.peripheral(peripheral, path: path) {
                placements.append(SimulatedWorld.Placement(made, adapter: adapterName))
                addresses.append((index, made.address.description))
            }
        }
        reportDuplicates(addresses, path: "peripherals", field: "address")
        return SimulatedWorld(adapters: adapters, peripherals: placements)
    }

    /// Reports each value of `values` (index in the file, value) that an earlier one already has.
    mutating func reportDuplicates(_ values: [(Int, String)], path: String, field: String) {
        var seen: [String: Int] = [:]
        for (index, value) in values {
            if let first = seen[value] {
                report("\(path)[\(index)].\(field)", "\"\(value)\" is also the \(field) of \(path)[\(first)]")
            } else {
                seen[value] = index
            }
        }
    }

    mutating func adapter(_ adapter: WorldDescription.Adapter, index: Int, path: String) -> SimulatedAdapter {
        var made = SimulatedAdapter(
            name: "hci\(index)",
            address: BluetoothAddress(rawValue: 0x001A_7DDA_7100 | UInt64(UInt8(truncatingIfNeeded: index + 0x13))))
        if let name = adapter.name {
            if name.hasPrefix("hci"), name.count > 3, name.dropFirst(3).allSatisfy(\.isASCIIDigit) {
                made.name = name
            } else {
                report(path + ".name", "\"\(name)\" is not an adapter name (hci0, hci1, …)")
            }
        }
        if let text = adapter.address, let address = self.address(text, path: path + ".address") {
            made.address = address
        }
        if let systemName = adapter.systemName { made.systemName = systemName }
        if let powered = adapter.powered { made.isPowered = powered }
        return made
    }

    // MARK: Peripherals

    mutating func peripheral(_ description: WorldDescription.Peripheral, path: String) -> SimulatedPeripheral? {
        let parsed = description.address.flatMap { self.address($0, path: path + ".address") }
        // An address that is not one is reported already: the rest is still checked (on a stand-in
        // address, so that every problem is reported at once), and the peripheral is left out.
        let addressIsInvalid = description.address != nil && parsed == nil
        let address = addressIsInvalid ? BluetoothAddress(rawValue: 0) : parsed
        var battery: UInt8?
        if let level = description.batteryLevel {
            if description.preset == nil {
                report(path + ".batteryLevel", "applies only to a preset (describe a battery service instead)")
            } else if let valid = UInt8(exactly: level), valid <= 100 {
                battery = valid
            } else {
                report(path + ".batteryLevel", "\(level) is not a percentage (0…100)")
            }
        }
        var peripheral: SimulatedPeripheral
        switch description.preset {
        case nil:
            guard let address else {
                report(path, "missing key \"address\" (a peripheral without a preset needs its address)")
                return nil
            }
            peripheral = SimulatedPeripheral(address: address)
        case "heart-rate-monitor":
            peripheral =
                address.map { .heartRateMonitor(address: $0, batteryLevel: battery ?? 87) }
                ?? .heartRateMonitor(batteryLevel: battery ?? 87)
        case "led-button":
            peripheral =
                address.map { .ledButton(address: $0, batteryLevel: battery ?? 100) }
                ?? .ledButton(batteryLevel: battery ?? 100)
        case let preset?:
            report(
                path + ".preset",
                "unknown preset \"\(preset)\" (the peripheral presets are: "
                    + WorldDescription.peripheralPresets.joined(separator: ", ") + ")")
            return nil
        }
        applyAdvertisement(description, to: &peripheral, path: path)
        applyBehaviour(description, to: &peripheral, path: path)
        for (index, service) in (description.services ?? []).enumerated() {
            if let made = self.service(service, path: "\(path).services[\(index)]") {
                peripheral.services.append(made)
            }
        }
        return addressIsInvalid ? nil : peripheral
    }

    mutating func applyAdvertisement(
        _ description: WorldDescription.Peripheral, to peripheral: inout SimulatedPeripheral, path: String
    ) {
        if let addressType = description.addressType {
            if let type = BluetoothAddressType(rawValue: addressType) {
                peripheral.addressType = type
            } else {
                report(path + ".addressType", "\"\(addressType)\" is neither public nor random")
            }
        }
        if let name = description.name { peripheral.name = name }
        if let appearance = description.appearance {
            if let value = identifier(appearance, path: path + ".appearance") { peripheral.appearance = value }
        }
        if let rssi = description.rssi, let value = decibels(rssi, in: -127...20, path: path + ".rssi") {
            peripheral.rssi = value
        }
        if let variation = description.rssiVariation,
            let value = decibels(variation, in: 0...50, path: path + ".rssiVariation")
        {
            peripheral.rssiVariation = value
        }
        if let txPower = description.txPower, let value = decibels(txPower, in: -127...20, path: path + ".txPower") {
            peripheral.txPower = value
        }
        if let data = description.manufacturerData {
            var made: [UInt16: [UInt8]] = [:]
            for (key, value) in data.sorted(by: { $0.key < $1.key }) {
                let entryPath = "\(path).manufacturerData[\"\(key)\"]"
                let company = identifier(.text(key), path: entryPath)
                let bytes = self.bytes(value, path: entryPath)
                if let company, let bytes { made[company] = bytes }
            }
            peripheral.manufacturerData = made
        }
        if let data = description.serviceData {
            var made: [BluetoothUUID: [UInt8]] = [:]
            for (key, value) in data.sorted(by: { $0.key < $1.key }) {
                let entryPath = "\(path).serviceData[\"\(key)\"]"
                let uuid = self.uuid(key, path: entryPath)
                let bytes = self.bytes(value, path: entryPath)
                if let uuid, let bytes { made[uuid] = bytes }
            }
            peripheral.serviceData = made
        }
        if let services = description.advertisedServices {
            peripheral.advertisedServices = services.enumerated().compactMap { index, text in
                uuid(text, path: "\(path).advertisedServices[\(index)]")
            }
        }
        if let interval = description.advertisingInterval,
            let value = duration(interval, path: path + ".advertisingInterval")
        {
            if value > .zero {
                peripheral.advertisingInterval = value
            } else {
                report(path + ".advertisingInterval", "must be longer than 0")
            }
        }
    }

    mutating func applyBehaviour(
        _ description: WorldDescription.Peripheral, to peripheral: inout SimulatedPeripheral, path: String
    ) {
        if let connectable = description.connectable { peripheral.isConnectable = connectable }
        if let inRange = description.inRange { peripheral.isInRange = inRange }
        if let known = description.known { peripheral.isKnown = known }
        if let paired = description.paired { peripheral.isPaired = paired }
        if let delay = description.connectionDelay, let value = duration(delay, path: path + ".connectionDelay") {
            peripheral.connectionDelay = value
        }
        if let mtu = description.mtu {
            if (23...517).contains(mtu) {
                peripheral.mtu = mtu
            } else {
                report(path + ".mtu", "\(mtu) is not an ATT MTU (23…517)")
            }
        }
    }

    // MARK: Services

    /// The options of each service preset; a described service has none of them.
    static let presetOptions: [String: Set<WorldDescription.Service.CodingKeys>] = [
        "heart-rate": [.location, .rate],
        "battery": [.level],
        "device-information": [
            .manufacturerName, .modelNumber, .serialNumber, .hardwareRevision, .firmwareRevision, .softwareRevision,
            .systemID, .pnpID,
        ],
        "led-button": [.ledOn],
    ]

    mutating func service(_ description: WorldDescription.Service, path: String) -> SimulatedService? {
        let given = givenOptions(description)
        guard let preset = description.preset else {
            for option in given.sorted(by: { $0.rawValue < $1.rawValue }) {
                report("\(path).\(option.rawValue)", "applies only to a service preset")
            }
            return describedService(description, path: path)
        }
        for key in [WorldDescription.Service.CodingKeys.uuid, .primary, .characteristics]
        where described(key, in: description) {
            report("\(path).\(key.rawValue)", "a preset service cannot have it (describe the service instead)")
        }
        guard let allowed = Self.presetOptions[preset] else {
            report(
                path + ".preset",
                "unknown preset \"\(preset)\" (the service presets are: "
                    + WorldDescription.servicePresets.joined(separator: ", ") + ")")
            return nil
        }
        for option in given.subtracting(allowed).sorted(by: { $0.rawValue < $1.rawValue }) {
            report("\(path).\(option.rawValue)", "does not apply to the \(preset) preset")
        }
        switch preset {
        case "heart-rate":
            var location = SimulatedBodySensorLocation.chest
            if let name = description.location {
                if let known = SimulatedBodySensorLocation(name: name) {
                    location = known
                } else {
                    let names = SimulatedBodySensorLocation.allCases.map(\.name).joined(separator: ", ")
                    report(path + ".location", "unknown body sensor location \"\(name)\" (the locations are: \(names))")
                }
            }
            let rate = description.rate ?? 1
            if !(rate > 0) || !rate.isFinite { report(path + ".rate", "must be a positive number") }
            return .heartRate(rate: rate, location: location)
        case "battery":
            var level: UInt8 = 87
            if let given = description.level {
                if let valid = UInt8(exactly: given), valid <= 100 {
                    level = valid
                } else {
                    report(path + ".level", "\(given) is not a percentage (0…100)")
                }
            }
            return .battery(level: level)
        case "led-button":
            return .ledButton(ledOn: description.ledOn ?? false)
        default:
            let systemID = description.systemID.flatMap { bytes($0, count: 8, path: path + ".systemID") }
            let pnp = description.pnpID.flatMap { bytes($0, count: 7, path: path + ".pnpID") }
            let information = SimulatedDeviceInformation(
                manufacturerName: description.manufacturerName, modelNumber: description.modelNumber,
                serialNumber: description.serialNumber, hardwareRevision: description.hardwareRevision,
                firmwareRevision: description.firmwareRevision, softwareRevision: description.softwareRevision,
                systemID: systemID)
            var service = SimulatedService.deviceInformation(information)
            if let pnp {
                service.characteristics.append(SimulatedCharacteristic(uuid: .pnpID, flags: [.read], value: pnp))
            }
            return service
        }
    }

    func givenOptions(_ description: WorldDescription.Service) -> Set<WorldDescription.Service.CodingKeys> {
        var options: Set<WorldDescription.Service.CodingKeys> = []
        for option in Self.presetOptions.values.joined() where described(option, in: description) {
            options.insert(option)
        }
        return options
    }

    func described(_ key: WorldDescription.Service.CodingKeys, in service: WorldDescription.Service) -> Bool {
        switch key {
        case .preset: service.preset != nil
        case .uuid: service.uuid != nil
        case .primary: service.primary != nil
        case .characteristics: service.characteristics != nil
        case .level: service.level != nil
        case .location: service.location != nil
        case .rate: service.rate != nil
        case .ledOn: service.ledOn != nil
        case .manufacturerName: service.manufacturerName != nil
        case .modelNumber: service.modelNumber != nil
        case .serialNumber: service.serialNumber != nil
        case .hardwareRevision: service.hardwareRevision != nil
        case .firmwareRevision: service.firmwareRevision != nil
        case .softwareRevision: service.softwareRevision != nil
        case .systemID: service.systemID != nil
        case .pnpID: service.pnpID != nil
        }
    }

    mutating func describedService(_ description: WorldDescription.Service, path: String) -> SimulatedService? {
        guard let text = description.uuid else {
            report(path, "missing key \"uuid\" (a service needs a uuid or a preset)")
            return nil
        }
        let uuid = self.uuid(text, path: path + ".uuid")
        var characteristics: [SimulatedCharacteristic] = []
        for (index, characteristic) in (description.characteristics ?? []).enumerated() {
            if let made = self.characteristic(characteristic, path: "\(path).characteristics[\(index)]") {
                characteristics.append(made)
            }
        }
        guard let uuid else { return nil }
        return SimulatedService(uuid: uuid, isPrimary: description.primary ?? true, characteristics: characteristics)
    }

    // MARK: Characteristics and descriptors

    mutating func characteristic(_ description: WorldDescription.Characteristic, path: String)
        -> SimulatedCharacteristic?
    {
        let uuid = self.uuid(description.uuid, path: path + ".uuid")
        var flags: CharacteristicProperties = []
        for (index, name) in description.flags.enumerated() {
            if let flag = CharacteristicProperties(bluezNames: [name]) {
                flags.insert(flag)
            } else {
                report(
                    "\(path).flags[\(index)]",
                    "unknown flag \"\(name)\" (the flags are: "
                        + CharacteristicProperties.names.map(\.1).joined(separator: ", ") + ")")
            }
        }
        if description.flags.isEmpty { report(path + ".flags", "a characteristic needs at least one flag") }
        let value = self.value(hex: description.value, text: description.text, path: path) ?? []
        var descriptors: [SimulatedDescriptor] = []
        for (index, descriptor) in (description.descriptors ?? []).enumerated() {
            if let made = self.descriptor(descriptor, path: "\(path).descriptors[\(index)]") {
                descriptors.append(made)
            }
        }
        var source: NotificationSource?
        if let notifications = description.notifications {
            source = notificationSource(notifications, path: path + ".notifications")
            if !flags.canNotify && !description.flags.isEmpty {
                report(path + ".notifications", "the characteristic has neither the notify nor the indicate flag")
            }
        }
        var onWrite: GATTWriteHandler?
        if description.echo == true {
            if !flags.canNotify || flags.isDisjoint(with: [.write, .writeWithoutResponse]) {
                report(path + ".echo", "needs a writable characteristic that can notify or indicate")
            }
            onWrite = { (request: GATTWriteRequest) throws(BlueZError) -> GATTWriteResponse in
                GATTWriteResponse(notifications: [SimulatedNotification(request.value)])
            }
        }
        guard let uuid else { return nil }
        return SimulatedCharacteristic(
            uuid: uuid, flags: flags, value: value, descriptors: descriptors, onWrite: onWrite,
            notificationSource: source)
    }

    mutating func descriptor(_ description: WorldDescription.Descriptor, path: String) -> SimulatedDescriptor? {
        let uuid = self.uuid(description.uuid, path: path + ".uuid")
        if uuid == BluetoothUUID(0x2902) {
            report(
                path + ".uuid",
                "the Client Characteristic Configuration descriptor (2902) is added by the simulator itself")
        }
        var flags: DescriptorProperties = []
        for (index, name) in (description.flags ?? ["read"]).enumerated() {
            if let flag = DescriptorProperties(bluezNames: [name]) {
                flags.insert(flag)
            } else {
                report(
                    "\(path).flags[\(index)]",
                    "unknown flag \"\(name)\" (the descriptor flags are: "
                        + DescriptorProperties.names.map(\.1).joined(separator: ", ") + ")")
            }
        }
        let value = self.value(hex: description.value, text: description.text, path: path) ?? []
        guard let uuid else { return nil }
        return SimulatedDescriptor(uuid: uuid, flags: flags, value: value)
    }

    mutating func notificationSource(_ description: WorldDescription.Notifications, path: String) -> NotificationSource?
    {
        let payload: NotificationSource.Payload
        switch description.payload ?? (description.cycle == nil ? "numbered" : "cycle") {
        case "numbered":
            payload = .numbered(size: description.size ?? 20)
        case "sequence-byte":
            payload = .sequenceByte(size: description.size ?? 20)
        case "timestamped":
            payload = .timestamped(size: description.size ?? 20)
        case "cycle":
            if description.size != nil {
                report(path + ".size", "does not apply to a cycle (each payload has its size)")
            }
            guard let cycle = description.cycle else {
                report(path, "missing key \"cycle\" (the payloads of a cycle)")
                return nil
            }
            let payloads = cycle.enumerated().map { index, text in bytes(text, path: "\(path).cycle[\(index)]") }
            payload = .cycle(payloads.compactMap { $0 })
            guard payloads.allSatisfy({ $0 != nil }) else { return nil }
        case let other:
            report(
                path + ".payload",
                "unknown payload \"\(other)\" (the payloads are: numbered, sequence-byte, timestamped, cycle)")
            return nil
        }
        if description.cycle != nil, description.payload != nil, description.payload != "cycle" {
            report(path + ".cycle", "applies only to payload: cycle")
        }
        let source = NotificationSource(count: description.count, rate: description.rate, payload: payload)
        if let problem = source.problem {
            report(path, problem)
            return nil
        }
        return source
    }

    // MARK: Scalars

    mutating func address(_ text: String, path: String) -> BluetoothAddress? {
        guard let address = try? BluetoothAddress(text) else {
            report(path, "\"\(text)\" is not a device address (six hex bytes separated by colons)")
            return nil
        }
        return address
    }

    mutating func uuid(_ text: String, path: String) -> BluetoothUUID? {
        guard let uuid = try? BluetoothUUID(text) else {
            report(path, "\"\(text)\" is not a UUID (4 or 8 hex digits, or 128 bits as 8-4-4-4-12 hex digits)")
            return nil
        }
        return uuid
    }

    mutating func bytes(_ text: String, count: Int? = nil, path: String) -> [UInt8]? {
        guard let bytes = try? Hex.bytes(text) else {
            report(path, "\"\(text)\" is not hexadecimal bytes (like \"0a0b\", \"0a 0b\" or \"0a:0b\")")
            return nil
        }
        if let count, bytes.count != count {
            report(path, "must be \(count) bytes, not \(bytes.count)")
            return nil
        }
        if bytes.count > 512 {
            report(path, "is \(bytes.count) bytes long; an attribute value holds at most 512")
            return nil
        }
        return bytes
    }

    mutating func value(hex: String?, text: String?, path: String) -> [UInt8]? {
        switch (hex, text) {
        case (let hex?, nil):
            return bytes(hex, path: path + ".value")
        case (nil, let text?):
            let bytes = Array(text.utf8)
            if bytes.count > 512 { report(path + ".text", "is \(bytes.count) bytes long; a value holds at most 512") }
            return bytes
        case (.some, .some):
            report(path, "has both value and text; give one")
            return nil
        case (nil, nil):
            return nil
        }
    }

    mutating func identifier(_ scalar: WorldDescription.Scalar, path: String) -> UInt16? {
        let number: UInt16?
        switch scalar {
        case .number(let value):
            number = UInt16(exactly: value)
        case .text(let text):
            let lower = text.lowercased()
            number = lower.hasPrefix("0x") ? UInt16(lower.dropFirst(2), radix: 16) : UInt16(lower)
        }
        if number == nil { report(path, "\(scalar.shown) is not a 16-bit number (0…65535, or 0x0000…0xFFFF)") }
        return number
    }

    mutating func decibels(_ value: Int, in range: ClosedRange<Int>, path: String) -> Int16? {
        guard range.contains(value) else {
            report(path, "\(value) is out of range (\(range.lowerBound)…\(range.upperBound) dB)")
            return nil
        }
        return Int16(value)
    }

    mutating func duration(_ scalar: WorldDescription.Scalar, path: String) -> Duration? {
        var milliseconds: Double?
        switch scalar {
        case .number(let value):
            milliseconds = value
        case .text(let text):
            let units: [(String, Double)] = [("ms", 1), ("us", 0.001), ("µs", 0.001), ("s", 1000)]
            let trimmed = text.filter { $0 != " " }
            if let (suffix, scale) = units.first(where: { trimmed.hasSuffix($0.0) }) {
                milliseconds = Double(trimmed.dropLast(suffix.count)).map { $0 * scale }
            } else {
                milliseconds = Double(trimmed)
            }
        }
        guard let milliseconds, milliseconds >= 0, milliseconds < 86_400_000 else {
            report(path, "\(scalar.shown) is not a duration (milliseconds, or \"250ms\", \"1.5s\", \"500us\")")
            return nil
        }
        return .microseconds(Int64((milliseconds * 1000).rounded()))
    }
}

extension WorldDescription.Scalar {
    /// The scalar as a file shows it, for messages.
    fileprivate var shown: String {
        switch self {
        case .number(let value):
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .text(let text): "\"\(text)\""
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
