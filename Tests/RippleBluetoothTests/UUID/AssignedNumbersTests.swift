import Testing

@testable import RippleBluetooth

@Suite struct AssignedNumbersTests {
    /// Every named constant, its 16-bit number and the SIG's name for it.
    static let constants: [(BluetoothUUID, UInt16, String)] = [
        (.genericAccess, 0x1800, "Generic Access"),
        (.genericAttribute, 0x1801, "Generic Attribute"),
        (.immediateAlert, 0x1802, "Immediate Alert"),
        (.linkLoss, 0x1803, "Link Loss"),
        (.txPower, 0x1804, "Tx Power"),
        (.currentTime, 0x1805, "Current Time"),
        (.healthThermometer, 0x1809, "Health Thermometer"),
        (.deviceInformation, 0x180A, "Device Information"),
        (.heartRate, 0x180D, "Heart Rate"),
        (.battery, 0x180F, "Battery"),
        (.bloodPressure, 0x1810, "Blood Pressure"),
        (.humanInterfaceDevice, 0x1812, "Human Interface Device"),
        (.runningSpeedAndCadence, 0x1814, "Running Speed and Cadence"),
        (.cyclingSpeedAndCadence, 0x1816, "Cycling Speed and Cadence"),
        (.cyclingPower, 0x1818, "Cycling Power"),
        (.locationAndNavigation, 0x1819, "Location and Navigation"),
        (.environmentalSensing, 0x181A, "Environmental Sensing"),
        (.bodyComposition, 0x181B, "Body Composition"),
        (.userData, 0x181C, "User Data"),
        (.weightScale, 0x181D, "Weight Scale"),
        (.bondManagement, 0x181E, "Bond Management"),
        (.continuousGlucoseMonitoring, 0x181F, "Continuous Glucose Monitoring"),
        (.pulseOximeter, 0x1822, "Pulse Oximeter"),
        (.fitnessMachine, 0x1826, "Fitness Machine"),
        (.meshProvisioning, 0x1827, "Mesh Provisioning"),
        (.meshProxy, 0x1828, "Mesh Proxy"),
        (.deviceName, 0x2A00, "Device Name"),
        (.appearance, 0x2A01, "Appearance"),
        (.peripheralPreferredConnectionParameters, 0x2A04, "Peripheral Preferred Connection Parameters"),
        (.serviceChanged, 0x2A05, "Service Changed"),
        (.alertLevel, 0x2A06, "Alert Level"),
        (.txPowerLevel, 0x2A07, "Tx Power Level"),
        (.batteryLevel, 0x2A19, "Battery Level"),
        (.temperatureMeasurement, 0x2A1C, "Temperature Measurement"),
        (.temperatureType, 0x2A1D, "Temperature Type"),
        (.intermediateTemperature, 0x2A1E, "Intermediate Temperature"),
        (.systemID, 0x2A23, "System ID"),
        (.modelNumberString, 0x2A24, "Model Number String"),
        (.serialNumberString, 0x2A25, "Serial Number String"),
        (.firmwareRevisionString, 0x2A26, "Firmware Revision String"),
        (.hardwareRevisionString, 0x2A27, "Hardware Revision String"),
        (.softwareRevisionString, 0x2A28, "Software Revision String"),
        (.manufacturerNameString, 0x2A29, "Manufacturer Name String"),
        (.bloodPressureMeasurement, 0x2A35, "Blood Pressure Measurement"),
        (.heartRateMeasurement, 0x2A37, "Heart Rate Measurement"),
        (.bodySensorLocation, 0x2A38, "Body Sensor Location"),
        (.heartRateControlPoint, 0x2A39, "Heart Rate Control Point"),
        (.pnpID, 0x2A50, "PnP ID"),
        (.rscMeasurement, 0x2A53, "RSC Measurement"),
        (.cscMeasurement, 0x2A5B, "CSC Measurement"),
        (.pressure, 0x2A6D, "Pressure"),
        (.temperature, 0x2A6E, "Temperature"),
        (.humidity, 0x2A6F, "Humidity"),
        (.clientSupportedFeatures, 0x2B29, "Client Supported Features"),
        (.databaseHash, 0x2B2A, "Database Hash"),
        (.serverSupportedFeatures, 0x2B3A, "Server Supported Features"),
        (.characteristicExtendedProperties, 0x2900, "Characteristic Extended Properties"),
        (.characteristicUserDescription, 0x2901, "Characteristic User Description"),
        (.clientCharacteristicConfiguration, 0x2902, "Client Characteristic Configuration"),
        (.serverCharacteristicConfiguration, 0x2903, "Server Characteristic Configuration"),
        (.characteristicPresentationFormat, 0x2904, "Characteristic Presentation Format"),
        (.characteristicAggregateFormat, 0x2905, "Characteristic Aggregate Format"),
        (.validRange, 0x2906, "Valid Range"),
        (.reportReference, 0x2908, "Report Reference"),
        (.environmentalSensingMeasurement, 0x290C, "Environmental Sensing Measurement"),
    ]

    @Test func everyConstantHasItsNumberAndName() {
        #expect(Self.constants.count == 65)
        for (uuid, number, name) in Self.constants {
            #expect(uuid.shortForm == number)
            #expect(uuid == BluetoothUUID(number))
            #expect(uuid.name == name)
            #expect(AssignedNumbers.name(for: number) == name)
        }
    }

    @Test func constantsAreDistinct() {
        #expect(Set(Self.constants.map(\.0)).count == Self.constants.count)
    }

    @Test func namesOfWellKnownNumbers() {
        #expect(BluetoothUUID.heartRate.name == "Heart Rate")
        #expect(BluetoothUUID.heartRateMeasurement.name == "Heart Rate Measurement")
        #expect(BluetoothUUID.clientCharacteristicConfiguration.name == "Client Characteristic Configuration")
        #expect(BluetoothUUID(UInt16(0x2800)).name == "Primary Service")
        #expect(BluetoothUUID(UInt16(0x2803)).name == "Characteristic")
        #expect(BluetoothUUID(UInt16(0x1808)).name == "Glucose")
        #expect(BluetoothUUID(UInt16(0x2A18)).name == "Glucose Measurement")
        #expect(BluetoothUUID(UInt16(0x2911)).name == "Valid Range and Accuracy")
        #expect(BluetoothUUID(UInt16(0x2AD2)).name == "Indoor Bike Data")
        #expect(BluetoothUUID(UInt16(0x2A8D)).name == "Heart Rate Max")
        #expect(BluetoothUUID(UInt16(0x185B)).name == "Ranging")
    }

    @Test func unknownNumbersHaveNoName() {
        #expect(AssignedNumbers.name(for: 0x0000) == nil)
        #expect(AssignedNumbers.name(for: 0x1817) == nil)
        #expect(AssignedNumbers.name(for: 0xFFFF) == nil)
        #expect(BluetoothUUID(UInt32(0x0001_180D)).name == nil)
    }

    @Test func tablesKeepToTheirRanges() {
        #expect(AssignedNumbers.services.keys.allSatisfy { (0x1800...0x18FF).contains($0) })
        #expect(AssignedNumbers.characteristics.keys.allSatisfy { (0x2A00...0x2BFF).contains($0) })
        #expect(AssignedNumbers.descriptors.keys.allSatisfy { (0x2900...0x29FF).contains($0) })
        #expect(AssignedNumbers.declarations.keys.allSatisfy { (0x2800...0x28FF).contains($0) })
        #expect(AssignedNumbers.services.count == 71)
        #expect(AssignedNumbers.characteristics.count == 173)
        #expect(AssignedNumbers.descriptors.count == 21)
        #expect(AssignedNumbers.declarations.count == 4)
    }
}
