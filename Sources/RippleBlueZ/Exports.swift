// The Bluetooth vocabulary (BluetoothUUID, BluetoothAddress, CharacteristicProperties, BlueZ's names) comes
// with `import RippleBlueZ`; the simulator exports the same module, so a file importing both sees each type once.
@_exported import RippleBluetooth
